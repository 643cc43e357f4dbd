"""`planner suggest` / `layout.suggest`: which ND weights may become `pl.NZ`, decided by planning them so.

The candidates are the ND tensor parameters whose Mat loads reach a matmul's B operand
(`weight_feeds`): every such load converts ND to NZ on the fly, on every call. For each
candidate the file is read again with that one parameter annotated `pl.NZ`, by the PyPTO
adapter's public `build_requests`, and its function is planned by `planner.layout.plan`: the
very reading and rules `planner plan` applies, so a verdict is what planning the annotated
file says. Eligible: the plan is ok and every obligation proven; then each Mat load of the
weight becomes NZ->NZ and stops converting its window's bytes. Ineligible: the first refusal
(or unproven warning) is the blocking diagnostic, with its code and counterexample.

`--apply` writes the `pl.NZ` annotations of the eligible weights into the source and nothing
else; an annotated weight is no longer ND, so a second run changes nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from math import prod

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import FunctionRequest, build_requests
from planner.adapters.pypto.diagnostics import diagnostic_position
from planner.adapters.pypto.driver import BYTE_ORDER_MARK
from planner.adapters.pypto.expressions import dotted_name
from planner.adapters.pypto.program import Program, ProgramFunction, parse_program
from planner.adapters.pypto.source import Edit, SourcePosition, SourceText, apply_edits
from planner.layout import plan
from planner.layout.protocol import Diagnostic, LayoutPlanResponse, LoadOp, SliceOp
from planner.service.protocol import AdapterPlanRequest, LayoutSuggestResponse, SuggestedLoad, SuggestedTensor
from planner.service.weight_feeds import b_operand_parameters
from planner.targets.ascend import ASCEND_DTYPES

_DIRECTION_WRAPPERS = ("pl.In", "pl.Out", "pl.InOut")
_ND, _NZ = "pl.ND", "pl.NZ"


@dataclass(frozen=True, slots=True)
class Candidate:
    """An ND tensor parameter feeding a matmul's B operand, and the edit that makes it `pl.NZ`."""

    function_index: int
    function: ProgramFunction
    name: str
    position: SourcePosition
    edit: Edit


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The verdicts, and the text with every eligible weight annotated (the input when none is)."""

    response: LayoutSuggestResponse
    annotated: str


def suggest(request: AdapterPlanRequest) -> LayoutSuggestResponse:
    """`layout.suggest`: a verdict for every candidate weight of a PyPTO file."""
    return suggest_text(request.text, filename=request.filename, options=request.options).response


def suggest_text(
    text: str, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> Suggestion:
    """Dry-run every candidate as `pl.NZ`; raises `AdapterInputError` for a file the adapter cannot read."""
    body = text.removeprefix(BYTE_ORDER_MARK)
    build_requests(body, filename=filename, options=options)  # the file as written must read
    program = parse_program(body, filename)
    candidates = list(_candidates(program))
    verdicts = [_dry_run(body, filename, options, candidate) for candidate in candidates]
    edits = [
        candidate.edit for candidate, verdict in zip(candidates, verdicts, strict=True) if verdict.eligible
    ]
    annotated = text[: len(text) - len(body)] + apply_edits(body, edits)
    return Suggestion(LayoutSuggestResponse(tensors=verdicts), annotated)


def _candidates(program: Program) -> Iterator[Candidate]:
    for index, function in enumerate(program.functions):
        arguments = function.node.args
        edits = {
            parameter.arg: (parameter, edit)
            for parameter in [*arguments.posonlyargs, *arguments.args]
            if parameter.annotation is not None
            and (edit := nz_annotation(program.source, parameter.annotation)) is not None
        }
        fed = b_operand_parameters(function.node, frozenset(edits))
        for name, (parameter, edit) in edits.items():
            if name in fed:
                yield Candidate(index, function, name, program.source.position(parameter), edit)


def nz_annotation(source: SourceText, annotation: ast.expr) -> Edit | None:
    """The edit that makes an ND `pl.Tensor[[shape], dtype(, pl.ND)]` annotation `pl.NZ`; None otherwise."""
    node = annotation
    while isinstance(node, ast.Subscript) and dotted_name(node.value) in _DIRECTION_WRAPPERS:
        node = node.slice
    if not (isinstance(node, ast.Subscript) and dotted_name(node.value) == "pl.Tensor"):
        return None
    slots = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
    if len(slots) == 2:
        end = source.end(slots[1])
        return Edit(end, end, f", {_NZ}")
    if len(slots) == 3 and dotted_name(slots[2]) == _ND:
        return Edit(source.start(slots[2]), source.end(slots[2]), _NZ)
    return None


def _dry_run(
    body: str, filename: str, options: Mapping[str, str] | None, candidate: Candidate
) -> SuggestedTensor:
    """Plan the candidate's function with only the candidate annotated `pl.NZ`."""
    where = {"name": candidate.name, "function": candidate.function.node.name}
    declared = {"line": candidate.position.line, "column": candidate.position.column}
    try:
        requests = build_requests(apply_edits(body, [candidate.edit]), filename=filename, options=options)
    except AdapterInputError as exc:  # the annotated file no longer reads: that is the blocker
        unreadable = Diagnostic(code=exc.code, message=exc.message, tensor=candidate.name)
        located = {"line": exc.line, "column": exc.column} if exc.line and exc.column else declared
        return SuggestedTensor(**where, **located, eligible=False, blocking=unreadable)
    function = requests[candidate.function_index]
    response = plan(function.request)
    blocking = _blocking(response)
    if blocking is not None:
        position = diagnostic_position(function, blocking)
        located = {"line": position.line, "column": position.column}
        return SuggestedTensor(**where, **located, eligible=False, blocking=blocking)
    loads = _nz_loads(function, candidate.name)
    sizes = [load.bytes_not_converted for load in loads]
    total = None if any(size is None for size in sizes) else sum(size for size in sizes if size is not None)
    proven = response.ok and all(record.status == "proven" for record in response.obligations)
    return SuggestedTensor(
        **where,
        **declared,
        eligible=proven,
        loads=loads if proven else [],
        bytes_not_converted_total=total if proven else 0,
    )


def _blocking(response: LayoutPlanResponse) -> Diagnostic | None:
    """The first error, else the first warning: an unproven window bound also keeps the weight ND."""
    for severity in ("error", "warning"):
        found = next((d for d in response.diagnostics if d.severity == severity), None)
        if found is not None:
            return found
    return None


def _nz_loads(function: FunctionRequest, weight: str) -> list[SuggestedLoad]:
    """The Mat loads of the weight, directly or through leading-axis slices, and the bytes each reads."""
    request = function.request
    derived = {weight}
    itemsize = next(ASCEND_DTYPES[t.dtype].bits // 8 for t in request.tensors if t.name == weight)
    loads = []
    for op in request.ops:
        if isinstance(op, SliceOp) and op.source in derived and op.result is not None:
            derived.add(op.result)
        elif isinstance(op, LoadOp) and op.source in derived and op.target_memory == "Mat":
            extents = [extent for extent in op.shapes if isinstance(extent, int)]
            size = prod(extents) * itemsize if len(extents) == len(op.shapes) else None
            position = function.op_positions[op.id]
            loads.append(
                SuggestedLoad(op=op.id, line=position.line, column=position.column, bytes_not_converted=size)
            )
    return loads


def render(filename: str, response: LayoutSuggestResponse) -> str:
    """One line per weight: where it is declared (or blocked), its name, and the verdict."""
    lines = []
    for tensor in response.tensors:
        where = f"{filename}:{tensor.line}:{tensor.column}: {tensor.name} in {tensor.function}"
        if tensor.eligible:
            count = len(tensor.loads)
            sizes = ", ".join(
                f"{load.line}:{load.column} {_bytes(load.bytes_not_converted)}" for load in tensor.loads
            )
            lines.append(
                f"{where}: eligible: {count} load{' becomes' if count == 1 else 's become'} NZ->NZ; "
                f"bytes no longer converted per execution: {sizes} "
                f"(total {_bytes(tensor.bytes_not_converted_total)})"
            )
        elif tensor.blocking is not None:
            lines.append(f"{where}: ineligible: [{tensor.blocking.code}] {tensor.blocking.message}")
        else:
            lines.append(f"{where}: ineligible: an obligation of its plan is not proven")
    return "".join(line + "\n" for line in lines)


def _bytes(count: int | None) -> str:
    return str(count) if count is not None else "dynamic"
