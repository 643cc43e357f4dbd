"""Names a loop body rebinds: read inside the loop, they are loop-carried (nz-layout.md 7.3).

A scalar reassigned anywhere in a loop body (before or after a use) is carried: every read
inside the loop sees the carried value, never the value from before the loop. The reader
binds each such name afresh at the loop's entry, before it walks the body.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


def rebound_names(statements: list[ast.stmt]) -> list[str]:
    """Every name the statements bind (nested blocks included), in order of first binding."""
    found: dict[str, None] = {}
    for statement in _nested(statements):
        for target in _binding_targets(statement):
            for name in ast.walk(target):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    found.setdefault(name.id)
    return list(found)


def _nested(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements and, depth first, every statement of their blocks (expressions are not
    entered: the reader refuses an assignment expression)."""
    for statement in statements:
        yield statement
        for block in ("body", "orelse", "finalbody"):
            yield from _nested(getattr(statement, block, []))


def _binding_targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For):
        return [statement.target]
    return []
