"""`ttl-set-compute-kernel-config` as an xDSL `ModulePass`: the plan written into the IR.

This is the canonical face of the adapter (`planner-opt`): the resolved plan becomes op and
function attributes (docs/design/kernel-config.md section 7) and the module is printed as any opt tool
prints it. Every function is resolved before anything is written; one refusal leaves the
module unchanged. Diagnostics are located where the text put each op when the module was
read by this adapter's parser (`OptSession`), and at the start otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, fields

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.dialects.ttl_attrs import TileExecutionStrategyAttr
from planner.adapters.ttlang.reading.diagnostics import Diagnostic
from planner.adapters.ttlang.reading.source import Chunk, ParsedChunk
from planner.adapters.ttlang.requests.collect import STRATEGY_ATTR
from planner.adapters.ttlang.requests.kernels import AnsweredKernel, answer, chunk_kernels, diagnostics_of
from planner.adapters.ttlang.requests.pass_options import (
    DST_SYNC_ATTR,
    FP32_DEST_ATTR,
    FPU_BINARY_ATTR,
    UNPACK_ATTR,
    option_policy,
)
from planner.kernelcfg import resolve


@dataclass
class OptSession:
    """The chunk an opt driver read (for locations), the target its command line gave (if any),
    and the diagnostics the pass emitted on it."""

    parsed: ParsedChunk
    target: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


current_session: ContextVar[OptSession | None] = ContextVar("current_session", default=None)


class KernelConfigRefused(DiagnosticException):
    """A function of the module was refused; the module is unchanged."""


def _write_plan(answered: AnsweredKernel) -> None:
    """Section 7: a strategy on each choice op; the configuration on the function."""
    plan = answered.response.plan
    assert plan is not None
    kernel = answered.kernel
    for op_id, strategy in plan.strategies.items():
        op = kernel.kernel.op_by_id[op_id]
        op.attributes[STRATEGY_ATTR] = TileExecutionStrategyAttr(StringAttr(strategy))
    attributes = kernel.function.attributes
    attributes[FP32_DEST_ATTR] = IntegerAttr.from_bool(plan.dst_width == 32)
    attributes[DST_SYNC_ATTR] = IntegerAttr.from_bool(plan.dst_sync == "full")
    attributes[UNPACK_ATTR] = DenseArrayBase.from_list(i32, sorted(plan.unpack_to_dest_fp32))
    attributes.pop(FPU_BINARY_ATTR, None)


def input_error_diagnostic(error: AdapterInputError) -> Diagnostic:
    """An adapter input error as an error diagnostic at its position (the chunk's start if it has none)."""
    return Diagnostic("error", error.line or 1, error.column or 1, error.message, error.source)


def configure_module(
    parsed: ParsedChunk, options: Mapping[str, str], target: str | None = None
) -> tuple[bool, list[Diagnostic]]:
    """Resolve every function of the module (under `target`, when given) and, when all succeed,
    write the plans into it."""
    try:
        option_fields = option_policy(options)
        answers = [answer(kernel, resolve) for kernel in chunk_kernels(parsed, option_fields, target)]
    except AdapterInputError as error:
        return False, [input_error_diagnostic(error)]
    found = diagnostics_of(answers)
    if not all(answered.response.ok for answered in answers):
        return False, found
    for answered in answers:
        _write_plan(answered)
    return True, found


PassOption = str | int | bool | None


def _spelled(value: str | int | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class SetComputeKernelConfig(ModulePass):
    """Upstream's pass and options; an option left out takes its docs/design/kernel-config.md 5 default."""

    name = "ttl-set-compute-kernel-config"

    fp32_dest_acc_en: PassOption = None
    dst_full_sync_en: PassOption = None
    reduce_full_fp32: PassOption = None
    matmul_full_fp32: PassOption = None
    enable_fpu_binary_ops: PassOption = None
    math_fidelity: PassOption = None
    math_approx_mode: PassOption = None
    precision: PassOption = None

    def options(self) -> dict[str, str]:
        """The options given, spelled as upstream's pass reads them (`fp32-dest-acc-en=enabled`)."""
        given = {option.name: getattr(self, option.name) for option in fields(self)}
        return {name.replace("_", "-"): _spelled(value) for name, value in given.items() if value is not None}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        session = current_session.get()
        parsed = session.parsed if session is not None and session.parsed.module is op else None
        target = session.target if session is not None else None
        ok, found = configure_module(parsed or ParsedChunk(Chunk("", 0, 1), op), self.options(), target)
        if session is not None:
            session.diagnostics.extend(found)
        if not ok:
            raise KernelConfigRefused("\n".join(item.render("<module>") for item in found))
