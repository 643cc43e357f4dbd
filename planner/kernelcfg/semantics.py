"""Tile-op execution semantics (docs/design/kernel-config.md section 2) as one registry.

Adding a tile op is adding one `SEMANTICS` entry; the analysis keeps no other op-name list.
An op without an entry does not implement the execution interface and is refused
(`kcfg.op_semantics_unknown`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, TypeAlias

from pydantic import JsonValue

from planner.errors import RequestError
from planner.kernelcfg.codes import OP_SEMANTICS_UNKNOWN, KcfgError, op_message
from planner.targets.tenstorrent import FullFp32Kind, Primitive, Route


class Strategy(StrEnum):
    FPU = "fpu"
    SFPU = "sfpu"


DST_IF_PRODUCED: Literal["dst_if_produced"] = (
    "dst_if_produced"  # tile_accumulate op1: Dst when a tile op produced it, else DFB
)
RouteSpec: TypeAlias = Route | Literal["dst_if_produced"]


@dataclass(frozen=True, slots=True)
class StrategyOption:
    """One legal execution strategy of a choice op and the operand routes it implies."""

    strategy: Strategy
    routes: tuple[Route, ...]
    accumulates: bool


@dataclass(frozen=True, slots=True)
class OpSemantics:
    """What one tile op reports through the execution interface (target-independent)."""

    primitive: Primitive
    routes: tuple[RouteSpec, ...] = ()  # per operand; operands past the end route None
    choices: tuple[StrategyOption, ...] = ()  # non-empty: a strategy-dependent op
    result_in_dst: bool = True
    full_fp32: FullFp32Kind | None = None
    accumulates: bool = False
    initializes: tuple[int, ...] = ()  # DST operands the lowering initializes itself
    slots_attr: str | None = None  # attrs key giving the required DST slots (default 1)
    # Read once per op: derived when the entry is built, not per request.
    is_choice: bool = field(init=False, repr=False, compare=False)
    arity: int = field(init=False, repr=False, compare=False)  # a choice op's operand count
    by_strategy: Mapping[Strategy, StrategyOption] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_choice", bool(self.choices))
        object.__setattr__(self, "arity", max((len(option.routes) for option in self.choices), default=0))
        object.__setattr__(self, "by_strategy", {option.strategy: option for option in self.choices})


@dataclass(frozen=True, slots=True)
class AttrVariants:
    """Ops whose primitive depends on an attribute (broadcast kind, reduce dimension)."""

    attr: str
    variants: Mapping[str, OpSemantics]
    default: str | None = None  # the variant of a request that leaves `attr` out


_DFB, _DST, _NONE = Route.DFB, Route.DST, Route.NONE

_CHOICE_BINARY = OpSemantics(
    Primitive.ELEMENTWISE_BINARY,
    choices=(
        StrategyOption(Strategy.FPU, (_DFB, _DFB), accumulates=True),
        StrategyOption(Strategy.SFPU, (_DST, _DST), accumulates=False),
    ),
)
_FIXED_BINARY = OpSemantics(Primitive.ELEMENTWISE_BINARY, (_DST, _DST))
_UNARY = OpSemantics(Primitive.ELEMENTWISE_UNARY, (_DST,))
_UNARY_OPS = (
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "recip",
    "tanh",
    "sigmoid",
    "neg",
    "abs",
    "relu",
    "gelu",
    "silu",
    "sin",
    "cos",
    "square",
    "floor",
    "typecast",
    "exp2",
    "tan",
    "asin",
    "acos",
    "atan",
    "ceil",
    "sign",
    "hardsigmoid",
    "expm1",
    "softsign",
    "signbit",
    "frac",
    "trunc",
    "mul_unary_const",  # MultiplyByConstant: a DST operand, related by the targets like any unary op
)


def _bcast(primitive: Primitive) -> OpSemantics:
    return OpSemantics(primitive, (_DFB, _NONE))


def _reduce(kind: FullFp32Kind) -> OpSemantics:
    return OpSemantics(Primitive.REDUCE, (_DFB, _DFB, _NONE), full_fp32=kind)


SEMANTICS: dict[str, OpSemantics | AttrVariants] = {
    "tile_add": _CHOICE_BINARY,
    "tile_sub": _CHOICE_BINARY,
    "tile_mul": _CHOICE_BINARY,
    "tile_max": _FIXED_BINARY,
    "tile_min": _FIXED_BINARY,
    "tile_div": _FIXED_BINARY,
    **{f"tile_{name}": _FIXED_BINARY for name in ("eq", "ne", "gt", "lt")},
    **{f"tile_{name}": _UNARY for name in _UNARY_OPS},
    "copy_tile": OpSemantics(Primitive.COPY, (_DFB,)),
    "copy_dst": OpSemantics(Primitive.COPY, (_DST,)),
    "dst_index": OpSemantics(Primitive.DST_INDEX, result_in_dst=False),
    "tile_store": OpSemantics(Primitive.STORE, (_DST,), result_in_dst=False),
    "tile_bcast": AttrVariants(
        "kind",
        {
            "col": _bcast(Primitive.BROADCAST_COLUMN),
            "row": _bcast(Primitive.BROADCAST_ROW),
            "scalar": _bcast(Primitive.BROADCAST_SCALAR),
            "1": _bcast(Primitive.BROADCAST_COLUMN),
            "2": _bcast(Primitive.BROADCAST_ROW),
            "3": _bcast(Primitive.BROADCAST_SCALAR),
        },
    ),
    "tile_reduce": AttrVariants(
        "dim",
        {
            "row": _reduce(FullFp32Kind.REDUCE_ROW),
            "col": _reduce(FullFp32Kind.REDUCE_COLUMN),
            "scalar": _reduce(FullFp32Kind.REDUCE_SCALAR),
        },
    ),
    "tile_row_normalization_block": AttrVariants(
        "gamma",
        {
            "true": OpSemantics(Primitive.REDUCE, (_DFB, _DFB, _NONE), slots_attr="tiles"),
            "false": OpSemantics(Primitive.REDUCE, (_DFB, _NONE, _NONE), slots_attr="tiles"),
        },
        default="true",
    ),
    "tile_transpose": OpSemantics(Primitive.TRANSPOSE, (_DFB,)),
    "tile_fill": OpSemantics(Primitive.FILL),
    "tile_matmul_block": OpSemantics(
        Primitive.MATMUL,
        (_DFB, _DFB, _DST),
        full_fp32=FullFp32Kind.MATMUL,
        accumulates=True,
        initializes=(2,),
    ),
    "tile_accumulate": OpSemantics(Primitive.ELEMENTWISE_BINARY, (_DST, DST_IF_PRODUCED), accumulates=True),
}


def semantics_for(op_id: str, mnemonic: str, attrs: Mapping[str, JsonValue]) -> OpSemantics:
    """The op's semantics, or `kcfg.op_semantics_unknown` when it has none (section 2)."""
    entry = SEMANTICS.get(mnemonic)
    if entry is None:
        raise KcfgError(
            OP_SEMANTICS_UNKNOWN,
            op_message(mnemonic, "does not implement TileExecutionOpInterface"),
            "op",
            op_id,
        )
    if isinstance(entry, OpSemantics):
        return entry
    value = attrs.get(entry.attr, entry.default)
    chosen = entry.variants.get(str(value)) if isinstance(value, (str, int)) else None
    if chosen is None:
        expected = ", ".join(sorted(entry.variants))
        raise RequestError(
            "request.invalid",
            f"op '{op_id}' ({mnemonic}) needs attrs.{entry.attr} in {{{expected}}}, got {value!r}",
        )
    return chosen
