"""Kernels a file defines in a way the reader does not follow (docs/design/nz-layout.md section 18).

A program written as text handed to a parser (`pl.parse("...")`, `pl.loads_program(...)`) or
built by calling a decorator as a function (`pl.function(body)`, `kernel = pl.jit(helper())`)
is a kernel the file has but the reader cannot see into: it is reported as skipped, with the
reason, never planned and never an error of the file. So is an extern kernel
(`@pl.jit.extern(source=...)`): its body is the C++ source it names, not Python.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Final

from planner.adapters.pypto.base.expressions import dotted_name
from planner.adapters.pypto.base.splicing import SourceText
from planner.adapters.pypto.reading.kernels import (
    FUNCTION_DECORATORS,
    JIT_DECORATORS,
    decorator_name,
    jit_aliases,
)

PARSERS: Final = frozenset({"pl.parse", "pl.loads", "pl.parse_program", "pl.loads_program"})
_BUILDERS: Final = FUNCTION_DECORATORS | JIT_DECORATORS | {"pl.program"}
EXTERN: Final = "pl.jit.extern"


@dataclass(frozen=True)
class SkippedKernel:
    """A kernel definition the reader does not follow, where it is and why."""

    name: str
    line: int
    column: int  # 1-based, as diagnostics count
    reason: str


def find_skipped(module: ast.Module, source: SourceText) -> list[SkippedKernel]:
    """Parser calls, decorator calls that are not decorators and extern kernels, in source order."""
    aliases = jit_aliases(module)
    decorators = {
        id(inner)
        for node in ast.walk(module)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for decorator in node.decorator_list
        for inner in ast.walk(decorator)
    }
    found: list[SkippedKernel] = []
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and any(
            decorator_name(decorator, aliases) == EXTERN for decorator in node.decorator_list
        ):
            position = source.position(node)
            reason = f"an extern kernel: its body is the source given to @{EXTERN}(...), not Python to read"
            found.append(SkippedKernel(node.name, position.line, position.column, reason))
            continue
        if not isinstance(node, ast.Call) or id(node) in decorators:
            continue
        callee = dotted_name(node.func)
        if callee in PARSERS:
            reason = f"a program written as text handed to {callee}(...), which the reader does not parse"
        elif callee in _BUILDERS and node.args:
            reason = f"a kernel built by calling {callee}(...), a helper the reader does not follow"
        else:
            continue
        position = source.position(node)
        found.append(SkippedKernel(_name(node), position.line, position.column, reason))
    found.sort(key=lambda kernel: (kernel.line, kernel.column))
    return found


def _name(call: ast.Call) -> str:
    """What the call is called in reports: its first argument's name, else its callee."""
    first = call.args[0] if call.args else None
    spelled = dotted_name(first) if first is not None else None
    return spelled or f"{dotted_name(call.func)}(...)"
