"""Trailing offsets to blocked coordinates: constants exactly, symbols only when proven (section 7).

A symbolic offset is mapped when Z3 proves it a multiple of the axis factor and then proves
it non-negative (7.2, 7.3); `unknown` is never proven. The coordinate is
`FloorDiv(offset_as_written, factor)` - never re-associated (7.4). Every obligation is
recorded for the response.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.layout import diagnostics as nz
from planner.layout.blocking import add_exact
from planner.layout.protocol import LayoutPlanRequest, ObligationRecord
from planner.proofs.explain import refutation_text
from planner.proofs.expr import (
    Const,
    Expr,
    floor_div,
    format_expr,
    to_json_value,
)
from planner.proofs.protocol import (
    Goal,
    ReadingRecord,
)
from planner.proofs.prover import Prover, Verdict
from planner.proofs.scope import bindings_read_by, make_scope


class ProofLedger:
    """The provers of one plan (built on first use) and the record of every obligation they discharged.

    The request's bindings are one flat list for the whole function, so an obligation is posed
    against the bindings its offset reads only (`bindings_read_by`): a loop that does not
    enclose the load, empty or not, must not lend the load its facts.
    """

    def __init__(self, request: LayoutPlanRequest, deadline: float | None = None) -> None:
        self._request = request
        self._deadline = deadline  # time.monotonic(): every prover stops there
        self._provers: dict[tuple[str, ...], Prover] | None = None
        self._prover_of: dict[Expr, Prover] = {}
        self.records: list[ObligationRecord] = []

    def _prover_for(self, expr: Expr) -> Prover:
        """The prover over the bindings `expr` reads; offsets reading the same bindings share one."""
        if expr in self._prover_of:
            return self._prover_of[expr]
        request = self._request
        if self._provers is None:
            make_scope(request.bindings, request.index_bits, request.target)  # the whole list must be valid
            self._provers = {}
        relevant = bindings_read_by(request.bindings, expr)
        key = tuple(binding.name for binding in relevant)
        if key not in self._provers:
            self._provers[key] = Prover(
                relevant, index_bits=request.index_bits, target=request.target, deadline=self._deadline
            )
        self._prover_of[expr] = self._provers[key]
        return self._provers[key]

    def empty_loops(self) -> list[str]:
        """The loops an obligation read that never run (its goals held vacuously), in binding order."""
        if self._provers is None:
            return []
        division = self._request.division
        empty = {name for prover in self._provers.values() for name in prover.empty_loops(division)}
        return [binding.name for binding in self._request.bindings if binding.name in empty]

    def discharge(self, op: str, axis: int, expr: Expr, goal: Goal, factor: int) -> Verdict:
        """Pose one obligation under the request's division semantics and record its verdict."""
        verdict = self._prover_for(expr).check(expr, goal, factor, self._request.division)
        self._record(op, axis, expr, verdict, factor=factor)
        return verdict

    def discharge_window(self, op: str, axis: int, offset: Expr, extent: Expr, bound: int) -> Verdict:
        """Pose `offset + extent <= bound` (exact) under the request's division and record its verdict."""
        end = add_exact(offset, extent)
        verdict = self._prover_for(end).check_window(offset, extent, bound, self._request.division)
        self._record(op, axis, end, verdict, bound=bound)
        return verdict

    def _record(self, op: str, axis: int, expr: Expr, verdict: Verdict, **limit: int) -> None:
        """Keep one verdict for the response; `limit` is the goal's `factor` or `bound`."""
        self.records.append(
            ObligationRecord(
                op=op,
                axis=axis,
                expr=to_json_value(expr),
                goal=verdict.goal,
                status=verdict.status,
                counterexample=verdict.counterexample,
                reading=reading_record(verdict),
                value=verdict.value,
                **limit,
            )
        )

    def outcome_text(self, verdict: Verdict, expr: Expr) -> str:
        """Why a proof of `expr` did not go through, in words naming the reading and the counterexample."""
        if verdict.status != "refuted":
            return "the prover could not decide it"
        scope = self._prover_for(expr).scope
        return "refuted: " + refutation_text(verdict, format_expr(expr), (expr,), scope)


def reading_record(verdict: Verdict) -> ReadingRecord | None:
    """The protocol record of the reading a refutation breaks under."""
    return None if verdict.reading is None else ReadingRecord.model_validate(verdict.reading.as_json())


@dataclass(frozen=True, slots=True)
class OffsetRules:
    """The codes and wording for one kind of trailing offset (a load/slice offset or a store column).

    Templates take `{axis}`, `{factor}` (e.g. `c0 = 32`), `{value}` or `{expr}` and `{outcome}`.
    """

    unaligned: nz.NzCode
    unprovable_multiple: nz.NzCode
    unprovable_sign: nz.NzCode
    unaligned_text: str
    multiple_text: str
    sign_text: str


LOAD_OFFSET_RULES = OffsetRules(
    nz.OFFSET_UNALIGNED_CONST,
    nz.OFFSET_UNPROVABLE_MULTIPLE,
    nz.OFFSET_UNPROVABLE_SIGN,
    "NZ slice offset on shape[{axis}] must be a non-negative multiple of {factor}, got {value}.",
    "NZ layout requires the slice offset on shape[{axis}] to be a multiple of {factor}, and this one cannot "
    "be proven: {expr} ({outcome}).",
    "NZ layout requires the slice offset on shape[{axis}] to be non-negative, and {expr} cannot be proven "
    "so ({outcome}); a negative coordinate would be clamped to fractal 0 and read the wrong data.",
)


def factor_text(axis: int, factor: int) -> str:
    """How a factor is named in messages: `16` on the row axis, `c0 = N` on the column axis."""
    return str(factor) if axis == -2 else f"c0 = {factor}"


def map_trailing_offset(
    ledger: ProofLedger, site: nz.Site, axis: int, offset: Expr, factor: int, rules: OffsetRules
) -> Expr:
    """The blocked coordinate of one trailing offset: `offset // factor`, or the refusal naming why not."""
    if factor <= 0 or factor & (factor - 1):
        raise nz.refusal(
            nz.INTERNAL_DIVISOR_NOT_POWER_OF_TWO,
            f"Internal error: offset divisor {factor} is not a power of two.",
            site,
        )
    names = {"axis": axis, "factor": factor_text(axis, factor)}
    if isinstance(offset, Const):
        if offset.value < 0 or offset.value % factor:
            raise nz.refusal(
                rules.unaligned, rules.unaligned_text.format(value=offset.value, **names), site, axis=axis
            )
        return Const(offset.value // factor)
    checks: tuple[tuple[Goal, nz.NzCode, str], ...] = (
        ("multiple_of", rules.unprovable_multiple, rules.multiple_text),
        ("non_negative", rules.unprovable_sign, rules.sign_text),
    )
    for goal, code, text in checks:
        verdict = ledger.discharge(site.op or "", axis, offset, goal, factor)
        if verdict.status != "proven":
            outcome = ledger.outcome_text(verdict, offset)
            detail = text.format(expr=format_expr(offset), outcome=outcome, **names)
            raise nz.refusal(
                code,
                detail,
                site,
                axis=axis,
                counterexample=verdict.counterexample,
                reading=reading_record(verdict),
            )
    return floor_div(offset, factor)
