"""Which tensor parameters reach a matmul's B operand through Mat loads: `planner suggest`'s candidates.

A may-reach analysis over one function body, in statement order. Each name holds the set of
parameters its current value was read from: a parameter reads itself; a slice, a window
subscript (`w[a:b, c:d]`), an extract, a move or a yield passes on what its source read; a
`tile.load` passes it on only when it targets Mat, the cube-operand path NZ serves. A matmul's
B operand (argument 1, or 2 for `matmul_acc`, or `rhs=`) marks the parameters its value read.
Both arms of an `if` and every loop body (twice, so a value bound at the bottom reaches a use
at the top) are followed, so a weight is found on any path; whether it may really be NZ is
decided by planning it, not here.
"""

from __future__ import annotations

import ast
from typing import Final

from planner.adapters.pypto.expressions import callee_of, dotted_name

_B_OPERAND: Final = {
    **{name: 1 for name in ("pl.matmul", "pl.tile.matmul", "pl.tensor.matmul")},
    **{name: 2 for name in ("pl.matmul_acc", "pl.tile.matmul_acc", "pl.tensor.matmul_acc")},
}
_LOADS: Final = frozenset({"pl.tile.load", "pl.load"})
_PASS_THROUGH: Final = frozenset(
    {"pl.slice", "pl.tensor.slice", "pl.tile.extract", "pl.extract", "pl.tile.move", "pl.move"}
)
_YIELD: Final = "pl.yield_"
_MAT: Final = "Mat"

_Env = dict[str, frozenset[str]]


def b_operand_parameters(function: ast.FunctionDef, parameters: frozenset[str]) -> frozenset[str]:
    """The `parameters` some Mat load or window of which may reach a matmul's B operand."""
    marked: set[str] = set()
    _block(function.body, {name: frozenset({name}) for name in parameters}, marked)
    return frozenset(marked)


def _block(statements: list[ast.stmt], env: _Env, marked: set[str]) -> _Env:
    for statement in statements:
        env = _statement(statement, env, marked)
    return env


def _statement(statement: ast.stmt, env: _Env, marked: set[str]) -> _Env:
    if isinstance(statement, ast.For):
        _mark(statement.iter, env, marked)
        entry = _bind_loop_target(statement, env)
        after_once = _block(statement.body, entry, marked)
        after_twice = _block(statement.body, _merge(entry, after_once), marked)
        return _merge(env, after_twice)
    if isinstance(statement, ast.If):
        _mark(statement.test, env, marked)
        return _merge(_block(statement.body, dict(env), marked), _block(statement.orelse, dict(env), marked))
    if isinstance(statement, ast.With):
        for item in statement.items:
            _mark(item.context_expr, env, marked)
        return _block(statement.body, env, marked)
    if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
        _mark(statement.value, env, marked)
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        updated = dict(env)
        for target in targets:
            _bind(target, statement.value, env, updated)
        return updated
    for child in ast.iter_child_nodes(statement):
        if isinstance(child, ast.expr):
            _mark(child, env, marked)
    return env


def _bind_loop_target(statement: ast.For, env: _Env) -> _Env:
    """The loop variable reads nothing; carried names start from their `init_values`."""
    entry = dict(env)
    target = statement.target
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            entry.pop(node.id, None)
    inits = next((k.value for k in getattr(statement.iter, "keywords", []) if k.arg == "init_values"), None)
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(inits, ast.Tuple | ast.List):
        carried = target.elts[1]
        if isinstance(carried, ast.Tuple | ast.List):
            for name, init in zip(carried.elts, inits.elts, strict=False):
                if isinstance(name, ast.Name):
                    entry[name.id] = _sources(init, env)
    return entry


def _bind(target: ast.expr, value: ast.expr, env: _Env, updated: _Env) -> None:
    if isinstance(target, ast.Name):
        updated[target.id] = _sources(value, env)
        return
    values = value.args if callee_of(value) == _YIELD and isinstance(value, ast.Call) else []
    if isinstance(target, ast.Tuple | ast.List) and len(values) == len(target.elts):
        for element, element_value in zip(target.elts, values, strict=True):
            _bind(element, element_value, env, updated)
        return
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            updated.pop(node.id, None)


def _mark(node: ast.expr, env: _Env, marked: set[str]) -> None:
    """Every matmul in the expression marks what its B operand read."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        index = _B_OPERAND.get(callee_of(call) or "")
        if index is None:
            continue
        operands = [call.args[index]] if index < len(call.args) else []
        operands += [keyword.value for keyword in call.keywords if keyword.arg == "rhs"]
        for operand in operands:
            marked.update(_sources(operand, env))


def _sources(node: ast.expr, env: _Env) -> frozenset[str]:
    if isinstance(node, ast.Name):
        return env.get(node.id, frozenset())
    if isinstance(node, ast.Subscript):
        return _sources(node.value, env)
    if not isinstance(node, ast.Call):
        return frozenset()
    callee = callee_of(node) or ""
    if callee == _YIELD:
        return frozenset().union(*(_sources(argument, env) for argument in node.args))
    if callee in _PASS_THROUGH or (callee in _LOADS and _targets_mat(node)):
        return _sources(node.args[0], env) if node.args else frozenset()
    return frozenset()


def _targets_mat(call: ast.Call) -> bool:
    memory = next((k.value for k in call.keywords if k.arg == "target_memory"), None)
    name = dotted_name(memory) if memory is not None else None
    return name is not None and name.rsplit(".", 1)[-1] == _MAT


def _merge(left: _Env, right: _Env) -> _Env:
    """What a name may hold after either of two paths (a name unbound on one path keeps the other's)."""
    return {
        name: left.get(name, frozenset()) | right.get(name, frozenset())
        for name in left.keys() | right.keys()
    }
