"""Names a loop body rebinds: read inside the loop, they are loop-carried (nz-layout.md 7.3).

A scalar reassigned anywhere in a loop body (before or after a use) is carried: every read
inside the loop sees the carried value, never the value from before the loop. The reader
binds each such name afresh at the loop's entry, before it walks the body.
"""

from __future__ import annotations

import ast


def rebound_names(statements: list[ast.stmt]) -> list[str]:
    """Every name the statements bind (nested blocks included), in order of first binding."""
    found: dict[str, None] = {}
    for statement in statements:
        for node in ast.walk(statement):
            for target in _binding_targets(node):
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        found.setdefault(name.id)
    return list(found)


def _binding_targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For):
        return [node.target]
    if isinstance(node, ast.NamedExpr):
        return [node.target]
    return []
