"""Where `pl.NZ` annotations go: the edit for one ND tensor parameter, and the callers that must follow.

A parameter declares the byte order its caller passes. When a kernel's weight becomes NZ,
every function in the file that calls the kernel passes that argument, so the argument must
be NZ too: a caller's own ND tensor parameter is annotated along with it (and its callers,
in turn); any other value (a local tensor, a window) cannot be made NZ by an annotation, and
the weight is blocked there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import callee_of, dotted_name
from planner.adapters.pypto.base.splicing import Edit, SourcePosition, SourceText
from planner.adapters.pypto.reading.program import Program
from planner.layout.protocol import Diagnostic

_DIRECTION_WRAPPERS = ("pl.In", "pl.Out", "pl.InOut")
_ND, _NZ = "pl.ND", "pl.NZ"


@dataclass(frozen=True, slots=True)
class ParameterSite:
    """A tensor parameter of one of the program's functions, and the edit that makes it `pl.NZ`."""

    function_index: int
    name: str
    position: SourcePosition
    edit: Edit


@dataclass(frozen=True, slots=True)
class Blocked:
    """A call that passes a value no annotation can make NZ, and where it is."""

    diagnostic: Diagnostic
    position: SourcePosition


def _tensor_slots(annotation: ast.expr) -> list[ast.expr]:
    """The slots of a `pl.Tensor[...]` annotation (inside `pl.In/Out/InOut`); empty for anything else."""
    node = annotation
    while isinstance(node, ast.Subscript) and dotted_name(node.value) in _DIRECTION_WRAPPERS:
        node = node.slice
    if not (isinstance(node, ast.Subscript) and dotted_name(node.value) == "pl.Tensor"):
        return []
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else []


def nz_annotation(source: SourceText, annotation: ast.expr) -> Edit | None:
    """The edit that makes an ND `pl.Tensor[[shape], dtype(, pl.ND)]` annotation `pl.NZ`; None otherwise."""
    slots = _tensor_slots(annotation)
    if len(slots) == 2:
        end = source.end(slots[1])
        return Edit(end, end, f", {_NZ}")
    if len(slots) == 3 and dotted_name(slots[2]) == _ND:
        return Edit(source.start(slots[2]), source.end(slots[2]), _NZ)
    return None


def nd_tensor_parameters(program: Program, function_index: int) -> dict[str, ParameterSite]:
    """The function's ND tensor parameters, by name, in declaration order."""
    node = program.functions[function_index].node
    sites = {}
    for parameter in _parameters(node):
        edit = nz_annotation(program.source, parameter.annotation) if parameter.annotation else None
        if edit is not None:
            position = program.source.position(parameter)
            sites[parameter.arg] = ParameterSite(function_index, parameter.arg, position, edit)
    return sites


CallSites: TypeAlias = Mapping[str, Sequence[tuple[int, ast.Call]]]


def call_sites(program: Program) -> CallSites:
    """Every call in the program's functions by callee as spelled (`self.f`, `f`), each with the index
    of the function making it, in program order then walk order: one walk of the file for all
    the candidates' callers."""
    calls: dict[str, list[tuple[int, ast.Call]]] = {}
    for caller_index, caller in enumerate(program.functions):
        for call in ast.walk(caller.node):
            if isinstance(call, ast.Call):
                calls.setdefault(callee_of(call) or "", []).append((caller_index, call))
    return calls


def forwarding_callers(
    program: Program, site: ParameterSite, calls: CallSites
) -> tuple[list[ParameterSite], Blocked | None]:
    """The callers' parameters that must become NZ with `site` (transitively), or the first blocking call."""
    found: list[ParameterSite] = []
    pending = [site]
    seen = {(site.function_index, site.name)}
    while pending:
        callee = pending.pop(0)
        for caller_index, argument in _arguments_passed(program, calls, callee):
            caller = nd_tensor_parameters(program, caller_index)
            name = argument.id if isinstance(argument, ast.Name) else None
            if name in caller:
                if (caller_index, name) not in seen:
                    seen.add((caller_index, name))
                    found.append(caller[name])
                    pending.append(caller[name])
            elif name is None or not _is_nz_parameter(program, caller_index, name):
                return found, _blocked(program, callee, caller_index, argument)
    return found, None


def _arguments_passed(
    program: Program, calls: CallSites, callee: ParameterSite
) -> Iterator[tuple[int, ast.expr]]:
    """Every call of the callee's function in the program that reaches it, with the argument bound to
    its parameter."""
    function = program.functions[callee.function_index]
    spelled = f"self.{function.node.name}" if function.method else function.node.name
    names = [parameter.arg for parameter in _parameters(function.node)]
    index = names.index(callee.name)
    for caller_index, call in calls.get(spelled, ()):
        reached = function.reached_from(program.functions[caller_index], via_self=function.method)
        if caller_index == callee.function_index or not reached:
            continue
        keyword = next((k.value for k in call.keywords if k.arg == callee.name), None)
        argument = call.args[index] if index < len(call.args) else keyword
        if argument is not None:
            yield caller_index, argument


def _parameters(node: ast.FunctionDef) -> list[ast.arg]:
    return [parameter for parameter in [*node.args.posonlyargs, *node.args.args] if parameter.arg != "self"]


def _is_nz_parameter(program: Program, function_index: int, name: str) -> bool:
    for parameter in _parameters(program.functions[function_index].node):
        if parameter.arg == name and parameter.annotation is not None:
            slots = _tensor_slots(parameter.annotation)
            return len(slots) == 3 and dotted_name(slots[2]) == _NZ
    return False


def _blocked(program: Program, callee: ParameterSite, caller_index: int, argument: ast.expr) -> Blocked:
    callee_name = program.functions[callee.function_index].qualified
    caller_name = program.functions[caller_index].qualified
    message = (
        f"{callee_name}'s parameter {callee.name!r} would be NZ, but {caller_name} passes it "
        f"{program.source.segment(argument)!r}, which is not a tensor parameter of {caller_name} that an "
        "annotation could make NZ as well. Fix: pass a parameter (annotated pl.NZ with it), or produce "
        "the argument in NZ byte order first."
    )
    diagnostic = Diagnostic(code=codes.ND_ARGUMENT_FOR_NZ, message=message, tensor=callee.name)
    return Blocked(diagnostic, program.source.position(argument))
