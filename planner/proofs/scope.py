"""What a binding list declares: each name's width and the facts that bound it (docs/design/nz-layout.md 7.3).

A `Scope` is the validated, parsed form of an ordered binding list. Both the Z3 encoding and
the concrete evaluator read the same `Declaration` records, one per binding, so the rule
for each binding kind is stated once per semantics:

| kind | admissible values of `v` (at its own width) |
|---|---|
| assign | `v == expr` (any value if `expr` divides by zero) |
| for | a value of `range(start, stop, step)`, either sign (`planner.proofs.loops`); any value for step 0 |
| spmd | `0 <= v < extent` (any value if `extent` divides by zero) |
| block_idx | `0 <= v < max_block_count` with a target, `v >= 0` without |
| block_num | `0 <= v <= max_block_count` with a target, `v >= 0` without |
| iter_arg | any value |
| induction | `v == init + step * i`, `i` the iteration of `loop`: `(value - start) // step`, or the lane |
| param | `min <= v <= max`, either side optional |

Every operand is typed by `planner.proofs.dtype` and cast to the binding's dtype, as the IR's
assignment would (so an INT8 `x = 300` holds 44). Only the request's declared numeric fields
(loop start/stop/step, SPMD extents, param min/max) must fit the binding's dtype: they are
declarations, not computations. Names read but never bound are unconstrained INDEX values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from planner.proofs import errors
from planner.proofs.dtype import Dtype, type_of
from planner.proofs.expr import Const, Expr, ExpressionError, free_names, parse_expr
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    BlockNumBinding,
    ForBinding,
    InductionBinding,
    ParamBinding,
    SpmdBinding,
)
from planner.targets.ascend import ASCEND_TARGETS

MIN_BITS = 2
MAX_BITS = 128


@dataclass(frozen=True, slots=True)
class Declaration:
    """One binding, parsed: `operands` are its expressions, `low`/`high` its constant bounds.

    Operands by kind: assign `(expr,)`, for `(start, stop, step)`, spmd `(extent,)`, induction
    `(init, step)` (with `loop` naming its loop's binding), others `()`. `low`/`high` are
    inclusive and `None` where the side is open.
    """

    name: str
    kind: str
    dtype: Dtype
    operands: tuple[Expr, ...]
    low: int | None
    high: int | None
    loop: str | None = None

    @property
    def bits(self) -> int:
        return self.dtype.bits


@dataclass(frozen=True, slots=True)
class Scope:
    """A validated binding list: declarations in order plus the width of every name."""

    declarations: tuple[Declaration, ...]
    index_bits: int
    dtypes: Mapping[str, Dtype]
    _types: dict[Expr, Dtype] = field(default_factory=dict, compare=False, repr=False)
    _by_name: dict[str, Declaration] = field(default_factory=dict, compare=False, repr=False)

    @property
    def index(self) -> Dtype:
        return Dtype(self.index_bits, True)

    def dtype(self, name: str) -> Dtype:
        """The dtype a name's value lives at: its binding's, else INDEX."""
        return self.dtypes.get(name) or self.index

    def width(self, name: str) -> int:
        return self.dtype(name).bits

    def type_of(self, expr: Expr) -> Dtype:
        """The IR dtype of `expr` (see `planner.proofs.dtype`), memoised per expression."""
        if expr not in self._types:
            self._types[expr] = type_of(expr, self.dtype, self.index)
        return self._types[expr]

    def declaration(self, name: str) -> Declaration | None:
        """The binding of `name` (indexed on first use: long binding lists stay linear)."""
        if not self._by_name:
            self._by_name.update((decl.name, decl) for decl in self.declarations)
        return self._by_name.get(name)

    def free_names(self, expr: Expr) -> tuple[str, ...]:
        """Every name an assignment must give a value to (bound, or read unbound), sorted."""
        bound = [decl.name for decl in self.declarations]
        operands = [op for decl in self.declarations for op in decl.operands]
        return tuple(sorted(set(bound).union(free_names(expr), *map(free_names, operands))))


def check_width(bits: int, what: str) -> int:
    """Reject widths the encoding does not support, naming the accepted range."""
    if isinstance(bits, bool) or not isinstance(bits, int) or not MIN_BITS <= bits <= MAX_BITS:
        raise errors.ProofError(
            errors.BAD_WIDTH, f"{what} must be an int in [{MIN_BITS}, {MAX_BITS}], got {bits!r}"
        )
    return bits


def lane_limit(target: str | None) -> int | None:
    """The target's maximum block count, or None when no target bounds the lanes."""
    if target is None:
        return None
    if target not in ASCEND_TARGETS:
        raise errors.ProofError(
            errors.BAD_TARGET, f"unknown target {target!r}: expected one of {sorted(ASCEND_TARGETS)} or None"
        )
    return ASCEND_TARGETS[target].max_block_count


def _parse(value: int | str | Expr, where: str) -> Expr:
    try:
        return parse_expr(value)
    except ExpressionError as exc:
        raise errors.ProofError(errors.BAD_EXPRESSION, f"{where}: {exc}") from None


def _operands(binding: Binding) -> tuple[Expr, ...]:
    where = f"binding {binding.name!r}"
    if isinstance(binding, AssignBinding):
        return (_parse(binding.expr, where),)
    if isinstance(binding, ForBinding):
        return tuple(_parse(value, where) for value in (binding.start, binding.stop, binding.step))
    if isinstance(binding, SpmdBinding):
        return (_parse(binding.extent, where),)
    if isinstance(binding, InductionBinding):
        return (_parse(binding.init, where), _parse(binding.step, where))
    return ()


def _declared_numbers(binding: Binding) -> tuple[int, ...]:
    """The numeric fields a request declares for a binding (not computed: they must fit its dtype)."""
    if isinstance(binding, ForBinding):
        fields: tuple[int | str | None, ...] = (binding.start, binding.stop, binding.step)
    elif isinstance(binding, SpmdBinding):
        fields = (binding.extent,)
    elif isinstance(binding, ParamBinding):
        fields = (binding.min, binding.max)
    else:
        return ()
    parsed = (parse_expr(field) for field in fields if field is not None)
    return tuple(expr.value for expr in parsed if isinstance(expr, Const))


def _bounds(binding: Binding, limit: int | None) -> tuple[int | None, int | None]:
    if isinstance(binding, BlockIdxBinding):
        return 0, None if limit is None else limit - 1
    if isinstance(binding, BlockNumBinding):
        return 0, limit
    if isinstance(binding, ParamBinding):
        return binding.min, binding.max
    return None, None


def _declare(
    binding: Binding, index_bits: int, limit: int | None, bound: set[str], earlier: set[str]
) -> Declaration:
    if binding.name in earlier:
        raise errors.ProofError(
            errors.DUPLICATE_BINDING, f"{binding.name!r} is bound twice: give each SSA value its own name"
        )
    operands = _operands(binding)
    read = {name for op in operands for name in free_names(op)}
    if isinstance(binding, InductionBinding):
        read.add(binding.loop)
        if binding.loop not in bound:
            raise errors.ProofError(
                errors.BAD_LOOP, f"induction {binding.name!r} names loop {binding.loop!r}, which is not bound"
            )
    ahead = sorted(name for name in read if name in bound and name not in earlier)
    if ahead:
        raise errors.ProofError(
            errors.FORWARD_REFERENCE,
            f"binding {binding.name!r} reads {ahead} before they are bound: list bindings in program order",
        )
    bits = index_bits if binding.bits is None else check_width(binding.bits, f"bits of {binding.name!r}")
    dtype = Dtype(bits, binding.is_signed)
    outside = [value for value in _declared_numbers(binding) if not dtype.holds(value)]
    if outside:
        raise errors.ProofError(
            errors.OUT_OF_WIDTH,
            f"binding {binding.name!r} declares {outside[0]}, outside its {dtype.describe()} range "
            f"[{dtype.low}, {dtype.high}]",
        )
    low, high = _bounds(binding, limit)
    loop = binding.loop if isinstance(binding, InductionBinding) else None
    return Declaration(binding.name, binding.kind, dtype, operands, low, high, loop)


def bindings_read_by(bindings: Sequence[Binding], expr: Expr) -> tuple[Binding, ...]:
    """The bindings `expr` reads, directly or through their operands, in program order.

    Only these facts hold wherever `expr` is evaluated: another binding may be a loop that
    does not enclose the evaluation, and that loop may be empty, so its facts (or the
    contradiction of its empty range) say nothing about `expr`. Assumes the list has no
    forward reads (`make_scope` rejects those), so one backward sweep closes the set.
    """
    needed = set(free_names(expr))
    kept: list[Binding] = []
    for binding in reversed(bindings):
        if binding.name in needed:
            kept.append(binding)
            needed.update(name for operand in _operands(binding) for name in free_names(operand))
            if isinstance(binding, InductionBinding):
                needed.add(binding.loop)
    return tuple(reversed(kept))


def make_scope(bindings: Sequence[Binding], index_bits: int, target: str | None) -> Scope:
    """Validate and parse an ordered binding list (duplicates and forward reads are typed errors)."""
    check_width(index_bits, "index_bits")
    limit = lane_limit(target)
    bound = {binding.name for binding in bindings}
    earlier: set[str] = set()
    declarations = []
    kinds = {binding.name: binding.kind for binding in bindings}
    for binding in bindings:
        declarations.append(_declare(binding, index_bits, limit, bound, earlier))
        earlier.add(binding.name)
        if isinstance(binding, InductionBinding) and kinds[binding.loop] not in ("for", "spmd"):
            raise errors.ProofError(
                errors.BAD_LOOP,
                f"induction {binding.name!r} names {binding.loop!r}, a {kinds[binding.loop]} binding: "
                "expected a for or spmd loop",
            )
    return Scope(tuple(declarations), index_bits, {decl.name: decl.dtype for decl in declarations})
