"""Offset expressions: parsed from Python expression syntax with `ast`, never evaluated.

The grammar is closed: int literals, names, `+ - * // %`, unary minus, `min(a, b)` and
`max(a, b)`. `//` and `%` are floor division and floor modulo (the IR's FloorDiv and
FloorMod). Nodes are small frozen values, so expressions hash, compare and print
deterministically.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeAlias

from planner.errors import excerpt

BinaryOperator: TypeAlias = Literal["+", "-", "*", "//", "%"]
MinMax: TypeAlias = Literal["min", "max"]

MAX_EXPRESSION_CHARS = 4096
MAX_EXPRESSION_DEPTH = 64
MAX_LITERAL_BITS = 256  # twice the widest binding; a wider literal could never fit, and printing
# one of thousands of digits would hit Python's int-string limit
_PARENTHESES_LIMIT = 200  # CPython's parser refuses deeper parentheses (which alone add no level)


@dataclass(frozen=True, slots=True)
class Const:
    value: int


@dataclass(frozen=True, slots=True)
class Name:
    id: str


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr


@dataclass(frozen=True, slots=True)
class BinOp:
    op: BinaryOperator
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class MinMaxCall:
    fn: MinMax
    left: Expr
    right: Expr


Expr: TypeAlias = Const | Name | Neg | BinOp | MinMaxCall


class ExpressionError(ValueError):
    """The text is not an expression of the closed offset grammar."""


class ExpressionTooDeep(ExpressionError):
    """The expression nests deeper than `MAX_EXPRESSION_DEPTH` (a request limit, not a grammar error)."""

    def __init__(self, source: str, limit: str = f"the {MAX_EXPRESSION_DEPTH}-level limit") -> None:
        shown = source if len(source) <= 80 else f"{source[:80]}... ({len(source)} characters)"
        super().__init__(f"expression nests deeper than {limit}: {shown!r}")


_AST_OPERATORS: dict[type[ast.operator], BinaryOperator] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}


def parse_expr(source: int | str | Expr) -> Expr:
    """Parse an int or expression text into an `Expr` (idempotent on `Expr`)."""
    if isinstance(source, bool):
        raise ExpressionError(f"expected an int or an expression string, got {source!r}")
    if isinstance(source, int):
        return _literal(source, source)
    if isinstance(source, Const | Name | Neg | BinOp | MinMaxCall):
        return source
    if not isinstance(source, str):
        raise ExpressionError(f"expected an int or an expression string, got {type(source).__name__}")
    if len(source) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    return _parse_text(source)


@lru_cache(maxsize=4096)
def _parse_text(source: str) -> Expr:
    """Parsed once per distinct text: requests repeat the same offsets many times (results are immutable)."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (RecursionError, MemoryError):  # the parser's own nesting guards
        raise ExpressionTooDeep(source) from None
    except SyntaxError as exc:
        if "too many nested parentheses" in str(exc):
            raise ExpressionTooDeep(source, f"the parser's {_PARENTHESES_LIMIT} parentheses") from None
        raise ExpressionError(f"not an expression: {excerpt(source)!r}") from exc
    except ValueError as exc:
        raise ExpressionError(f"not an expression: {excerpt(source)!r}") from exc
    return _convert(tree.body, source, 0)


def _shown(node: ast.expr) -> str:
    """A node as an error quotes it (a literal of thousands of digits cannot even be printed)."""
    try:
        return excerpt(ast.unparse(node))
    except ValueError:
        return type(node).__name__


def _literal(value: int, source: int | str) -> Const:
    """An int literal, refused by its width (never by converting it to digits)."""
    if value.bit_length() > MAX_LITERAL_BITS:
        where = "" if isinstance(source, int) else f" in {excerpt(source)!r}"
        raise ExpressionError(
            f"an int literal wider than {MAX_LITERAL_BITS} bits{where}: no binding width holds it"
        )
    return Const(value)


def _convert(node: ast.expr, source: str, depth: int) -> Expr:
    if depth > MAX_EXPRESSION_DEPTH:
        raise ExpressionTooDeep(source)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return _literal(node.value, source)
    if isinstance(node, ast.Name):
        return Name(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _convert(node.operand, source, depth + 1)
        if isinstance(node.op, ast.UAdd):
            return operand
        return Const(-operand.value) if isinstance(operand, Const) else Neg(operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _AST_OPERATORS:
        return BinOp(
            _AST_OPERATORS[type(node.op)],
            _convert(node.left, source, depth + 1),
            _convert(node.right, source, depth + 1),
        )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("min", "max")
        and len(node.args) == 2
        and not node.keywords
    ):
        fn: MinMax = "min" if node.func.id == "min" else "max"
        left, right = (_convert(arg, source, depth + 1) for arg in node.args)
        return MinMaxCall(fn, left, right)
    raise ExpressionError(
        f"unsupported syntax {_shown(node)!r} in {excerpt(source)!r}: expected int literals, names, "
        "+ - * // %, unary minus, min(a, b) or max(a, b)"
    )


# Binding strength, as in Python: additive < multiplicative < unary minus < atoms.
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}
_UNARY_PRECEDENCE = 3
_ATOM_PRECEDENCE = 4


def _precedence(expr: Expr) -> int:
    if isinstance(expr, BinOp):
        return _PRECEDENCE[expr.op]
    if isinstance(expr, Neg) or (isinstance(expr, Const) and expr.value < 0):
        return _UNARY_PRECEDENCE
    return _ATOM_PRECEDENCE


def format_expr(expr: Expr) -> str:
    """Print in the request syntax with the fewest parentheses that keep the tree exact."""
    if isinstance(expr, Const):
        return str(expr.value)
    if isinstance(expr, Name):
        return expr.id
    if isinstance(expr, Neg):
        inner = format_expr(expr.operand)
        return f"-{inner}" if _precedence(expr.operand) >= _UNARY_PRECEDENCE else f"-({inner})"
    if isinstance(expr, MinMaxCall):
        return f"{expr.fn}({format_expr(expr.left)}, {format_expr(expr.right)})"
    level = _PRECEDENCE[expr.op]
    left = format_expr(expr.left)
    right = format_expr(expr.right)
    if _precedence(expr.left) < level:
        left = f"({left})"
    if _precedence(expr.right) <= level:
        right = f"({right})"
    return f"{left} {expr.op} {right}"


def to_json_value(expr: Expr) -> int | str:
    """The protocol spelling: a constant as an int, anything else as expression text."""
    return expr.value if isinstance(expr, Const) else format_expr(expr)


def free_names(expr: Expr) -> frozenset[str]:
    """Every name the expression reads."""
    if isinstance(expr, Name):
        return frozenset((expr.id,))
    if isinstance(expr, Const):
        return frozenset()
    if isinstance(expr, Neg):
        return free_names(expr.operand)
    return free_names(expr.left) | free_names(expr.right)


def floor_div(expr: Expr, divisor: int) -> Expr:
    """`FloorDiv(expr, divisor)` over the expression as written: divided whole, never re-associated."""
    if isinstance(expr, Const):
        return Const(expr.value // divisor)
    return BinOp("//", expr, Const(divisor))
