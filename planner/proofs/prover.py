"""Discharges `multiple_of` / `non_negative` / window obligations with Z3 (docs/design/nz-layout.md 7.3).

One `Prover` holds one binding list, a verdict cache keyed by the canonical obligation, and,
built on first need, one incremental solver with the admissibility facts asserted once.
Each obligation is first tried on the range/residue domains of `planner.proofs.abstract`
(microseconds, no solver); what they do not establish is checked under push/pop: `proven`
when its negation is unsatisfiable under every reading the division semantics admits,
`refuted` with a counterexample that the concrete semantics confirms under a named reading,
`unknown` otherwise (a resource limit included) -- never proven on a guess. Inside a
`planner.proofs.shared.shared_verdicts()` block, provers of equal scope share what their
solvers decided along equal histories, so a repeated kernel builds no second solver.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, TypeAlias

from planner import budget
from planner.proofs import concrete, errors
from planner.proofs.abstract import AbstractProver
from planner.proofs.dtype import DivisionSemantics, Reading, goal_dtype, readings
from planner.proofs.expr import Expr, ExpressionError, parse_expr
from planner.proofs.protocol import Binding
from planner.proofs.scope import make_scope
from planner.proofs.shared import History, active

if TYPE_CHECKING:  # imported where the first obligation reaches the solver: runs without one skip Z3
    import z3

    from planner.proofs.encode import Encoder

_parse = lru_cache(maxsize=4096, typed=True)(parse_expr)  # hot: every check names its offset as text
GoalName: TypeAlias = Literal["multiple_of", "non_negative", "at_most"]
Status: TypeAlias = Literal["proven", "refuted", "unknown"]
GOALS: tuple[GoalName, ...] = ("multiple_of", "non_negative")
DEFAULT_RLIMIT = 5_000_000  # deterministic Z3 resource units, roughly a second of solving
_PACKED_BITS = 4096  # bits per model evaluation: about 1,200 decimal digits, under the int/str limit

VACUOUS = "no assignment satisfies the bindings (an empty loop or contradictory ranges): holds vacuously"
DIVIDES_BY_ZERO = "the expression divides by zero under this assignment"
UNCONFIRMED = "the solver's counterexample did not replay under the concrete semantics"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one obligation; `counterexample` maps every name to the int its dtype reads.

    A refutation also names the `reading` that breaks the goal and the offset's executed
    `value` there (for a window bound, where the window ends).
    """

    goal: GoalName
    status: Status
    counterexample: dict[str, int] | None = None
    reason: str | None = None
    reading: Reading | None = None
    value: int | None = None


ObligationKey: TypeAlias = tuple[Expr, GoalName, int, DivisionSemantics]
WindowKey: TypeAlias = tuple[Expr, Expr, int, DivisionSemantics]
SolverTask: TypeAlias = tuple[Literal["goal"], ObligationKey] | tuple[Literal["window"], WindowKey]
Replay: TypeAlias = tuple[bool, int | None]  # (the goal breaks, the executed value) under one reading


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
        deadline: float | None = None,
    ) -> None:
        """`abstract=False` sends every obligation to Z3 (to measure or test the solver path alone).

        `deadline` (`time.monotonic()`): each Z3 check gets the time left as its own timeout;
        a check that runs out of its resource limit is `unknown`, one that runs out of time
        raises `BudgetExceeded` (the time it had was all the message had left).
        """
        self.scope = make_scope(bindings, index_bits, target)
        self.rlimit = rlimit
        self.deadline = deadline
        self._abstract = abstract
        self._domains: dict[DivisionSemantics, AbstractProver] = {}
        self._z3: tuple[Encoder, z3.Solver] | None = None
        self._cache: dict[ObligationKey | WindowKey, Verdict] = {}
        self._vacuous: dict[DivisionSemantics, bool] = {}
        self._sent: list[SolverTask] = []  # read off the shared tree, in order, before a solver is built
        shared = active()
        root = (self.scope.declarations, self.scope.index_bits, rlimit)
        self._history: History | None = shared.root(root) if shared is not None else None

    @property
    def _encoder(self) -> Encoder:
        return self._solver_state()[0]

    @property
    def _solver(self) -> z3.Solver:
        return self._solver_state()[1]

    def _solver_state(self) -> tuple[Encoder, z3.Solver]:
        """The Z3 context and solver, built when the first obligation needs them (a few ms)."""
        if self._z3 is None:
            import z3

            from planner.proofs.encode import Encoder

            encoder = Encoder(self.scope)
            solver = z3.Solver(ctx=encoder.ctx)
            solver.set("rlimit", self.rlimit)
            solver.add([encoder.admissible(decl) for decl in self.scope.declarations])
            self._z3 = (encoder, solver)
        return self._z3

    def _domain(self, division: DivisionSemantics) -> AbstractProver | None:
        if not self._abstract:
            return None
        if division not in self._domains:
            self._domains[division] = AbstractProver(self.scope, readings(division))
        return self._domains[division]

    def empty_loops(self, division: DivisionSemantics = "floor") -> list[str]:
        """The `for` bindings whose range is empty under every reading (`planner.proofs.loops`): loops
        that never run, so every goal reading them holds vacuously. In binding order."""
        semantics = _division(division)
        domain = self._domain(semantics) or AbstractProver(self.scope, readings(semantics))
        return [decl.name for decl in self.scope.declarations if domain.never_runs(decl.name)]

    def check(
        self, expr: Expr | int | str, goal: GoalName, factor: int = 1, division: DivisionSemantics = "floor"
    ) -> Verdict:
        """Decide `goal` for the executed value of `expr` under every admissible assignment and reading."""
        key = self._key(expr, goal, factor, division)
        if key not in self._cache:
            with _out_of_memory_as_memory_error():
                self._cache[key] = self._decide(*key)
        return self._cache[key]

    def check_window(
        self,
        offset: Expr | int | str,
        extent: Expr | int | str,
        bound: int,
        division: DivisionSemantics = "floor",
    ) -> Verdict:
        """Decide `offset + extent <= bound` (exact, no wrap) for every admissible assignment and reading."""
        key: WindowKey = (self._tree(offset), self._tree(extent), bound, _division(division))
        if key not in self._cache:
            with _out_of_memory_as_memory_error():
                self._cache[key] = self._decide_window(*key)
        return self._cache[key]

    def _tree(self, expr: Expr | int | str) -> Expr:
        try:
            return _parse(expr)
        except ExpressionError as exc:
            raise errors.ProofError(errors.BAD_EXPRESSION, str(exc)) from None

    def _key(
        self, expr: Expr | int | str, goal: GoalName, factor: int, division: DivisionSemantics
    ) -> ObligationKey:
        tree = self._tree(expr)
        if goal not in GOALS:
            raise errors.ProofError(errors.BAD_GOAL, f"unknown goal {goal!r}: expected one of {list(GOALS)}")
        if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1 or factor & (factor - 1):
            raise errors.ProofError(
                errors.BAD_FACTOR, f"factor must be a positive power of two (16, 32, ...), got {factor!r}"
            )
        return tree, goal, factor if goal == "multiple_of" else 1, _division(division)

    def _decide(self, expr: Expr, goal: GoalName, factor: int, division: DivisionSemantics) -> Verdict:
        domain = self._domain(division)
        if domain is not None and domain.proves(expr, goal, factor):
            return Verdict(goal, "proven")
        return self._by_solver(("goal", (expr, goal, factor, division)))

    def _decide_window(self, offset: Expr, extent: Expr, bound: int, division: DivisionSemantics) -> Verdict:
        domain = self._domain(division)
        if domain is not None and domain.proves_window(offset, extent, bound):
            return Verdict("at_most", "proven")
        return self._by_solver(("window", (offset, extent, bound, division)))

    def _by_solver(self, task: SolverTask) -> Verdict:
        """What the solver answers after this prover's history: read off the shared tree while this
        prover has built no solver, else decided on its own (`planner.proofs.shared`)."""
        history = self._history
        if self._z3 is None and history is not None and task in history.next:
            verdict, self._history = history.next[task]
            self._sent.append(task)
            return verdict
        try:
            if self._z3 is None:
                for earlier in self._sent:  # the solver a prover alone would have: same checks, same order
                    self._solved(earlier)
                self._sent.clear()
            verdict = self._solved(task)
        except BaseException:
            self._history = None  # this solver's history is no longer one another prover can have
            raise
        if history is not None:
            self._history = history.after(task, verdict)
        return verdict

    def _solved(self, task: SolverTask) -> Verdict:
        if task[0] == "goal":
            return self._solved_goal(*task[1])
        return self._solved_window(*task[1])

    def _solved_goal(self, expr: Expr, goal: GoalName, factor: int, division: DivisionSemantics) -> Verdict:
        import z3

        term = self._encoder.term(expr)
        violation = self._encoder.violation(goal, expr, factor)
        broken = z3.Or(z3.Not(term.defined()), violation) if term.divisors else violation

        def replay(env: dict[str, int], reading: Reading) -> Replay:
            value = concrete.offset_value(expr, env, self.scope, reading)
            bits = goal_dtype(self.scope.type_of(expr), self.scope.index).bits
            return not concrete.goal_holds(goal, value, factor, bits), value

        return self._solve(goal, broken, division, self.scope.free_names(expr), replay)

    def _solved_window(self, offset: Expr, extent: Expr, bound: int, division: DivisionSemantics) -> Verdict:
        import z3

        end = self._encoder.window_end(offset, extent)
        defined = z3.And(self._encoder.term(offset).defined(), self._encoder.term(extent).defined())
        broken = z3.Or(z3.Not(defined), end > z3.BitVecVal(bound, end.size(), end.ctx))
        names = tuple(sorted(set(self.scope.free_names(offset)) | set(self.scope.free_names(extent))))

        def replay(env: dict[str, int], reading: Reading) -> Replay:
            value = concrete.window_end(offset, extent, env, self.scope, reading)
            return value is None or value > bound, value

        return self._solve("at_most", broken, division, names, replay)

    def _solve(
        self,
        goal: GoalName,
        broken: z3.BoolRef,
        division: DivisionSemantics,
        names: tuple[str, ...],
        replay: Callable[[dict[str, int], Reading], Replay],
    ) -> Verdict:
        """Search for an admissible assignment and reading that break the goal; confirm it concretely."""
        import z3

        self._solver.push()
        try:
            self._solver.add(self._encoder.division_is(division), broken)
            outcome = self._timed_check()
            if outcome == z3.sat:
                model = self._solver.model()
                env = self._assignment(model, names)
                return self._confirmed(goal, env, self._candidates(model, division), replay)
            if outcome != z3.unsat:
                return Verdict(goal, "unknown", reason=self._unknown_reason())
        finally:
            self._solver.pop()
        return Verdict(goal, "proven", reason=VACUOUS if self._bindings_are_vacuous(division) else None)

    def _candidates(self, model: z3.ModelRef, division: DivisionSemantics) -> list[Reading]:
        """The allowed readings, the model's own first (the others follow in a fixed order)."""
        import z3

        truncating = z3.is_true(model.eval(self._encoder.truncating, model_completion=True))
        sign = z3.is_true(model.eval(self._encoder.sign_extending, model_completion=True))
        found = Reading("trunc" if truncating else "floor", "sign" if sign else "zero")
        allowed = readings(division)
        if found not in allowed:
            return list(allowed)
        return [found, *(reading for reading in allowed if reading != found)]

    def _confirmed(
        self,
        goal: GoalName,
        env: dict[str, int],
        candidates: list[Reading],
        replay: Callable[[dict[str, int], Reading], Replay],
    ) -> Verdict:
        """The first reading under which `env` is admissible and breaks the goal, else unknown."""
        for reading in candidates:
            if not concrete.admitted(env, self.scope, reading):
                continue
            broken, value = replay(env, reading)
            if broken:
                return Verdict(
                    goal, "refuted", env, DIVIDES_BY_ZERO if value is None else None, reading, value
                )
        return Verdict(goal, "unknown", reason=UNCONFIRMED)

    def _assignment(self, model: z3.ModelRef, names: tuple[str, ...]) -> dict[str, int]:
        """Every name's value, read with few model evaluations of variables side by side.

        Each evaluation packs at most about `_PACKED_BITS` bits, so the integer it returns stays
        under Python's limit on int/str conversion however many names there are.
        """
        values: dict[str, int] = {}
        group: list[tuple[str, z3.BitVecRef]] = []
        for name in names:
            group.append((name, self._encoder.variable(name)))
            if sum(variable.size() for _, variable in group) >= _PACKED_BITS:
                values.update(self._read_side_by_side(model, group))
                group = []
        values.update(self._read_side_by_side(model, group))
        return dict(sorted(values.items()))

    def _read_side_by_side(self, model: z3.ModelRef, group: list[tuple[str, z3.BitVecRef]]) -> dict[str, int]:
        """The values of `group`'s variables, from one evaluation of their concatenation."""
        if not group:
            return {}
        import z3

        variables = [variable for _, variable in group]
        side_by_side = z3.Concat(*variables) if len(variables) > 1 else variables[0]
        packed: int = model.eval(side_by_side, model_completion=True).as_long()
        values: dict[str, int] = {}
        for name, variable in reversed(group):
            width = variable.size()
            values[name] = concrete.represent(packed & ((1 << width) - 1), self.scope.dtype(name))
            packed >>= width
        return values

    def _timed_check(self, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        """One solver check within the time left; past the deadline it raises `BudgetExceeded`."""
        import z3

        left = budget.remaining_ms(self.deadline)
        if left is not None:
            self._solver.set("timeout", left)  # this solver's own parameter, never Z3's global one
        outcome = self._solver.check(*assumptions)
        if outcome == z3.unknown and left is not None:
            if self._solver.reason_unknown() == "timeout":
                raise budget.BudgetExceeded  # the check had all the time left: the deadline is reached
            budget.check_deadline(self.deadline)
        return outcome

    def _unknown_reason(self) -> str:
        reason = self._solver.reason_unknown()
        if reason in ("canceled", "max. resource limit exceeded"):
            return f"resource limit reached (rlimit={self.rlimit})"
        return f"solver gave no answer: {reason}"

    def _bindings_are_vacuous(self, division: DivisionSemantics) -> bool:
        import z3

        if division not in self._vacuous:
            self._vacuous[division] = self._timed_check(self._encoder.division_is(division)) == z3.unsat
        return self._vacuous[division]


@contextmanager
def _out_of_memory_as_memory_error() -> Iterator[None]:
    """Z3 reports an allocation refused under the process's memory cap as its own exception; every
    face answers a `MemoryError` as `request.too_large`."""
    try:
        yield
    except Exception as exc:
        if not _z3_out_of_memory(exc):
            raise
        raise MemoryError(f"the solver ran out of memory ({exc})") from None


def _z3_out_of_memory(exc: Exception) -> bool:
    """Whether `exc` is Z3's refused allocation; Z3 is not imported for this (before the first
    obligation reaches the solver, no exception can be Z3's)."""
    z3_module = sys.modules.get("z3")
    return z3_module is not None and isinstance(exc, z3_module.Z3Exception) and "memory" in str(exc)


def _division(division: str) -> DivisionSemantics:
    if division not in ("floor", "trunc", "either"):
        raise errors.ProofError(
            errors.BAD_DIVISION, f"unknown division {division!r}: expected 'floor', 'trunc' or 'either'"
        )
    return division  # type: ignore[return-value]
