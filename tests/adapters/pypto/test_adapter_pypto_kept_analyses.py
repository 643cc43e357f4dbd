"""What the reader finds once and keeps: answers the same as finding it afresh.

- The names a loop body binds (`carried.rebound_names`), kept per statement node. Generated
  blocks nest loops, branches, `with`, `try`, walrus targets, definitions and imports. Asked
  in any order (an inner block before or after the blocks around it, each twice), the names of
  every block are those of a fresh parse asked once, and as a set they are every binding the
  block makes, found by an independent walk of the tree.
- The windows that feed a matmul (`feeds.matmul_fed_windows`), kept per function body: asked
  again for the same body, and for a fresh parse, the same windows (by position).
- The constants an assignment hides (`FunctionState._shadowed`, indexed by root name): what a
  pass over every constant finds, assignment after assignment.
"""

from __future__ import annotations

import ast
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.adapters.pypto.requests.carried import rebound_names
from planner.adapters.pypto.requests.feeds import matmul_fed_windows
from planner.adapters.pypto.requests.model import Target, Value
from planner.adapters.pypto.requests.request_builder import FunctionState

NAMES = ("a", "b", "c", "n0", "acc")
_names = st.sampled_from(NAMES)


@st.composite
def _statement(draw: st.DrawFn, depth: int) -> list[str]:
    """One statement as source lines (indented one level per nesting)."""
    simple = st.one_of(
        st.builds(lambda t, v: [f"{t} = {v} + 1"], _names, _names),
        st.builds(lambda t, u, v: [f"{t}, {u} = {v}, 2"], _names, _names, _names),
        st.builds(lambda t, v: [f"{t} += {v}"], _names, _names),
        st.builds(lambda t: [f"{t}: int = 3"], _names),
        st.builds(lambda t, v: [f"print(({t} := {v} * 2))"], _names, _names),
        st.builds(lambda t: [f"import os as {t}"], _names),
        st.just(["pass"]),
    )
    if depth >= 3:
        return draw(simple)
    block = st.lists(_statement(depth + 1), min_size=1, max_size=3).map(
        lambda statements: ["    " + line for lines in statements for line in lines]
    )
    header = draw(
        st.sampled_from(
            ("for {t} in range(4):", "if ({t} := 1):", "while {t}:", "with open('f') as {t}:", "def {t}():")
        )
    ).format(t=draw(_names))
    compound = st.one_of(
        st.builds(lambda body: [header, *body], block),
        st.builds(lambda body, other: [header, *body, "else:", *other], block, block)
        if header.startswith(("for", "if", "while"))
        else st.nothing(),
        st.builds(
            lambda body, handler, last: ["try:", *body, "except E:", *handler, "finally:", *last],
            block,
            block,
            block,
        ),
    )
    return draw(st.one_of(simple, compound))


programs = st.lists(_statement(0), min_size=1, max_size=4).map(
    lambda statements: "\n".join(line for lines in statements for line in lines) + "\n"
)


def _blocks(statements: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The statement list and every block nested in it, outermost first."""
    found = [statements]
    for statement in statements:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, [])
            if inner:
                found += _blocks(inner)
        for handler in getattr(statement, "handlers", []):
            found += _blocks(handler.body)
    return found


def _bound(statements: list[ast.stmt]) -> set[str]:
    """Every name the statements bind, by a plain walk: stored names, walrus targets, definitions, imports."""
    names: set[str] = set()
    for node in (inner for statement in statements for inner in ast.walk(statement)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
    return names


@settings(max_examples=60)
@given(programs, st.randoms(use_true_random=False))
def test_each_block_names_what_a_fresh_parse_names_in_any_order_of_asking(
    text: str, order: random.Random
) -> None:
    fresh = [rebound_names(block) for block in _blocks(ast.parse(text).body)]
    kept = _blocks(ast.parse(text).body)
    asked = list(range(len(kept))) * 2
    order.shuffle(asked)
    for index in asked:
        assert rebound_names(kept[index]) == fresh[index]
    assert [set(names) for names in fresh] == [_bound(block) for block in kept]


def _fed_positions(body: list[ast.stmt]) -> set[tuple[int, int]]:
    fed = matmul_fed_windows(body)
    nodes = (node for statement in body for node in ast.walk(statement))
    return {(node.lineno, node.col_offset) for node in nodes if id(node) in fed}  # type: ignore[attr-defined]


FED = """
def k(x, w, out):
    acc = pl.matmul(x[:, 0:64], w[0:64, :])
    for k0 in pl.range(64, 256, 64):
        t = w[k0 : k0 + 64, :]
        acc = pl.matmul_acc(acc, x[:, k0 : k0 + 64], t)
    out[:, :] = acc
    other = w[0:16, 0:16]
    return out
"""


def test_a_body_asked_again_feeds_the_windows_a_fresh_parse_does() -> None:
    (function,) = ast.parse(FED).body
    assert isinstance(function, ast.FunctionDef)
    first = _fed_positions(function.body)
    assert first == _fed_positions(function.body)  # kept
    fresh = ast.parse(FED).body[0]
    assert isinstance(fresh, ast.FunctionDef)
    assert first == _fed_positions(fresh.body) == {(3, 20), (3, 32), (5, 12), (6, 33)}


class _Constants(FunctionState):
    """The walk's state with nothing but its constants: `_shadowed` reads no more."""

    def _value(self, node: ast.expr, target: Target | None = None) -> Value:
        raise NotImplementedError


_keys = st.builds(
    lambda root, tail: root + tail, _names, st.sampled_from(("", ".x", ".x.y", "[0]", "_1", "x"))
)


@settings(max_examples=100)
@given(st.lists(_keys, unique=True), st.lists(_names, max_size=8))
def test_assignments_hide_the_constants_a_pass_over_every_constant_finds(
    keys: list[str], assigned: list[str]
) -> None:
    state = _Constants.__new__(_Constants)  # built without a program: only its constants are read
    state._constants = dict.fromkeys(keys, 1)
    state._constant_roots = None
    remaining = set(keys)
    for name in assigned:
        hidden = {key for key in remaining if key == name or key.startswith((name + ".", name + "["))}
        assert set(state._shadowed(name)) == hidden
        for key in hidden:
            del state._constants[key]
        remaining -= hidden
