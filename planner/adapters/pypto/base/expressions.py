"""Python `ast` expressions -> the protocol's closed expression grammar (docs/design/protocol.md).

The printed IR writes index arithmetic in Python syntax. What fits the grammar (int
literals, names, `+ - * // %`, unary minus, `min`, `max`, `pl.const(v, dtype)`) is
translated node for node; every other subterm is handed to `NameScope.opaque`, which stands
it in by a fresh, unconstrained name, so a proof never relies on what it cannot read
(docs/design/nz-layout.md section 7.3: unknown calls are fresh unconstrained values).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Protocol

from planner.proofs.expr import BinaryOperator, BinOp, Const, Expr, MinMax, MinMaxCall, Name, Neg, free_names

_OPERATORS: dict[type[ast.operator], BinaryOperator] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}

# Scalar calls of the grammar; the PyPTO printer spells min and max `pl.min` / `pl.max` (section 18).
_MIN_MAX: dict[str, MinMax] = {"min": "min", "max": "max", "pl.min": "min", "pl.max": "max"}
SCALAR_CALLS = frozenset({"pl.const", "pl.min", "pl.max"})

INDEX_MIN = -(2**63)
INDEX_MAX = 2**63 - 1


class NameScope(Protocol):
    """What the translation asks of the function being read."""

    def resolve(self, name: str) -> Expr:
        """The request-side expression for a source name at this point of the program."""
        ...

    def opaque(self, node: ast.expr) -> Expr:
        """A fresh unconstrained stand-in for a subterm outside the grammar."""
        ...


def dotted_name(node: ast.expr) -> str | None:
    """`pl.tile.load` -> "pl.tile.load"; None for anything but a dotted chain of names."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def callee_of(node: ast.expr | None) -> str | None:
    """The dotted name a call calls (`pl.tile.load`), or None for anything but such a call."""
    return dotted_name(node.func) if isinstance(node, ast.Call) else None


def tuple_names(node: ast.expr) -> list[str] | None:
    """The names of a tuple or list target such as `a, b`, or None if it is not only names."""
    if not isinstance(node, ast.Tuple | ast.List):
        return None
    names = [element.id for element in node.elts if isinstance(element, ast.Name)]
    return names if len(names) == len(node.elts) else None


def int_literal(node: ast.expr) -> int | None:
    """The value of an int literal, signed or not (`bool` is not an int here)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_literal(node.operand)
        return None if inner is None else -inner
    return None


def translate(node: ast.expr, scope: NameScope) -> Expr:
    """Translate one expression; subterms outside the grammar become opaque names."""
    literal = int_literal(node)
    if literal is not None:
        return Const(literal)
    if isinstance(node, ast.Name):
        return scope.resolve(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        operand = translate(node.operand, scope)
        return operand if isinstance(node.op, ast.UAdd) else Neg(operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return BinOp(_OPERATORS[type(node.op)], translate(node.left, scope), translate(node.right, scope))
    if isinstance(node, ast.Call) and not node.keywords:
        return _translate_call(node, scope)
    return scope.opaque(node)


def _translate_call(node: ast.Call, scope: NameScope) -> Expr:
    """`min`/`max` (`pl.min`/`pl.max`) of two or more operands, nested pairwise; `pl.const(int, dtype)`."""
    callee = dotted_name(node.func)
    fn = _MIN_MAX.get(callee or "")
    if fn is not None and len(node.args) >= 2 and not _has_starred(node):
        result = translate(node.args[0], scope)
        for argument in node.args[1:]:
            result = MinMaxCall(fn, result, translate(argument, scope))
        return result
    if callee == "pl.const" and len(node.args) == 2:
        value = int_literal(node.args[0])
        if value is not None:
            return Const(value)
    return scope.opaque(node)


def _has_starred(node: ast.Call) -> bool:
    return any(isinstance(argument, ast.Starred) for argument in node.args)


class _ConstantScope:
    """Reads only the given constants: any other name or subterm makes evaluation fail."""

    def __init__(self, constants: Mapping[str, int]) -> None:
        self._constants = constants

    def resolve(self, name: str) -> Expr:
        return Name(name if name in self._constants else f"?{name}")

    def opaque(self, node: ast.expr) -> Expr:
        """An attribute chain or subscript the resolver gave a value (section 19) is known too."""
        spelled = ast.unparse(node) if isinstance(node, ast.Attribute | ast.Subscript) else None
        return Name(spelled if spelled is not None and spelled in self._constants else "?")


def constant_value(node: ast.expr, constants: Mapping[str, int]) -> int | None:
    """The value of an expression over int literals and the given constants, else None."""
    return evaluate(translate(node, _ConstantScope(constants)), constants)


def evaluate(expr: Expr, values: Mapping[str, int]) -> int | None:
    """The value of an expression over known constants, or None (unknown name, division by zero,
    or an intermediate outside the signed 64-bit index range, where folding would hide a wrap)."""
    if not all(name in values for name in free_names(expr)):
        return None
    return _evaluate(expr, values)


def _evaluate(expr: Expr, values: Mapping[str, int]) -> int | None:
    if isinstance(expr, Const):
        return _in_index_range(expr.value)
    if isinstance(expr, Name):
        return _in_index_range(values[expr.id])
    if isinstance(expr, Neg):
        operand = _evaluate(expr.operand, values)
        return None if operand is None else _in_index_range(-operand)
    left = _evaluate(expr.left, values)
    right = _evaluate(expr.right, values)
    if left is None or right is None:
        return None
    if isinstance(expr, MinMaxCall):
        return min(left, right) if expr.fn == "min" else max(left, right)
    return _apply_operator(expr.op, left, right)


def _apply_operator(op: BinaryOperator, left: int, right: int) -> int | None:
    if op in ("//", "%") and right == 0:
        return None
    results = {
        "+": lambda: left + right,
        "-": lambda: left - right,
        "*": lambda: left * right,
        "//": lambda: left // right,
        "%": lambda: left % right,
    }
    return _in_index_range(results[op]())


def _in_index_range(value: int) -> int | None:
    return value if INDEX_MIN <= value <= INDEX_MAX else None


def rename(expr: Expr, spelling: Mapping[str, str]) -> Expr:
    """Replace request names by their source spelling (names not in the map are kept)."""
    if isinstance(expr, Name):
        return Name(spelling.get(expr.id, expr.id))
    if isinstance(expr, Const):
        return expr
    if isinstance(expr, Neg):
        return Neg(rename(expr.operand, spelling))
    if isinstance(expr, MinMaxCall):
        return MinMaxCall(expr.fn, rename(expr.left, spelling), rename(expr.right, spelling))
    return BinOp(expr.op, rename(expr.left, spelling), rename(expr.right, spelling))
