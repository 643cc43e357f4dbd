"""`planner suggest` / `layout.suggest`: which ND weights may become `pl.NZ`, decided by planning them so.

The candidates are the ND tensor parameters whose Mat loads reach a matmul's B operand
(`weight_feeds`): every such load converts ND to NZ on the fly, on every call. The file is
read and analysed once; each candidate is then answered from that reading: the functions
its `pl.NZ` annotation (and its callers') falls inside are read again from the annotated
text (`edited_program`), by the reader `build_requests` uses, and planned by
`planner.layout.plan`: the very reading and rules `planner plan` applies to the annotated
file, so a verdict is what planning it says, at the cost of those functions alone.
Eligible: the plan is ok and every offset obligation proven; then each Mat load of the
weight becomes NZ->NZ and stops converting its window's bytes. Ineligible: the first
refusal is the blocking diagnostic, with its code and counterexample. Callers that pass the
weight on are annotated with it (`nz_annotations`). The file is read kernel by kernel, as
`planner plan` reads it: a kernel refused or not read gets no verdicts and is listed instead.

`--apply` writes the `pl.NZ` annotations of the eligible weights into the source and nothing
else; an annotated weight is no longer ND, so a second run changes nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from math import prod

from planner.adapters.api import given_modules
from planner.adapters.outcome import AdapterInputError
from planner.adapters.protocol import AdapterPlanRequest, KernelStatus, UnresolvedExtent
from planner.adapters.pypto import FunctionRequest
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.splicing import Edit, apply_edits
from planner.adapters.pypto.constants.kernel_constants import ResolveContext
from planner.adapters.pypto.driver import BYTE_ORDER_MARK, read_functions, read_kernels
from planner.adapters.pypto.reading.program import Program, ProgramFunction
from planner.adapters.pypto.writing.diagnostics import diagnostic_position
from planner.adapters.pypto.writing.kernel_report import unread_kernels
from planner.adapters.pypto.writing.unresolved_report import parameter_unresolved
from planner.advice.edited_program import KeptFunctions, edited_program
from planner.advice.nz_annotations import (
    Blocked,
    ParameterSite,
    call_sites,
    forwarding_callers,
    nd_tensor_parameters,
)
from planner.advice.protocol import LayoutSuggestResponse, SuggestedLoad, SuggestedTensor
from planner.advice.weight_feeds import b_operand_parameters
from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import Diagnostic, LayoutPlanResponse, LoadOp, SliceOp
from planner.proofs.shared import shared_verdicts
from planner.targets.ascend import ASCEND_DTYPES


@dataclass(frozen=True, slots=True)
class Candidate:
    """An ND tensor parameter feeding a matmul's B operand, with the callers' parameters it forwards from."""

    site: ParameterSite
    function: str
    callers: tuple[tuple[ParameterSite, str], ...]  # each caller's parameter and its function's name
    blocked: Blocked | None  # a call passing a value no annotation can make NZ
    extents: tuple[str, ...] = ()  # where each imported extent of its shape came from
    assumptions: tuple[str, ...] = ()  # the builder calls its function's plan holds for
    unresolved: tuple[UnresolvedExtent, ...] = ()  # why each symbolic extent of its shape is

    @property
    def edits(self) -> list[Edit]:
        return [self.site.edit, *(caller.edit for caller, _ in self.callers)]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The verdicts, and the text with every eligible weight annotated (the input when none is)."""

    response: LayoutSuggestResponse
    annotated: str


def suggest(request: AdapterPlanRequest) -> LayoutSuggestResponse:
    """`layout.suggest`: a verdict for every candidate weight of a PyPTO file, its imports given as text."""
    found = suggest_text(
        request.text, filename=request.filename, options=request.options, context=given_modules(request)
    )
    return found.response


def suggest_text(
    text: str,
    *,
    filename: str = "<input>",
    options: Mapping[str, str] | None = None,
    context: ResolveContext | None = None,
) -> Suggestion:
    """Dry-run every candidate of the kernels that read as `pl.NZ`; each kernel refused or not read
    is listed instead, as `plan` lists it (section 18). Raises `AdapterInputError` for input that
    is not PyPTO, or when no kernel of it can be read.
    `context`: where the file's imported modules come from (section 19)."""
    body = text.removeprefix(BYTE_ORDER_MARK)
    program, _, failures = read_kernels(body, filename=filename, options=options, context=context)
    unread = frozenset(index for index, function in enumerate(program.functions) if id(function) in failures)
    candidates = list(_candidates(program, unread))
    kept: KeptFunctions = {}  # callers annotated along with several weights are read again once
    with shared_verdicts():  # a kernel planned once per weight poses its loops' obligations each time
        verdicts = [_dry_run(program, options, candidate, kept) for candidate in candidates]
    edits = {
        edit
        for candidate, verdict in zip(candidates, verdicts, strict=True)
        if verdict.eligible
        for edit in candidate.edits
    }
    annotated = text[: len(text) - len(body)] + apply_edits(body, edits)
    response = LayoutSuggestResponse(tensors=verdicts, unread_kernels=unread_kernels(program, failures))
    return Suggestion(response, annotated)


def _candidates(program: Program, unread: frozenset[int]) -> Iterator[Candidate]:
    """The candidates of every function but the `unread` ones (by index): a kernel that does not
    read has no plan to dry-run, so it is reported, not judged."""
    calls = call_sites(program)
    for index, function in enumerate(program.functions):
        if index in unread:
            continue
        parameters = nd_tensor_parameters(program, index)
        fed = b_operand_parameters(function.node, frozenset(parameters))
        for name, site in parameters.items():
            if name in fed:
                callers, blocked = forwarding_callers(program, site, calls)
                named = tuple(
                    (caller, program.functions[caller.function_index].qualified) for caller in callers
                )
                assumed = function.constants.assumptions if function.constants is not None else ()
                extents = _imported_extents(function, name)
                unresolved = tuple(parameter_unresolved(function, name))
                yield Candidate(site, function.qualified, named, blocked, extents, assumed, unresolved)


def _imported_extents(function: ProgramFunction, parameter: str) -> tuple[str, ...]:
    """`D = config.FLASH.hidden_size = 4096` for each extent of the parameter's annotation read
    through an import (section 19)."""
    resolved = function.constants
    node = function.node.args
    annotation = next(
        (a.annotation for a in [*node.posonlyargs, *node.args, *node.kwonlyargs] if a.arg == parameter), None
    )
    if resolved is None or annotation is None:
        return ()
    spelled = [
        ast.unparse(inner) for inner in ast.walk(annotation) if isinstance(inner, ast.Name | ast.Attribute)
    ]
    return tuple(
        f"{key} = {resolved.origins[key]} = {resolved.values[key]}"
        for key in dict.fromkeys(spelled)
        if key in resolved.origins and key in resolved.values
    )


def _dry_run(
    program: Program, options: Mapping[str, str] | None, candidate: Candidate, kept: KeptFunctions
) -> SuggestedTensor:
    """Plan the functions the candidate and the callers forwarding to it are in, with just those NZ."""
    site = candidate.site
    where = {
        "name": site.name,
        "function": candidate.function,
        "also_annotated": [f"{caller.name} in {function}" for caller, function in candidate.callers],
        "extents": list(candidate.extents),
        "assumptions": list(candidate.assumptions),
        "unresolved": list(candidate.unresolved),
    }
    declared = {"line": site.position.line, "column": site.position.column}
    if candidate.blocked is not None:
        located = {"line": candidate.blocked.position.line, "column": candidate.blocked.position.column}
        return SuggestedTensor(**where, **located, eligible=False, blocking=candidate.blocked.diagnostic)
    sites = [site, *(caller for caller, _ in candidate.callers)]
    touched = sorted({s.function_index for s in sites})  # file order: the first unreadable one blocks
    try:
        annotated = edited_program(program, candidate.edits, touched, kept)
        models = dict(zip(touched, read_functions(annotated, touched, options), strict=True))
    except AdapterInputError as exc:  # the annotated file no longer reads: that is the blocker
        unreadable = Diagnostic(code=exc.code, message=exc.message, tensor=site.name)
        located = {"line": exc.line, "column": exc.column} if exc.line and exc.column else declared
        return SuggestedTensor(**where, **located, eligible=False, blocking=unreadable)
    planned = [(models[s.function_index].planned, s.name) for s in sites]
    try:
        responses = [plan(function.request) for function, _ in planned]
    except RequestError as exc:  # the planner rejects the request the annotation makes: the blocker
        message = f"with {site.name} NZ, the planner rejected the request: {exc.message}"
        rejected = Diagnostic(code=codes.INVALID_REQUEST, message=message, tensor=site.name)
        return SuggestedTensor(**where, **declared, eligible=False, blocking=rejected)
    for (function, _), response in zip(planned, responses, strict=True):
        blocking = _blocking(response)
        if blocking is not None:
            position = diagnostic_position(function, blocking)
            located = {"line": position.line, "column": position.column}
            return SuggestedTensor(**where, **located, eligible=False, blocking=blocking)
    loads = [load for function, name in planned for load in _nz_loads(function, name)]
    sizes = [load.bytes_not_converted for load in loads]
    total = None if any(size is None for size in sizes) else sum(size for size in sizes if size is not None)
    # offsets must be proven; a window bound left unproven is a warning (`_blocking`)
    proven = all(
        r.ok and all(o.status == "proven" for o in r.obligations if o.goal != "at_most") for r in responses
    )
    return SuggestedTensor(
        **where,
        **declared,
        eligible=proven,
        loads=loads if proven else [],
        bytes_not_converted_total=total if proven else 0,
        warnings=[d for r in responses for d in r.diagnostics if d.severity == "warning"],
    )


def _blocking(response: LayoutPlanResponse) -> Diagnostic | None:
    """The first error. A warning (a window bound proven only for some launches) leaves the plan ok,
    as `planner plan` would write it, so it does not keep the weight ND."""
    return next((d for d in response.diagnostics if d.severity == "error"), None)


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
    """One line per weight: where it is declared (or blocked), its name, and the verdict; and an
    error line for each kernel not read, before the first verdict that follows it in the file."""
    lines = []
    unread = list(response.unread_kernels)
    for tensor in response.tensors:
        while unread and (unread[0].line or 0) <= tensor.line:
            lines.append(_unread_line(filename, unread.pop(0)))
        where = f"{filename}:{tensor.line}:{tensor.column}: {tensor.name} in {tensor.function}"
        context = [f"planned for {', '.join(tensor.assumptions)}"] if tensor.assumptions else []
        if tensor.extents:
            context.append(", ".join(tensor.extents))
        if context:
            where += f" ({'; '.join(context)})"
        if tensor.eligible:
            count = len(tensor.loads)
            sizes = ", ".join(
                f"{load.line}:{load.column} {_bytes(load.bytes_not_converted)}" for load in tensor.loads
            )
            lines.append(
                f"{where}: eligible: {count} load{' becomes' if count == 1 else 's become'} NZ->NZ; "
                f"bytes no longer converted per execution: {sizes} "
                f"(total {_bytes(tensor.bytes_not_converted_total)})"
                + "".join(f"; with {caller}" for caller in tensor.also_annotated)
                + "".join(f"; warning: [{warning.code}]" for warning in tensor.warnings)
            )
        elif tensor.blocking is not None:
            why = "".join(f"; {extent.name} is not static: {extent.message}" for extent in tensor.unresolved)
            lines.append(f"{where}: ineligible: [{tensor.blocking.code}] {tensor.blocking.message}{why}")
        else:
            lines.append(f"{where}: ineligible: an obligation of its plan is not proven")
    lines.extend(_unread_line(filename, kernel) for kernel in unread)
    return "".join(line + "\n" for line in lines)


def _unread_line(filename: str, kernel: KernelStatus) -> str:
    where = ":".join(str(part) for part in (filename, kernel.line, kernel.column) if part is not None)
    why = "its NZ layout cannot be decided" if kernel.status == "refused" else "it cannot be read"
    return (
        f"{where}: error: [{kernel.code}] {kernel.reason}; "
        f"kernel {kernel.name!r} is {kernel.status}: {why}, so its weights get no verdict"
    )


def _bytes(count: int | None) -> str:
    return str(count) if count is not None else "dynamic"
