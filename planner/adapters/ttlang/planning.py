"""Planning a TT-Lang MLIR file: read, collect, resolve every function, then apply (kernel-config.md 7).

Every function of every `// -----` chunk is resolved before any plan is applied; one refusal
anywhere returns the input byte for byte with the diagnostics. Deciding (the resolver) and
rewriting (`apply`) stay separate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.func import FuncOp

from planner.adapters.outcome import AdapterInputError, AdapterOutcome
from planner.adapters.ttlang.apply import Edit, apply_edits, function_edit, strategy_edit
from planner.adapters.ttlang.codes import REQUEST_REJECTED
from planner.adapters.ttlang.collect import CollectedKernel, collect_kernel
from planner.adapters.ttlang.diagnostics import Located, render
from planner.adapters.ttlang.policy import (
    enclosing_module,
    function_policy,
    option_policy,
    target_arch,
    target_system,
)
from planner.adapters.ttlang.source import ParsedChunk, parse_chunk, split_chunks
from planner.contract import RequestError
from planner.kernelcfg import resolve
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.plan import KernelcfgResolveResponse
from planner.kernelcfg.protocol import Conflict, ConflictNote, KernelcfgResolveRequest

Resolver = Callable[[KernelcfgResolveRequest], KernelcfgResolveResponse]


@dataclass(frozen=True)
class FunctionKernel:
    """One `func.func`: where it is, what was collected, and its request (or why there is none)."""

    parsed: ParsedChunk
    function: FuncOp
    kernel: CollectedKernel
    request: KernelcfgResolveRequest | None
    refusal: KcfgError | None


def _function_kernel(
    parsed: ParsedChunk, function: FuncOp, options: Mapping[str, bool | str]
) -> FunctionKernel:
    kernel = collect_kernel(function, parsed)
    try:
        policy = function_policy(function, options)
    except KcfgError as refusal:
        return FunctionKernel(parsed, function, kernel, None, refusal)
    module = enclosing_module(function)
    request = KernelcfgResolveRequest(
        arch=target_arch(module),
        system_desc=target_system(module, parsed),
        function=function.sym_name.data,
        policy=policy,
        dfbs=list(kernel.dfbs),
        ops=list(kernel.ops),
    )
    return FunctionKernel(parsed, function, kernel, request, None)


def read_kernels(
    text: str, filename: str, options: Mapping[str, str] | None
) -> tuple[list[ParsedChunk], list[str], list[FunctionKernel]]:
    """Parse every chunk and collect every function (malformed input: `AdapterInputError`)."""
    option_fields = option_policy(options)
    chunks, separators = split_chunks(text)
    parsed_chunks = [parse_chunk(chunk, filename) for chunk in chunks]
    kernels = [
        _function_kernel(parsed, op, option_fields)
        for parsed in parsed_chunks
        for op in parsed.module.walk()
        if isinstance(op, FuncOp)
    ]
    return parsed_chunks, separators, kernels


def build_requests(
    text: str, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> list[KernelcfgResolveRequest]:
    """The `kernelcfg.resolve` request of every function, in file order.

    A function attribute the request cannot carry (a non-bool `fp32_dest_acc_en`, a malformed
    `ttl.unpack_to_dest_fp32`) raises the resolver's own `KcfgError`.
    """
    requests: list[KernelcfgResolveRequest] = []
    for kernel in read_kernels(text, filename, options)[2]:
        if kernel.refusal is not None:
            raise kernel.refusal
        assert kernel.request is not None
        requests.append(kernel.request)
    return requests


def _refusal_response(refusal: KcfgError) -> KernelcfgResolveResponse:
    note = refusal.note
    conflict = Conflict(
        code=refusal.code,
        message=refusal.message,
        where=refusal.where,
        op=refusal.op,
        operand=refusal.operand,
        note=ConflictNote(op=note.op, operand=note.operand, message=note.message)
        if note is not None
        else None,
    )
    return KernelcfgResolveResponse(ok=False, conflict=conflict)


def _response(kernel: FunctionKernel, resolver: Resolver) -> KernelcfgResolveResponse:
    if kernel.refusal is not None:
        return _refusal_response(kernel.refusal)
    assert kernel.request is not None
    try:
        return resolver(kernel.request)
    except RequestError as error:
        line, column = kernel.parsed.line_col(kernel.parsed.sites[kernel.function].start)
        raise AdapterInputError(
            REQUEST_REJECTED, f"function @{kernel.request.function}: {error.message}", line, column
        ) from None


def _located(kernel: FunctionKernel, where: str, op_id: str | None) -> Located:
    if where == "module":
        return Located(kernel.parsed, enclosing_module(kernel.function))
    op = kernel.kernel.op_by_id.get(op_id) if where == "op" and op_id is not None else None
    return Located(kernel.parsed, op if op is not None else kernel.function)


def _diagnostics(kernel: FunctionKernel, response: KernelcfgResolveResponse, filename: str) -> list[str]:
    lines = [
        render(filename, _located(kernel, "op", warning.op), "warning", warning.message)
        for warning in response.warnings
    ]
    conflict = response.conflict
    if conflict is not None:
        lines.append(
            render(filename, _located(kernel, conflict.where, conflict.op), "error", conflict.message)
        )
        if conflict.note is not None:
            lines.append(
                render(filename, _located(kernel, "op", conflict.note.op), "note", conflict.note.message)
            )
    return lines


def _edits(kernel: FunctionKernel, response: KernelcfgResolveResponse) -> list[Edit]:
    """Section 7: a strategy on each choice op, the configuration on the function."""
    plan = response.plan
    assert plan is not None
    sites = kernel.parsed.sites
    edits = []
    for op_id, strategy in sorted(plan.strategies.items()):
        site = sites[kernel.kernel.op_by_id[op_id]].attr_dict
        assert site is not None
        edits.append(strategy_edit(site, strategy))
    function_site = sites[kernel.function].attr_dict
    assert function_site is not None
    edits.append(
        function_edit(
            function_site,
            dst_width=plan.dst_width,
            full_sync=plan.dst_sync == "full",
            unpack=plan.unpack_to_dest_fp32,
        )
    )
    return edits


def _unique(lines: list[str]) -> list[str]:
    """Module-level refusals repeat for each function of the module; report each once."""
    return list(dict.fromkeys(lines))


def _report_entry(
    kernel: FunctionKernel, response: KernelcfgResolveResponse, filename: str
) -> dict[str, Any]:
    """One function's record: where it is, the request sent (`{}` when its attributes could not be
    put into one) and the answer."""
    line, column = kernel.parsed.line_col(kernel.parsed.sites[kernel.function].start)
    return {
        "function": kernel.function.sym_name.data,
        "location": f"{filename}:{line}:{column}",
        "request": kernel.request.model_dump(mode="json") if kernel.request is not None else {},
        "response": response.model_dump(mode="json"),
    }


def plan_text_with(
    text: str, resolver: Resolver, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> AdapterOutcome:
    """`plan_text` with the resolver passed in."""
    parsed_chunks, separators, kernels = read_kernels(text, filename, options)
    answered = [(kernel, _response(kernel, resolver)) for kernel in kernels]
    diagnostics = _unique(
        [line for kernel, response in answered for line in _diagnostics(kernel, response, filename)]
    )
    report = {"adapter": "ttlang", "functions": [_report_entry(k, r, filename) for k, r in answered]}
    if not all(response.ok for _, response in answered):
        return AdapterOutcome(ok=False, text=text, diagnostics=diagnostics, report=report)
    edits_by_chunk: dict[int, list[Edit]] = {id(parsed): [] for parsed in parsed_chunks}
    for kernel, response in answered:
        edits_by_chunk[id(kernel.parsed)].extend(_edits(kernel, response))
    planned = [apply_edits(parsed.chunk.text, edits_by_chunk[id(parsed)]) for parsed in parsed_chunks]
    joined = planned[0] + "".join(sep + chunk for sep, chunk in zip(separators, planned[1:], strict=True))
    return AdapterOutcome(ok=True, text=joined, diagnostics=diagnostics, report=report)


def plan_text(
    text: str, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> AdapterOutcome:
    """Plan every compute kernel of a TT-Lang MLIR file (malformed input: `AdapterInputError`)."""
    return plan_text_with(text, resolve, filename=filename, options=options)
