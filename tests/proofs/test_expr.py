"""Offset expressions: parsing is closed and never evaluates; printing round-trips exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.proofs.expr import (
    BinOp,
    Const,
    ExpressionError,
    MinMaxCall,
    Name,
    Neg,
    floor_div,
    format_expr,
    free_names,
    parse_expr,
)


def test_parses_the_protocol_examples() -> None:
    assert parse_expr("nb * 256") == BinOp("*", Name("nb"), Const(256))
    assert parse_expr("min(800 - o0, 256)") == MinMaxCall(
        "min", BinOp("-", Const(800), Name("o0")), Const(256)
    )
    assert parse_expr("k // 2") == BinOp("//", Name("k"), Const(2))
    assert parse_expr(-16) == Const(-16)
    assert parse_expr("-x") == Neg(Name("x"))


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "x ** 2",
        "x / 2",
        "a.b",
        "f(x)",
        "min(a)",
        "x if y else z",
        "1.5",
        "'s'",
    ],
)
def test_rejects_everything_outside_the_grammar(text: str) -> None:
    with pytest.raises(ExpressionError):
        parse_expr(text)


def test_rejects_bool_and_deep_nesting() -> None:
    with pytest.raises(ExpressionError):
        parse_expr(True)
    with pytest.raises(ExpressionError):
        parse_expr("-" * 200 + "x")


def test_divides_the_offset_as_a_whole() -> None:
    assert format_expr(floor_div(parse_expr("n0"), 16)) == "n0 // 16"
    assert format_expr(floor_div(parse_expr("nb * 256"), 16)) == "nb * 256 // 16"
    assert format_expr(floor_div(parse_expr("a + b"), 16)) == "(a + b) // 16"
    assert floor_div(Const(512), 32) == Const(16)


def test_free_names() -> None:
    assert free_names(parse_expr("min(a - b, c * 2) // d")) == frozenset("abcd")


_names = st.sampled_from(["a", "b", "n0"]).map(Name)
_consts = st.integers(-300, 300).map(Const)
_exprs = st.recursive(
    _names | _consts,
    lambda inner: st.one_of(
        st.builds(BinOp, st.sampled_from(["+", "-", "*", "//", "%"]), inner, inner),
        st.builds(MinMaxCall, st.sampled_from(["min", "max"]), inner, inner),
        inner.filter(lambda e: not isinstance(e, Const)).map(Neg),
    ),
    max_leaves=12,
)


@given(_exprs)
def test_printing_round_trips_to_the_same_tree(expr: object) -> None:
    assert parse_expr(format_expr(expr)) == expr  # type: ignore[arg-type]
