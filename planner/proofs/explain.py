"""A refutation in words: the reading that breaks it, the free values chosen, and what executes.

"with truncating `%`, nb = 0 gives n0 = -256": the reading is named only where it changes the
value (a `//` or `%` reached by the offset, an unsigned value widened), and only the values
the program does not compute itself (lanes, loop variables, parameters) are listed.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.proofs.expr import BinOp, Expr, MinMaxCall, Neg, free_names
from planner.proofs.prover import Verdict
from planner.proofs.scope import Scope

COMPUTED_KINDS = ("assign", "induction")


def _operators(expr: Expr) -> Iterator[str]:
    if isinstance(expr, BinOp):
        yield expr.op
    if isinstance(expr, Neg):
        yield from _operators(expr.operand)
    elif isinstance(expr, BinOp | MinMaxCall):
        yield from _operators(expr.left)
        yield from _operators(expr.right)


def _reached(exprs: tuple[Expr, ...], scope: Scope) -> tuple[set[str], list[Expr]]:
    """Every name the expressions read through the bindings, and every expression involved."""
    names: set[str] = set()
    pending = list(exprs)
    involved: list[Expr] = []
    while pending:
        expr = pending.pop()
        involved.append(expr)
        for name in free_names(expr) - names:
            names.add(name)
            decl = scope.declaration(name)
            if decl is not None:
                pending.extend(decl.operands)
                if decl.loop is not None and decl.loop not in names:
                    names.add(decl.loop)
                    loop = scope.declaration(decl.loop)
                    pending.extend(() if loop is None else loop.operands)
    return names, involved


def reading_words(verdict: Verdict, exprs: tuple[Expr, ...], scope: Scope) -> list[str]:
    """The parts of the reading that matter for these expressions, e.g. ["with truncating `%`"]."""
    if verdict.reading is None:
        return []
    names, involved = _reached(exprs, scope)
    divisions = sorted({op for expr in involved for op in _operators(expr) if op in ("//", "%")})
    words = []
    if divisions:
        rounding = "truncating" if verdict.reading.division == "trunc" else "floor"
        words.append(f"with {rounding} " + " and ".join(f"`{op}`" for op in divisions))
    if any(not scope.dtype(name).signed for name in names):
        words.append(f"with unsigned values {verdict.reading.extension}-extended")
    return words


def refutation_text(verdict: Verdict, subject: str, exprs: tuple[Expr, ...], scope: Scope) -> str:
    """E.g. "with truncating `%`, nb = 0 gives n0 = -256" (`subject` is the value's name in words)."""
    counterexample = verdict.counterexample or {}
    chosen = [
        f"{name} = {value}"
        for name, value in sorted(counterexample.items())
        if (decl := scope.declaration(name)) is None or decl.kind not in COMPUTED_KINDS
    ]
    outcome = "divides by zero" if verdict.value is None else f"{subject} = {verdict.value}"
    if chosen:
        outcome = f"{', '.join(chosen)} gives {outcome}"
    return ", ".join([*reading_words(verdict, exprs, scope), outcome])
