"""Kernels reported one by one (docs/design/nz-layout.md section 18): a file plans every kernel
it can read; each one it cannot read is a refusal of that kernel, located at its problem.

The report's `kernels` lists every kernel of the file in source order with its state
(`planned`, `refused`, `unreadable`, `skipped`), so a file with one unreadable kernel still
answers for all the others.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from planner.adapters.outcome import AdapterInputError
from planner.adapters.protocol import KernelStatus
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import dotted_name
from planner.adapters.pypto.base.refusal import KernelRefusal
from planner.adapters.pypto.reading.program import Program, ProgramFunction
from planner.adapters.pypto.reading.skipped import SkippedKernel
from planner.adapters.pypto.requests.model import FunctionModel
from planner.layout.protocol import CallOp, LayoutPlanResponse


def kernel_statuses(
    program: Program, responses: Mapping[int, LayoutPlanResponse], failures: Mapping[int, AdapterInputError]
) -> list[KernelStatus]:
    """Every kernel's state in source order; `responses` and `failures` are keyed by the id of the
    kernel's `ProgramFunction`."""
    found: list[tuple[int, int, KernelStatus]] = []
    for function in program.functions:
        position = program.source.position(function.node)
        name = function.qualified
        if id(function) in failures:
            status = _failed(program, function, failures[id(function)])
        else:
            response = responses[id(function)]
            first = response.diagnostics[0] if not response.ok and response.diagnostics else None
            status = KernelStatus(
                name=name,
                status="planned" if response.ok else "refused",
                line=position.line,
                column=position.column,
                code=None if first is None else first.code,
                reason=None if first is None else first.message,
            )
        found.append((position.line, position.column, status))
    for kernel in program.skipped:
        status = KernelStatus(
            name=kernel.name,
            status="skipped",
            line=kernel.line,
            column=kernel.column,
            code=codes.SKIPPED_KERNEL,
            reason=kernel.reason,
        )
        found.append((kernel.line, kernel.column, status))
    return [status for _, _, status in sorted(found, key=lambda item: (item[0], item[1]))]


def unread_kernels(program: Program, failures: Mapping[int, AdapterInputError]) -> list[KernelStatus]:
    """The state of each kernel that was refused or not read, in source order (`failures` keyed as
    in `kernel_statuses`)."""
    return [
        _failed(program, function, failures[id(function)])
        for function in program.functions
        if id(function) in failures
    ]


def _failed(program: Program, function: ProgramFunction, error: AdapterInputError) -> KernelStatus:
    """A kernel refused (it needs an NZ decision it cannot make) or not read, located at its problem."""
    position = program.source.position(function.node)
    return KernelStatus(
        name=function.qualified,
        status="refused" if isinstance(error, KernelRefusal) else "unreadable",
        line=error.line or position.line,
        column=error.column or position.column,
        code=error.code,
        reason=error.message,
    )


def calls_across(
    program: Program, models: list[FunctionModel], failures: Mapping[int, AdapterInputError]
) -> bool:
    """A planned function calls one that was not read, or is called by one (`self.f(..)`): the
    tensors they pass each other would be blocked on one side only, so a printed program is
    then left unchanged as a whole (section 15)."""
    unread = [function for function in program.functions if id(function) in failures]
    names = {function.node.name for function in unread}
    planned = {model.function.node.name for model in models}
    called = {op.callee for model in models for op in model.planned.request.ops if isinstance(op, CallOp)}
    calling = {
        dotted.removeprefix("self.")
        for function in unread
        for node in ast.walk(function.node)
        if isinstance(node, ast.Call) and (dotted := dotted_name(node.func) or "").startswith("self.")
    }
    return bool(called & names) or bool(calling & planned)


def failure_lines(filename: str, kernel: str, error: AdapterInputError) -> list[str]:
    """The error of a kernel refused or not read, and a note that only that kernel is."""
    where = ":".join(str(part) for part in (filename, error.line, error.column) if part is not None)
    why = "its NZ layout cannot be decided" if isinstance(error, KernelRefusal) else "it cannot be read"
    return [
        f"{where}: error: [{error.code}] {error.message}",
        f"{where}: note: kernel {kernel!r} is refused: {why}; the file's other kernels are planned apart",
    ]


def skipped_line(filename: str, kernel: SkippedKernel) -> str:
    """A warning for a kernel the reader does not follow."""
    where = f"{filename}:{kernel.line}:{kernel.column}"
    return f"{where}: warning: [{codes.SKIPPED_KERNEL}] {kernel.reason}; not planned"
