"""A safe subset of Python expressions, evaluated over `ast` nodes (docs/design/nz-layout.md section 19).

Literals, arithmetic, comparisons, `and`/`or`/`not`, conditional expressions, `min`/`max`/`abs`,
`int` of a number or a bool (`1 + int(OVERLAP)`), tuples, lists and dicts and their subscripts,
names, and attributes of instances of frozen `@dataclass` and `NamedTuple` classes built from such
values (defaults included) and of their one-`return` `@property` methods; the resolver adds
`dataclasses.replace` of such an instance. Everything else (a call of any other function, an
attribute of a library module, a comprehension, a lambda) is `Unresolved`, so its name stays
symbolic. Every result is what Python computes for the same source; sizes are bounded so that no
expression can make the evaluation slow or large.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

MAX_INT_BITS: Final = 4096
MAX_LENGTH: Final = 10_000

_BINARY: Final[dict[type[ast.operator], Callable[[Any, Any], Any]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNARY: Final[dict[type[ast.unaryop], Callable[[Any], Any]]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}
_COMPARE: Final[dict[type[ast.cmpop], Callable[[Any, Any], Any]]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda left, right: operator.contains(right, left),
    ast.NotIn: lambda left, right: not operator.contains(right, left),
}


def _integer(value: Any) -> int:
    """`int(x)` of a number or a bool only: `int("...")` parses text, which no extent needs."""
    if not isinstance(value, int | float):
        raise TypeError(value)
    return int(value)


_BUILTIN_CALLS: Final[dict[str, Callable[..., Any]]] = {
    "builtins.min": min,
    "builtins.max": max,
    "builtins.abs": abs,
    "builtins.int": _integer,
}
_PLAIN = (int, float, str, bool, type(None))


class Unresolved(Exception):
    """The expression is outside the safe subset, or names something without a certain value.

    `cause`: why, when the resolver knows (an `extent_causes.Cause`)."""

    def __init__(self, cause: Any = None) -> None:
        super().__init__()
        self.cause = cause


@dataclass(frozen=True)
class External:
    """Something of a module that is not read (a library): only its dotted path is known."""

    path: str


@dataclass(frozen=True)
class Instance:
    """An instance of a frozen dataclass or NamedTuple class (`record` is the class's handle)."""

    record: Any
    fields: tuple[tuple[str, Any], ...]

    def field(self, name: str) -> Any:
        for key, value in self.fields:
            if key == name:
                return value
        raise KeyError(name)


@dataclass(frozen=True)
class Traced:
    """A value, and the dotted path it was read from when that path crosses an import."""

    value: Any
    origin: str | None = None


class Evaluator:
    """Evaluates expressions in a scope; the resolver supplies names, attributes and calls."""

    def lookup(self, scope: Any, name: str) -> Traced:
        raise NotImplementedError

    def attribute(self, base: Traced, name: str) -> Traced:
        raise NotImplementedError

    def construct(self, record: Any, arguments: list[Any], keywords: dict[str, Any]) -> Any:
        raise NotImplementedError

    def evaluate(self, node: ast.expr, scope: Any) -> Traced:
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, _PLAIN):
                raise Unresolved
            return Traced(_bounded(node.value))
        if isinstance(node, ast.Name):
            return self.lookup(scope, node.id)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.evaluate(node.value, scope), node.attr)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, scope)
        if isinstance(node, ast.Tuple | ast.List):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                raise Unresolved
            values = [self.value(element, scope) for element in node.elts]
            return Traced(_bounded(tuple(values) if isinstance(node, ast.Tuple) else values))
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                raise Unresolved
            keys = [self.value(key, scope) for key in node.keys if key is not None]
            values = [self.value(value, scope) for value in node.values]
            return Traced(_apply(_dict, keys, values))
        return Traced(self._computed(node, scope))

    def value(self, node: ast.expr, scope: Any) -> Any:
        return self.evaluate(node, scope).value

    def _computed(self, node: ast.expr, scope: Any) -> Any:
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.value(node.left, scope), self.value(node.right, scope)
            _check_operands(node.op, left, right)
            return _apply(_BINARY[type(node.op)], left, right)
        if isinstance(node, ast.UnaryOp):
            return _apply(_UNARY[type(node.op)], self.value(node.operand, scope))
        if isinstance(node, ast.Compare):
            left = self.value(node.left, scope)
            for op, comparator in zip(node.ops, node.comparators, strict=True):
                right = self.value(comparator, scope)
                if not _apply(_COMPARE[type(op)], left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            result: Any = None
            for operand in node.values:
                result = self.value(operand, scope)
                if bool(result) == isinstance(node.op, ast.Or):
                    return result
            return result
        if isinstance(node, ast.IfExp):
            chosen = node.body if self.value(node.test, scope) else node.orelse
            return self.value(chosen, scope)
        if isinstance(node, ast.Call):
            return self._call(node, scope)
        raise Unresolved

    def _subscript(self, node: ast.Subscript, scope: Any) -> Traced:
        base = self.evaluate(node.value, scope)
        if isinstance(node.slice, ast.Slice):
            bounds = [
                self.value(part, scope) if part is not None else None
                for part in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            if not all(bound is None or type(bound) is int for bound in bounds):
                raise Unresolved
            index: Any = slice(*bounds)
        else:
            index = self.value(node.slice, scope)
        container = base.value
        if isinstance(container, Instance):
            container = tuple(value for _, value in container.fields) if _is_tuple_record(container) else None
        if not isinstance(container, tuple | list | dict | str):
            raise Unresolved
        found = _apply(operator.getitem, container, index)
        origin = (
            f"{base.origin}[{index!r}]" if base.origin is not None and not isinstance(index, slice) else None
        )
        return Traced(found, origin)

    def _call(self, node: ast.Call, scope: Any) -> Any:
        callee = self.value(node.func, scope)
        if any(isinstance(argument, ast.Starred) for argument in node.args):
            raise Unresolved
        if any(keyword.arg is None for keyword in node.keywords):
            raise Unresolved
        arguments = [self.value(argument, scope) for argument in node.args]
        keywords = {keyword.arg: self.value(keyword.value, scope) for keyword in node.keywords if keyword.arg}
        if isinstance(callee, External) and callee.path in _BUILTIN_CALLS and not keywords and arguments:
            if any(isinstance(argument, Instance) for argument in arguments):
                raise Unresolved
            return _apply(_BUILTIN_CALLS[callee.path], *arguments)
        return self.construct(callee, arguments, keywords)


def _is_tuple_record(instance: Instance) -> bool:
    return bool(getattr(instance.record, "tuple_like", False))


def _check_operands(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse, before computing it, a result too large to compute quickly."""
    if isinstance(left, Instance) or isinstance(right, Instance):
        raise Unresolved
    powers = isinstance(op, ast.Pow) and type(right) is int and isinstance(left, int) and abs(left) > 1
    if powers and left.bit_length() * right > MAX_INT_BITS:
        raise Unresolved
    if isinstance(op, ast.LShift) and type(right) is int and right > MAX_INT_BITS:
        raise Unresolved
    if isinstance(op, ast.Mod) and isinstance(left, str):
        raise Unresolved  # `"%*d" % (width, x)` formats: a string as wide as asked
    if isinstance(op, ast.Mult):
        for sequence, count in ((left, right), (right, left)):
            if (
                isinstance(sequence, str | tuple | list)
                and isinstance(count, int)
                and count * len(sequence) > MAX_LENGTH
            ):
                raise Unresolved


def _dict(keys: list[Any], values: list[Any]) -> dict[Any, Any]:
    return dict(zip(keys, values, strict=True))


def _apply(function: Callable[..., Any], *operands: Any) -> Any:
    try:
        return _bounded(function(*operands))
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError):
        raise Unresolved from None


def _bounded(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise Unresolved
    if isinstance(value, str | tuple | list | dict) and len(value) > MAX_LENGTH:
        raise Unresolved
    if isinstance(value, complex):
        raise Unresolved
    return value
