"""Arguments of a `pl.*` call, bound to the parameters of the IR op it spells (nz-layout.md 17).

Positional arguments take the op's parameters in IR order, keywords by name (the short DSL
spelling's keywords are renamed to the IR's); list arguments are read as shape lists. An op's
operands are listed as the planner names them: an NZ tensor's name, `_` for anything else.
"""

from __future__ import annotations

import ast
from typing import Final

from planner.adapters.pypto.base.expressions import callee_of, int_literal
from planner.adapters.pypto.requests.model import TensorValue, Value
from planner.adapters.pypto.requests.request_builder import FunctionState
from planner.proofs.expr import Expr

# Spellings of the ops the planner knows (section 17: short DSL and namespaced op spellings).
OP_SPELLINGS: Final = {
    "pl.tile.load": "tile.load",
    "pl.load": "tile.load",
    "pl.tensor.slice": "tensor.slice",
    "pl.slice": "tensor.slice",
    "pl.tensor.reshape": "tensor.reshape",
    "pl.reshape": "tensor.reshape",
    "pl.tensor.view": "tensor.view",
    "pl.view": "tensor.view",
    "pl.tensor.reinterpret_view": "tensor.reinterpret_view",
    "pl.reinterpret_view": "tensor.reinterpret_view",
    "pl.tile.store": "tile.store",
    "pl.store": "tile.store",
    "pl.tile.matmul": "matmul",
    "pl.matmul": "matmul",
    "pl.tile.matmul_acc": "matmul_acc",
    "pl.matmul_acc": "matmul_acc",
}
_DSL_KEYWORDS: Final = {
    "input": "tensor",
    "shape": "shapes",
    "offset": "offsets",
}  # `pl.slice(input, shape, offset)`
NOT_NZ: Final = "_"  # an op argument that is not an NZ tensor
_SIGNATURES: Final = {
    "tile.load": ("tensor", "offsets", "shapes", "valid_shape"),
    "tensor.slice": ("tensor", "shapes", "offsets", "valid_shape", "drop_dims"),
    "tensor.reshape": ("tensor", "shape"),
    "tile.store": ("tile", "offsets", "output", "partition"),
}


class ArgumentReader(FunctionState):
    """Binds call arguments to op parameters; the op reader decides what each op means."""

    def _bind_arguments(self, call: ast.Call, op: str) -> tuple[dict[str, ast.expr], dict[str, ast.expr]]:
        """Arguments by IR parameter name, plus the keywords the signature does not name."""
        signature = _SIGNATURES[op]
        if len(call.args) > len(signature):
            raise self._unsupported(call, f"more than {len(signature)} positional arguments to {op}")
        bound = dict(zip(signature, call.args, strict=False))
        extra: dict[str, ast.expr] = {}
        for keyword in call.keywords:
            assert keyword.arg is not None
            name = _DSL_KEYWORDS.get(keyword.arg, keyword.arg)
            (bound if name in signature else extra)[name if name in signature else keyword.arg] = (
                keyword.value
            )
        return bound, extra

    def _tensor_argument(self, node: ast.expr | None) -> TensorValue | None:
        value = self._value(node) if node is not None else None
        return value if isinstance(value, TensorValue) else None

    def _list(self, arguments: dict[str, ast.expr], name: str, call: ast.Call) -> tuple[Expr, ...]:
        if name not in arguments:
            raise self._unsupported(call, f"a call without its {name!r} argument")
        return self._types.shape_list(arguments[name])

    def _json_optional(self, arguments: dict[str, ast.expr], name: str) -> list[int | str] | None:
        entries = self._optional_list(arguments, name)
        return self._json_list(entries) if entries else None

    def _optional_list(self, arguments: dict[str, ast.expr], name: str) -> tuple[Expr, ...]:
        """A list argument that may be absent or None (an empty tuple then)."""
        node = arguments.get(name)
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return ()
        return self._types.shape_list(node)

    def _drop_dims(self, node: ast.expr | None) -> tuple[int, ...]:
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return ()
        if isinstance(node, ast.List | ast.Tuple):
            values = [int_literal(element) for element in node.elts]
            if all(value is not None for value in values):
                return tuple(value for value in values if value is not None)
        raise self._unsupported(node, "drop_dims that is not a literal list of ints")

    def _operands(self, call: ast.Call, skip: tuple[str | int, ...] = ()) -> list[str]:
        """The call's arguments in IR order as NZ tensor names, `_` for anything else, so the planner
        names the right argument index; empty when no NZ tensor is among them."""
        signature = _SIGNATURES.get(OP_SPELLINGS.get(callee_of(call) or "", ""), ())
        operands: list[str] = []
        for index, argument in enumerate(call.args):
            name = signature[index] if index < len(signature) else None
            operands.extend([NOT_NZ] if index in skip or name in skip else self._operand_names(argument))
        for keyword in call.keywords:
            operands.extend([NOT_NZ] if keyword.arg in skip else self._operand_names(keyword.value))
        while operands and operands[-1] == NOT_NZ:
            operands.pop()
        return operands

    def _operand_names(self, node: ast.expr) -> list[str]:
        if isinstance(node, ast.List | ast.Tuple):
            return [name for element in node.elts for name in self._operand_names(element)]
        return [nz_name(self._value(node))]


def nz_name(value: Value) -> str:
    """An operand as the planner names it: the NZ tensor's name, `_` for anything else."""
    return value.name if isinstance(value, TensorValue) and value.is_nz else NOT_NZ
