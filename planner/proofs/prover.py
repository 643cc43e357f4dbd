"""Discharges `multiple_of` / `non_negative` obligations with Z3 (nz-layout.md 7.3).

One `Prover` holds one binding list, a verdict cache keyed by the canonical obligation, and,
built on first need, one incremental solver with the admissibility facts asserted once.
Each obligation is first tried on the range/residue domains of `planner.proofs.abstract`
(microseconds, no solver); what they do not establish is checked under push/pop: `proven`
when its negation is unsatisfiable, `refuted` with a counterexample that the concrete
semantics confirms, `unknown` otherwise (a resource limit included) -- never proven on a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeAlias

import z3

from planner.proofs import concrete, errors
from planner.proofs.abstract import AbstractProver
from planner.proofs.encode import Encoder
from planner.proofs.expr import Expr, ExpressionError, parse_expr
from planner.proofs.protocol import Binding
from planner.proofs.scope import check_width, make_scope

_parse = lru_cache(maxsize=4096, typed=True)(parse_expr)  # hot: every check names its offset as text
GoalName: TypeAlias = Literal["multiple_of", "non_negative"]
Status: TypeAlias = Literal["proven", "refuted", "unknown"]
GOALS: tuple[GoalName, ...] = ("multiple_of", "non_negative")
DEFAULT_RLIMIT = 5_000_000  # deterministic Z3 resource units, roughly a second of solving

VACUOUS = "no assignment satisfies the bindings (an empty loop or contradictory ranges): holds vacuously"
DIVIDES_BY_ZERO = "the expression divides by zero under this assignment"
UNCONFIRMED = "the solver's counterexample did not replay under the concrete semantics"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one obligation; `counterexample` maps every name to a signed int."""

    goal: GoalName
    status: Status
    counterexample: dict[str, int] | None = None
    reason: str | None = None


ObligationKey: TypeAlias = tuple[Expr, GoalName, int, int]


class Prover:
    """Checks obligations against one ordered binding list (see `planner.proofs.scope`)."""

    def __init__(
        self,
        bindings: Sequence[Binding],
        *,
        index_bits: int = 64,
        target: str | None = None,
        rlimit: int = DEFAULT_RLIMIT,
        abstract: bool = True,
    ) -> None:
        """`abstract=False` sends every obligation to Z3 (to measure or test the solver path alone)."""
        self.scope = make_scope(bindings, index_bits, target)
        self.rlimit = rlimit
        self._abstract = AbstractProver(self.scope) if abstract else None
        self._z3: tuple[Encoder, z3.Solver] | None = None
        self._cache: dict[ObligationKey, Verdict] = {}
        self._vacuous: bool | None = None

    @property
    def _encoder(self) -> Encoder:
        return self._solver_state()[0]

    @property
    def _solver(self) -> z3.Solver:
        return self._solver_state()[1]

    def _solver_state(self) -> tuple[Encoder, z3.Solver]:
        """The Z3 context and solver, built when the first obligation needs them (a few ms)."""
        if self._z3 is None:
            encoder = Encoder(self.scope)
            solver = z3.Solver(ctx=encoder.ctx)
            solver.set("rlimit", self.rlimit)
            solver.add([encoder.admissible(decl) for decl in self.scope.declarations])
            self._z3 = (encoder, solver)
        return self._z3

    def check(
        self, expr: Expr | int | str, goal: GoalName, factor: int = 1, bits: int | None = None
    ) -> Verdict:
        """Decide `goal` for `expr` at `bits` (default: declared width) for all admissible assignments."""
        key = self._key(expr, goal, factor, bits)
        if key not in self._cache:
            self._cache[key] = self._decide(*key)
        return self._cache[key]

    def _key(self, expr: Expr | int | str, goal: GoalName, factor: int, bits: int | None) -> ObligationKey:
        try:
            tree = _parse(expr)
        except ExpressionError as exc:
            raise errors.ProofError(errors.BAD_EXPRESSION, str(exc)) from None
        if goal not in GOALS:
            raise errors.ProofError(errors.BAD_GOAL, f"unknown goal {goal!r}: expected one of {list(GOALS)}")
        if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1 or factor & (factor - 1):
            raise errors.ProofError(
                errors.BAD_FACTOR, f"factor must be a positive power of two (16, 32, ...), got {factor!r}"
            )
        width = self.scope.declared_width(tree) if bits is None else check_width(bits, "bits")
        return tree, goal, factor if goal == "multiple_of" else 1, width

    def _decide(self, expr: Expr, goal: GoalName, factor: int, bits: int) -> Verdict:
        if self._abstract is not None and self._abstract.proves(expr, goal, factor, bits):
            return Verdict(goal, "proven")
        term = self._encoder.term(expr, bits)
        violation = self._encoder.violation(goal, term.value, factor)
        self._solver.push()
        try:
            self._solver.add(z3.Or(z3.Not(term.defined()), violation) if term.divisors else violation)
            outcome = self._solver.check()
            if outcome == z3.sat:
                return self._refutation(expr, goal, factor, bits, self._solver.model())
            if outcome != z3.unsat:
                return Verdict(goal, "unknown", reason=self._unknown_reason())
        finally:
            self._solver.pop()
        return Verdict(goal, "proven", reason=VACUOUS if self._bindings_are_vacuous() else None)

    def _refutation(self, expr: Expr, goal: GoalName, factor: int, bits: int, model: z3.ModelRef) -> Verdict:
        assignment = self._assignment(model, self.scope.free_names(expr))
        value = concrete.evaluate(expr, assignment, bits, self.scope.width)
        admitted = all(concrete.admits(decl, assignment, self.scope) for decl in self.scope.declarations)
        if not admitted or concrete.goal_holds(goal, value, factor, bits):
            return Verdict(goal, "unknown", reason=UNCONFIRMED)
        return Verdict(goal, "refuted", assignment, DIVIDES_BY_ZERO if value is None else None)

    def _assignment(self, model: z3.ModelRef, names: tuple[str, ...]) -> dict[str, int]:
        """Every name's signed value, read with one model evaluation of all variables side by side."""
        variables = [self._encoder.variable(name) for name in names]
        if not variables:
            return {}
        side_by_side = z3.Concat(*variables) if len(variables) > 1 else variables[0]
        packed: int = model.eval(side_by_side, model_completion=True).as_long()
        values: dict[str, int] = {}
        for name, variable in reversed(list(zip(names, variables, strict=True))):
            width = variable.size()
            values[name] = concrete.wrap(packed & ((1 << width) - 1), width)
            packed >>= width
        return dict(sorted(values.items()))

    def _unknown_reason(self) -> str:
        reason = self._solver.reason_unknown()
        if reason in ("canceled", "max. resource limit exceeded"):
            return f"resource limit reached (rlimit={self.rlimit})"
        return f"solver gave no answer: {reason}"

    def _bindings_are_vacuous(self) -> bool:
        if self._vacuous is None:
            self._vacuous = self._solver.check() == z3.unsat
        return self._vacuous
