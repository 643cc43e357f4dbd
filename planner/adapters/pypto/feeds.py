"""Which tensor windows reach a matmul operand (docs/design/nz-layout.md section 18, the lowering rule).

Inside a kernel, the lowering turns a window of an NZ tensor (a subscript `w[a:b, c:d]` or a
`pl.slice`) into a tile load; the load targets Mat when its result feeds a matmul operand.
This is a may-reach analysis over the function body, in statement order: a name holds the
windows its current binding came from; a matmul operand marks the windows it reads. Both
arms of an `if` and a loop body (twice, so a binding at the bottom reaches a use at the top)
are followed. A window that reaches no matmul is not a Mat load and is planned as written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Final

from planner.adapters.pypto.expressions import callee_of

# matmul spellings -> the positional indices of their two operands (the accumulator is not one)
_MATMUL_OPERANDS: Final = {
    **{name: (0, 1) for name in ("pl.matmul", "pl.tile.matmul", "pl.tensor.matmul")},
    **{name: (1, 2) for name in ("pl.matmul_acc", "pl.tile.matmul_acc", "pl.tensor.matmul_acc")},
}
_OPERAND_KEYWORDS: Final = ("lhs", "rhs")
WINDOW_CALLS: Final = frozenset({"pl.slice", "pl.tensor.slice"})

_Env = dict[str, frozenset[int]]


def is_window(node: ast.expr) -> bool:
    """A subscript or a `pl.slice` call: the expressions that select a tensor window."""
    return isinstance(node, ast.Subscript) or callee_of(node) in WINDOW_CALLS


def matmul_fed_windows(body: list[ast.stmt]) -> frozenset[int]:
    """The `id()` of every window node whose value may reach a matmul operand."""
    analysis = _Analysis()
    analysis.block(body, {})
    return frozenset(analysis.marked)


class _Analysis:
    """One pass over a function; the matmul operands of each expression are found once."""

    def __init__(self) -> None:
        self.marked: set[int] = set()
        self._operands: dict[int, list[ast.expr]] = {}

    def block(self, statements: list[ast.stmt], env: _Env) -> _Env:
        for statement in statements:
            env = self.statement(statement, env)
        return env

    def statement(self, statement: ast.stmt, env: _Env) -> _Env:
        if isinstance(statement, ast.For):
            self.scan(statement.iter, env)
            after_once = self.block(statement.body, _unbind(env, statement.target))
            after_twice = self.block(statement.body, _merge(env, after_once))
            return _merge(env, after_twice)
        if isinstance(statement, ast.If):
            self.scan(statement.test, env)
            return _merge(self.block(statement.body, dict(env)), self.block(statement.orelse, dict(env)))
        if isinstance(statement, ast.With):
            for item in statement.items:
                self.scan(item.context_expr, env)
            return self.block(statement.body, env)
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            self.scan(statement.value, env)
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            updated = dict(env)
            for target in targets:
                if isinstance(target, ast.Name):
                    updated[target.id] = _sources(statement.value, env)
                else:
                    self.scan(target, env)
                    updated = _unbind(updated, target)
            return updated
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.expr):
                self.scan(child, env)
        return env

    def scan(self, node: ast.expr, env: _Env) -> None:
        """Mark the windows every matmul in the expression reads as an operand."""
        operands = self._operands.get(id(node))
        if operands is None:
            operands = self._operands[id(node)] = list(_matmul_operands(node))
        for operand in operands:
            self.marked.update(_sources(operand, env))


def _matmul_operands(node: ast.expr) -> Iterator[ast.expr]:
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            indices = _MATMUL_OPERANDS.get(callee_of(call) or "")
            if indices is not None:
                yield from (call.args[index] for index in indices if index < len(call.args))
                yield from (keyword.value for keyword in call.keywords if keyword.arg in _OPERAND_KEYWORDS)


def _sources(node: ast.expr, env: _Env) -> frozenset[int]:
    if is_window(node):
        return frozenset({id(node)})
    if isinstance(node, ast.Name):
        return env.get(node.id, frozenset())
    return frozenset()


def _unbind(env: _Env, target: ast.expr) -> _Env:
    names = {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}
    return {name: sources for name, sources in env.items() if name not in names}


def _merge(left: _Env, right: _Env) -> _Env:
    return {
        name: left.get(name, frozenset()) | right.get(name, frozenset())
        for name in left.keys() | right.keys()
    }
