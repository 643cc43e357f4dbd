"""Names a loop body rebinds: read inside the loop, they are loop-carried (docs/design/nz-layout.md 7.3).

A scalar reassigned anywhere in a loop body (before or after a use) is carried: every read
inside the loop sees the carried value, never the value from before the loop. The reader
binds each such name afresh at the loop's entry, before it walks the body. Of those, an
`x = x + c` (c a constant) at the top of the body, and nowhere else, is an induction:
`inductions` finds them, for the printed-IR and the `@pl.jit` source readers alike.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from weakref import WeakKeyDictionary


def rebound_names(statements: list[ast.stmt]) -> list[str]:
    """Every name the statements bind (nested blocks included), in order of first binding."""
    return list(dict.fromkeys(_stores(statements)))


def _stores(statements: list[ast.stmt]) -> Iterator[str]:
    """Each binding of a name by the statements (nested blocks included), in order."""
    for statement in statements:
        yield from _bound_by(statement)


# Every loop asks for its body's bindings, once per walk of the function and again for each
# loop around it: found once per statement node instead (a parsed tree is never edited).
_BOUND: WeakKeyDictionary[ast.stmt, tuple[str, ...]] = WeakKeyDictionary()


def _bound_by(statement: ast.stmt) -> tuple[str, ...]:
    """Each binding of a name by the statement, then by the statements of its blocks, depth first."""
    found = _BOUND.get(statement)
    if found is None:
        names = [
            name.id
            for target in _binding_targets(statement)
            for name in ast.walk(target)
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)
        ]
        names += _named_targets(statement)
        for block in _blocks(statement):
            for inner in block:
                names += _bound_by(inner)
        found = _BOUND[statement] = tuple(names)
    return found


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _named_targets(statement: ast.stmt) -> Iterator[str]:
    """`(n := v)` in the statement's own expressions (not its blocks'): the source reader binds
    `n` as `n = v` would."""
    pending: list[object] = [value for field, value in ast.iter_fields(statement) if field not in _BLOCKS]
    while pending:
        item = pending.pop(0)
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, ast.AST) and not isinstance(item, ast.stmt):
            if isinstance(item, ast.NamedExpr) and isinstance(item.target, ast.Name):
                yield item.target.id
            pending.extend(value for _, value in ast.iter_fields(item))


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement's blocks in order: body, else, finally, then each handler's and case's body."""
    blocks: list[list[ast.stmt]] = [getattr(statement, name, []) for name in ("body", "orelse", "finalbody")]
    clauses = [*getattr(statement, "handlers", []), *getattr(statement, "cases", [])]
    return blocks + [clause.body for clause in clauses]


def _binding_targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For):
        return [statement.target]
    if isinstance(statement, ast.With):
        return [item.optional_vars for item in statement.items if item.optional_vars is not None]
    if isinstance(statement, ast.FunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom):
        return [ast.Name(name, ast.Store()) for name in _defined_names(statement)]
    return []


def _defined_names(statement: ast.FunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(statement, ast.FunctionDef | ast.ClassDef):
        return [statement.name]
    return [(alias.asname or alias.name).partition(".")[0] for alias in statement.names]


@dataclass(frozen=True, slots=True)
class Induction:
    """`name = name + step` (or `name += step`, `name -= step`) as statement `index` of the loop body."""

    step: int
    index: int


def inductions(
    statements: list[ast.stmt], constant: Callable[[ast.expr], int | None]
) -> dict[str, Induction]:
    """The loop-carried names that are inductions (docs/design/nz-layout.md 7.3): rebound exactly once in the
    body, by a top-level `x = x + c` with `c` a constant (`constant` reads one). Every other
    rebound name (an update inside an `if` or an inner loop, a non-constant step) is not."""
    counts = Counter(_stores(statements))
    found: dict[str, Induction] = {}
    for index, statement in enumerate(statements):
        update = _constant_update(statement, constant)
        if update is not None and counts.get(update[0]) == 1:
            found[update[0]] = Induction(update[1], index)
    return found


def _constant_update(
    statement: ast.stmt, constant: Callable[[ast.expr], int | None]
) -> tuple[str, int] | None:
    """`(name, c)` for `name = name + c`, `name = c + name`, `name = name - c`, `name += c`, `name -= c`."""
    operands: tuple[ast.expr, ast.expr]
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        name, operator, operands = statement.target.id, statement.op, (statement.target, statement.value)
    elif isinstance(statement, ast.Assign | ast.AnnAssign) and isinstance(statement.value, ast.BinOp):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return None
        name, operator = targets[0].id, statement.value.op
        operands = (statement.value.left, statement.value.right)
    else:
        return None
    reads_self = [isinstance(side, ast.Name) and side.id == name for side in operands]
    if isinstance(operator, ast.Add) and reads_self[1] and not reads_self[0]:
        operands = (operands[1], operands[0])
    elif not reads_self[0] or not isinstance(operator, ast.Add | ast.Sub):
        return None
    step = constant(operands[1])
    if step is None:
        return None
    return name, -step if isinstance(operator, ast.Sub) else step
