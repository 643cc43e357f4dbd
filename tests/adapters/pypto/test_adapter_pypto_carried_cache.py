"""The names a loop body binds (`carried.rebound_names`), found once per statement node and kept.

Generated blocks nest loops, branches, `with`, `try`, walrus targets, definitions and imports.
Asked in any order (an inner block before or after the blocks around it, each twice), the
names of every block are those of a fresh parse asked once, and as a set they are every
binding the block makes, found by an independent walk of the tree.
"""

from __future__ import annotations

import ast
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.adapters.pypto.requests.carried import rebound_names

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
