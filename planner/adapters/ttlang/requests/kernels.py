"""Every `func.func` of parsed TT-Lang MLIR as a `kernelcfg.resolve` request, and its answer.

Both faces of the adapter share this: `planner plan` (text-preserving, `planning`) and
`planner-opt` (canonical printing, `configure`). Deciding stays with the resolver; a function
whose attributes cannot form a request is answered with the resolver's own refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from xdsl.dialects.func import FuncOp

from planner.adapters.ttlang.base.codes import REQUEST_REJECTED
from planner.adapters.ttlang.reading.diagnostics import Diagnostic, Located, diagnostic
from planner.adapters.ttlang.reading.source import ParsedChunk
from planner.adapters.ttlang.requests.collect import CollectedKernel, collect_kernel
from planner.adapters.ttlang.requests.pass_options import (
    enclosing_module,
    function_policy,
    target_arch,
    target_system,
)
from planner.adapters.ttlang.requests.target_choice import answer_under_every_target, with_given_target
from planner.errors import RequestError
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.protocol import (
    Conflict,
    ConflictNote,
    KernelcfgResolveRequest,
    KernelcfgResolveResponse,
)

Resolver = Callable[[KernelcfgResolveRequest], KernelcfgResolveResponse]


@dataclass(frozen=True)
class FunctionKernel:
    """One `func.func`: where it is, what was collected, and its request (or why there is none).

    `every_target`: its module's attributes are unknown and no target was given, so it is answered
    under every target the module could name (`target_choice`)."""

    parsed: ParsedChunk
    function: FuncOp
    kernel: CollectedKernel
    request: KernelcfgResolveRequest | None
    refusal: KcfgError | None
    every_target: bool = False


@dataclass(frozen=True)
class AnsweredKernel:
    kernel: FunctionKernel
    response: KernelcfgResolveResponse


def function_kernel(
    parsed: ParsedChunk, function: FuncOp, options: Mapping[str, bool | str], target: str | None = None
) -> FunctionKernel:
    """Collect one function and build its request (malformed IR: `AdapterInputError`); `target`,
    the one given on the command line, if any."""
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
    if target is not None:
        request = with_given_target(request, target, parsed, module)
    every_target = target is None and not parsed.module_known
    return FunctionKernel(parsed, function, kernel, request, None, every_target)


def chunk_kernels(
    parsed: ParsedChunk, options: Mapping[str, bool | str], target: str | None = None
) -> list[FunctionKernel]:
    """Every function of a chunk, nested ones included, in file order."""
    return [
        function_kernel(parsed, op, options, target) for op in parsed.module.walk() if isinstance(op, FuncOp)
    ]


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


def answer(kernel: FunctionKernel, resolver: Resolver) -> AnsweredKernel:
    """The resolver's answer for one function (a request it rejects: `AdapterInputError`)."""
    if kernel.refusal is not None:
        return AnsweredKernel(kernel, _refusal_response(kernel.refusal))
    assert kernel.request is not None
    try:
        if kernel.every_target:
            return AnsweredKernel(kernel, answer_under_every_target(kernel.request, resolver))
        return AnsweredKernel(kernel, resolver(kernel.request))
    except RequestError as error:
        message = f"function @{kernel.request.function}: {error.message}"
        raise kernel.parsed.error_at(kernel.function, REQUEST_REJECTED, message) from None


def _located(kernel: FunctionKernel, where: str, op_id: str | None) -> Located:
    if where == "module":
        return Located(kernel.parsed, enclosing_module(kernel.function))
    op = kernel.kernel.op_by_id.get(op_id) if where == "op" and op_id is not None else None
    return Located(kernel.parsed, op if op is not None else kernel.function)


def _diagnostics_of(answered: AnsweredKernel) -> list[Diagnostic]:
    kernel, response = answered.kernel, answered.response
    found = [
        diagnostic(_located(kernel, "op", warning.op), "warning", warning.message)
        for warning in response.warnings
    ]
    conflict = response.conflict
    if conflict is not None:
        found.append(diagnostic(_located(kernel, conflict.where, conflict.op), "error", conflict.message))
        if conflict.note is not None:
            found.append(diagnostic(_located(kernel, "op", conflict.note.op), "note", conflict.note.message))
    return found


def diagnostics_of(answers: Iterable[AnsweredKernel]) -> list[Diagnostic]:
    """Every answer's diagnostics in order; a module-level refusal, repeated per function, once."""
    return list(dict.fromkeys(found for answered in answers for found in _diagnostics_of(answered)))
