"""`proofs.check` request/response models and the bindings shared by every layout request."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import AfterValidator, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from planner.contract import ContractModel
from planner.proofs.expr import Const, ExpressionError, ExpressionTooDeep, parse_expr


def _check_expression(value: int | str) -> int | str:
    try:
        parse_expr(value)
    except ExpressionTooDeep as exc:
        raise PydanticCustomError("too_deep", str(exc)) from None
    except ExpressionError as exc:
        raise PydanticCustomError("bad_expression", str(exc)) from None
    return value


Expression: TypeAlias = Annotated[int | str, AfterValidator(_check_expression)]


def _literal_value(value: object) -> int | None:
    """The value of an expression that is a literal (`-1` included); None for anything else."""
    if not isinstance(value, int | str):
        return None
    parsed = parse_expr(value)
    return parsed.value if isinstance(parsed, Const) else None


def _fate(start: int | None, stop: int | None) -> str:
    """What a loop with step 0 does, as `range(start, stop, 0)` would run it were it allowed."""
    if start is None or stop is None:
        return "with step 0 the loop never ends (start < stop) or never runs"
    return "with step 0 this loop never ends" if start < stop else "with step 0 this loop never runs"


"""An int or Python expression text over names, `+ - * // %`, `min`, `max` (floor semantics)."""

Identifier: TypeAlias = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=256)]
BitWidth: TypeAlias = Annotated[int, Field(ge=2, le=128)]
Goal: TypeAlias = Literal["multiple_of", "non_negative"]
ProofStatus: TypeAlias = Literal["proven", "refuted", "unknown"]
AscendTargetField: TypeAlias = Literal["a2a3", "a5"] | None


Division: TypeAlias = Literal["floor", "trunc", "either"]
"""How `//` and `%` on signed values are read: floor, truncation toward zero, or both must hold."""


class _BindingBase(ContractModel):
    name: Identifier
    bits: BitWidth | None = None  # default: the request's index width
    signed: bool | None = None  # default true; unsigned widens by zero- (and must hold sign-) extension

    @property
    def is_signed(self) -> bool:
        return self.signed is not False


class AssignBinding(_BindingBase):
    """`name = expr` (SSA scalar)."""

    kind: Literal["assign"] = "assign"
    expr: Expression


class ForBinding(_BindingBase):
    """Loop variable taking the values of `range(start, stop, step)`, counting up or down
    (`planner.proofs.loops`)."""

    kind: Literal["for"] = "for"
    start: Expression
    stop: Expression
    step: Expression = 1

    @field_validator("step")
    @classmethod
    def _nonzero_step(cls, step: int | str, info: ValidationInfo) -> int | str:
        """A literal step of 0 is a bad request, as in Python: said as what the loop would do (a
        symbolic step that is 0 at run time leaves the variable unconstrained)."""
        if _literal_value(step) != 0:
            return step
        start, stop = (_literal_value(info.data.get(bound)) for bound in ("start", "stop"))
        raise PydanticCustomError("bad_step", "step must not be 0: {fate}", {"fate": _fate(start, stop)})


class SpmdBinding(_BindingBase):
    """SPMD lane index in `[0, extent)`."""

    kind: Literal["spmd"] = "spmd"
    extent: Expression


class BlockIdxBinding(_BindingBase):
    """Hardware lane index: non-negative, below the target's maximum block count."""

    kind: Literal["block_idx"] = "block_idx"


class BlockNumBinding(_BindingBase):
    """Hardware lane count: non-negative, at most the target's maximum block count."""

    kind: Literal["block_num"] = "block_num"


class IterArgBinding(_BindingBase):
    """Loop-carried value: never resolved, any value of its width."""

    kind: Literal["iter_arg"] = "iter_arg"


class InductionBinding(_BindingBase):
    """A loop-carried `x = x + step` in loop `loop` (a for/spmd binding): `init + step * i` at iteration i."""

    kind: Literal["induction"] = "induction"
    init: Expression
    step: Expression
    loop: Identifier


class ParamBinding(_BindingBase):
    """Scalar parameter, optionally with a known inclusive range."""

    kind: Literal["param"] = "param"
    min: int | None = None
    max: int | None = None


Binding: TypeAlias = Annotated[
    AssignBinding
    | ForBinding
    | SpmdBinding
    | BlockIdxBinding
    | BlockNumBinding
    | IterArgBinding
    | InductionBinding
    | ParamBinding,
    Field(discriminator="kind"),
]


def _every_goal() -> list[Goal]:
    return ["multiple_of", "non_negative"]


class ProofsCheckRequest(ContractModel):
    expr: Expression
    bindings: list[Binding] = Field(default_factory=list, max_length=16384)
    bits: BitWidth = 64
    factor: Annotated[int, Field(ge=1, le=2**62)] = 16
    goals: list[Goal] = Field(default_factory=_every_goal, min_length=1)
    target: AscendTargetField = None
    division: Division = "floor"


class ReadingRecord(ContractModel):
    """The semantics under which a refuted obligation breaks: how `//`/`%` round, how unsigned widens."""

    division: Literal["floor", "trunc"]
    extension: Literal["zero", "sign"]


class ProofResult(ContractModel):
    goal: Goal
    status: ProofStatus
    counterexample: dict[str, int] | None = None
    reason: str | None = None  # why a result is unknown (resource limit, unsupported width, ...)
    reading: ReadingRecord | None = None  # refuted: the reading that breaks the goal
    value: int | None = None  # refuted: the offset's executed value under the counterexample


class ProofsCheckResponse(ContractModel):
    results: list[ProofResult]
    empty_loops: list[str] = Field(default_factory=list)  # `for` bindings whose range is empty: never run
