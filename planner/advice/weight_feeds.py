"""Which tensor parameters reach a matmul's B operand through Mat loads: `planner suggest`'s candidates.

A may-reach analysis over one function body, in statement order. Each name holds the set of
parameters its current value was read from: a parameter reads itself; a slice, a window
subscript (`w[a:b, c:d]`), an extract, a move or a yield passes on what its source read; a
`tile.load` passes it on only when it targets Mat, the cube-operand path NZ serves. A matmul's
B operand (argument 1, or 2 for `matmul_acc`, or `rhs=`) marks the parameters its value read.
Both arms of an `if` and every path around a loop are followed (`reach`), so a weight is
found on any path; whether it may really be NZ is decided by planning it, not here.
"""

from __future__ import annotations

import ast
from typing import Final

from planner.adapters.pypto.base.expressions import callee_of, dotted_name
from planner.adapters.pypto.requests.reach import Env, StructuredWalk, unbind

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


def b_operand_parameters(function: ast.FunctionDef, parameters: frozenset[str]) -> frozenset[str]:
    """The `parameters` some Mat load or window of which may reach a matmul's B operand."""
    analysis = _Analysis()
    analysis.block(function.body, {name: analysis.flow.seed(name) for name in sorted(parameters)})
    return analysis.flow.reached()


class _Analysis(StructuredWalk[str]):
    def bind_loop_target(self, statement: ast.For, env: Env) -> Env:
        """The loop variable reads nothing; carried names start from their `init_values`."""
        entry = unbind(env, statement.target)
        target = statement.target
        keywords = getattr(statement.iter, "keywords", [])
        inits = next((k.value for k in keywords if k.arg == "init_values"), None)
        pair = isinstance(target, ast.Tuple) and len(target.elts) == 2
        if pair and isinstance(target, ast.Tuple) and isinstance(inits, ast.Tuple | ast.List):
            carried = target.elts[1]
            if isinstance(carried, ast.Tuple | ast.List):
                for name, init in zip(carried.elts, inits.elts, strict=False):
                    if isinstance(name, ast.Name):
                        entry[name.id] = self.flow.node(self.sources(init, env))
        return entry

    def bind(self, target: ast.expr, value: ast.expr, env: Env, updated: Env) -> None:
        if isinstance(target, ast.Name):
            updated[target.id] = self.flow.node(self.sources(value, env))
            return
        values = value.args if callee_of(value) == _YIELD and isinstance(value, ast.Call) else []
        if isinstance(target, ast.Tuple | ast.List) and len(values) == len(target.elts):
            for element, element_value in zip(target.elts, values, strict=True):
                self.bind(element, element_value, env, updated)
            return
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                updated.pop(node.id, None)

    def mark(self, node: ast.expr, env: Env) -> None:
        """Every matmul in the expression uses what its B operand read."""
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            index = _B_OPERAND.get(callee_of(call) or "")
            if index is None:
                continue
            operands = [call.args[index]] if index < len(call.args) else []
            operands += [keyword.value for keyword in call.keywords if keyword.arg == "rhs"]
            for operand in operands:
                self.flow.use(self.sources(operand, env))

    def sources(self, node: ast.expr, env: Env) -> list[int]:
        if isinstance(node, ast.Name):
            return [env[node.id]] if node.id in env else []
        if isinstance(node, ast.Subscript):
            return self.sources(node.value, env)
        if not isinstance(node, ast.Call):
            return []
        callee = callee_of(node) or ""
        if callee == _YIELD:
            return [source for argument in node.args for source in self.sources(argument, env)]
        if callee in _PASS_THROUGH or (callee in _LOADS and _targets_mat(node)):
            return self.sources(node.args[0], env) if node.args else []
        return []


def _targets_mat(call: ast.Call) -> bool:
    memory = next((k.value for k in call.keywords if k.arg == "target_memory"), None)
    name = dotted_name(memory) if memory is not None else None
    return name is not None and name.rsplit(".", 1)[-1] == _MAT
