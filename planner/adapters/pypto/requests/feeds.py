"""Which tensor windows reach a matmul operand (docs/design/nz-layout.md section 18, the lowering rule).

Inside a kernel, the lowering turns a window of an NZ tensor (a subscript `w[a:b, c:d]` or a
`pl.slice`) into a tile load; the load targets Mat when its result feeds a matmul operand.
This is a may-reach analysis over the function body, in statement order: a name holds the
windows its current binding came from; a matmul operand marks the windows it reads. Both
arms of an `if` and every path around a loop are followed (`reach`). A window that reaches
no matmul is not a Mat load and is planned as written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Final
from weakref import WeakKeyDictionary

from planner.adapters.pypto.base.expressions import callee_of
from planner.adapters.pypto.requests.reach import Env, StructuredWalk

# matmul spellings -> the positional indices of their two operands (the accumulator is not one)
_MATMUL_OPERANDS: Final = {
    **{name: (0, 1) for name in ("pl.matmul", "pl.tile.matmul", "pl.tensor.matmul")},
    **{name: (1, 2) for name in ("pl.matmul_acc", "pl.tile.matmul_acc", "pl.tensor.matmul_acc")},
}
_OPERAND_KEYWORDS: Final = ("lhs", "rhs")
WINDOW_CALLS: Final = frozenset({"pl.slice", "pl.tensor.slice"})


def is_window(node: ast.expr) -> bool:
    """A subscript or a `pl.slice` call: the expressions that select a tensor window."""
    return isinstance(node, ast.Subscript) or callee_of(node) in WINDOW_CALLS


def matmul_fed_windows(body: list[ast.stmt]) -> frozenset[int]:
    """The `id()` of every window node whose value may reach a matmul operand."""
    statements = tuple(map(id, body))
    kept = _FED.get(body[0]) if body else None
    if kept is not None and kept[0] == statements:
        return kept[1]
    analysis = _Analysis()
    analysis.block(body, {})
    found = analysis.flow.reached()
    if body:
        _FED[body[0]] = (statements, found)
    return found


# A body read again (`planner suggest` reads a kernel once more per candidate weight, with the
# body's very nodes) has the windows it had: kept by its first statement, for exactly its
# statements, while that node lives (the window nodes are inside them, so their ids stay theirs).
_FED: WeakKeyDictionary[ast.stmt, tuple[tuple[int, ...], frozenset[int]]] = WeakKeyDictionary()


class _Analysis(StructuredWalk[int]):
    """One walk over a function; the matmul operands of each expression are found once."""

    def __init__(self) -> None:
        super().__init__()
        self._windows: dict[int, int] = {}

    def mark(self, node: ast.expr, env: Env) -> None:
        """Every matmul in the expression uses the windows its operands read."""
        for operand in _matmul_operands(node):
            self.flow.use(self.sources(operand, env))

    def sources(self, node: ast.expr, env: Env) -> list[int]:
        if is_window(node):
            if id(node) not in self._windows:
                self._windows[id(node)] = self.flow.seed(id(node))
            return [self._windows[id(node)]]
        if isinstance(node, ast.Name) and node.id in env:
            return [env[node.id]]
        return []


def _matmul_operands(node: ast.expr) -> Iterator[ast.expr]:
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            indices = _MATMUL_OPERANDS.get(callee_of(call) or "")
            if indices is not None:
                yield from (call.args[index] for index in indices if index < len(call.args))
                yield from (keyword.value for keyword in call.keywords if keyword.arg in _OPERAND_KEYWORDS)
