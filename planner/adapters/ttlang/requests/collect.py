"""Requirement collection: a `func.func` as `kernelcfg.resolve` ops (docs/design/kernel-config.md 3).

The walk is pre-order over every nested region and never changes the IR. Each tile op
becomes a `KernelOp` whose operands are numbered as in the IR (the `dst[...]` slot index
dropped); each operand says what it is: a tile of a finalized dataflow buffer, the result
of another tile op, a tile with no buffer, a non-tile value, or a buffer with no index.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TypeGuard

from pydantic import ValidationError
from xdsl.dialects.builtin import IntegerAttr, TensorType, UnregisteredOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from planner.adapters.ttlang.base.codes import ATTRIBUTE_INVALID, REQUEST_REJECTED, UNKNOWN_TILE_OP
from planner.adapters.ttlang.dialects.foreign import ForeignOp
from planner.adapters.ttlang.dialects.raw_body import RawBodyAttr
from planner.adapters.ttlang.dialects.ttcore_dialect import TileType, relation_data_type
from planner.adapters.ttlang.dialects.ttl_attrs import CBType, ReduceDimAttr, TileExecutionStrategyAttr
from planner.adapters.ttlang.dialects.ttl_dialect import (
    TileBcastOp,
    TileOp,
    TileReduceOp,
    TileRowNormalizationBlockOp,
)
from planner.adapters.ttlang.dialects.ttl_structure import AttachCBOp, BindCBOp, ComputeOp
from planner.adapters.ttlang.dialects.ttl_unknown import UnknownTtlOp
from planner.adapters.ttlang.dialects.ttl_unmodelled import UnmodelledOp
from planner.adapters.ttlang.reading.source import ParsedChunk
from planner.kernelcfg.protocol import (
    DfbOperand,
    DfbSpec,
    KernelOp,
    Operand,
    ScalarOperand,
    UnattachedOperand,
    UnfinalizedDfbOperand,
    ValueOperand,
)

STRATEGY_ATTR = "ttl.tile_execution_strategy"
EXTRACT, EXTRACT_SLICE = "tensor.extract", "tensor.extract_slice"
"""Matched by name, so reading a kernel without a tensor op never imports xDSL's tensor dialect."""

KernelIROp = TileOp | UnknownTtlOp | UnmodelledOp
"""The ops a request lists: the TTL tile ops, and, so that the resolver refuses them, undefined `ttl.*`
ops handling tiles and the defined ops without semantics that change a kernel's needs."""


@dataclass(frozen=True)
class FinalizedDfb:
    index: int


@dataclass(frozen=True)
class UnfinalizedDfb:
    name: str


DfbIdentity = FinalizedDfb | UnfinalizedDfb


@dataclass(frozen=True)
class CollectedKernel:
    """The request ops of one function, in walk order, and the IR op behind each id."""

    ops: tuple[KernelOp, ...]
    dfbs: tuple[DfbSpec, ...]
    op_by_id: dict[str, Operation]


def tile_data_type(type_: Attribute) -> str | None:
    """The element type of a tile or a tensor of tiles, as the kernel-config relations name it; None for
    anything else (section 3, step 1)."""
    if isinstance(type_, TensorType):
        type_ = type_.element_type
    return relation_data_type(type_.data_type.data) if isinstance(type_, TileType) else None


@cache
def _type_text(type_: Attribute) -> str:
    """A type as MLIR spells it (memoized: printing is slow and kernels repeat few types)."""
    return str(type_)


def _compute_operand_of(argument: BlockArgument) -> SSAValue | None:
    """A `ttl.compute` block argument stands for the compute's operand at its position (ins, then outs)."""
    owner = argument.block.parent_op()
    if isinstance(owner, ComputeOp) and argument.index < len(owner.operands):
        return owner.operands[argument.index]
    return None


def _followed(value: SSAValue) -> SSAValue | None:
    """One step of DFB resolution (section 3): the value a tile or tensor stands for, if any."""
    if isinstance(value, BlockArgument):
        return _compute_operand_of(value)
    owner = value.owner
    if isinstance(owner, Operation) and owner.name in (EXTRACT, EXTRACT_SLICE):
        return owner.operands[0]  # the tensor both read from
    if isinstance(owner, AttachCBOp):
        return owner.cb
    return None


def resolve_dfb(value: SSAValue, name_of: Callable[[SSAValue], str]) -> DfbIdentity | None:
    """The dataflow buffer a tile operand reads, following block arguments, extracts and attachments.

    A `!ttl.cb` value reached but not made by `ttl.bind_cb` with an integer index (a function
    argument, another op's result) is a buffer without a finalized index (section 3).
    """
    current: SSAValue | None = value
    while current is not None:
        owner = current.owner
        if isinstance(current, OpResult) and isinstance(owner, BindCBOp):
            index = owner.cb_index
            if isinstance(index, IntegerAttr):
                return FinalizedDfb(index.value.data)
            return UnfinalizedDfb(name_of(current))
        if isinstance(current.type, CBType):
            return UnfinalizedDfb(name_of(current))
        current = _followed(current)
    return None


def _is_extract(owner: Operation | Block) -> TypeGuard[Operation]:
    """A `tensor.extract`: its operands are the tensor, then the indices."""
    return isinstance(owner, Operation) and owner.name == EXTRACT


def same_tile_coords(lhs: SSAValue, rhs: SSAValue) -> bool:
    """Both operands address the same tile (section 2, FPU eligibility).

    Either both are input block arguments of one `ttl.compute` with equal indexing maps (an
    output argument never qualifies), or both are `tensor.extract` results with the same indices.
    """
    if isinstance(lhs, BlockArgument) and isinstance(rhs, BlockArgument):
        compute = lhs.block.parent_op()
        if rhs.block is not lhs.block or not isinstance(compute, ComputeOp):
            return False
        inputs = len(compute.ins)
        maps = compute.attributes.get("indexing_maps")
        if lhs.index >= inputs or rhs.index >= inputs or maps is None:
            return False
        entries = getattr(maps, "data", ())
        return len(entries) > max(lhs.index, rhs.index) and entries[lhs.index] == entries[rhs.index]
    lhs_op, rhs_op = lhs.owner, rhs.owner
    if _is_extract(lhs_op) and _is_extract(rhs_op):
        return tuple(lhs_op.operands[1:]) == tuple(rhs_op.operands[1:])
    return False


_BCAST_KINDS = {1: "col", 2: "row", 3: "scalar"}
_REDUCE_DIMS = {"reduce_dim_row": "row", "reduce_dim_col": "col", "reduce_dim_scalar": "scalar"}


def _bcast_attrs(op: Operation, parsed: ParsedChunk) -> dict[str, str]:
    """`<col>` or `1 : i32` column, `<row>` or `2` row, `<scalar>` or `3` scalar (section 2)."""
    kind = op.properties.get("bcast_type")
    value = kind.value.data if isinstance(kind, IntegerAttr) else None
    if isinstance(kind, RawBodyAttr) and kind.name == "ttl.bcast_type":
        value = {name: number for number, name in _BCAST_KINDS.items()}.get(kind.body.data[1:-1])
    if value not in _BCAST_KINDS:
        raise parsed.error_at(
            op,
            ATTRIBUTE_INVALID,
            f"'{op.name}' op broadcast kind must be 1 (col), 2 (row) or 3 (scalar), got {kind}",
        )
    return {"kind": _BCAST_KINDS[value]}


def _reduce_attrs(op: Operation, parsed: ParsedChunk) -> dict[str, str]:
    dim = op.properties["reduce_dim"]
    assert isinstance(dim, ReduceDimAttr)
    return {"dim": _REDUCE_DIMS[dim.keyword.data]}


def _row_normalization_attrs(op: Operation, parsed: ParsedChunk) -> dict[str, str | int]:
    """The DST slots it holds (`num_tiles`) and whether it reads `gamma`."""
    assert isinstance(op, TileRowNormalizationBlockOp)
    return {"tiles": op.num_tiles.value.data, "gamma": "true" if op.has_gamma.value.data else "false"}


_ATTRS_BY_OP: dict[type[Operation], Callable[[Operation, ParsedChunk], Mapping[str, str | int]]] = {
    TileBcastOp: _bcast_attrs,
    TileReduceOp: _reduce_attrs,
    TileRowNormalizationBlockOp: _row_normalization_attrs,
}


def explicit_strategy(op: Operation) -> str | None:
    """The strategy named by the op's attribute; an attribute of another kind is passed on as written."""
    attr = op.attributes.get(STRATEGY_ATTR)
    if attr is None:
        return None
    if isinstance(attr, TileExecutionStrategyAttr):
        return attr.keyword.data
    return str(attr)


class _FunctionCollector:
    """Walks one function, naming ops and describing their operands."""

    def __init__(self, function: FuncOp, parsed: ParsedChunk) -> None:
        self.function = function
        self.parsed = parsed
        self.id_of: dict[Operation, str] = {}
        self.ids: set[str] = set()
        self.dfb_types: dict[int, str] = {}

    def value_name(self, value: SSAValue) -> str:
        """The SSA name a value was written with (`%b`), or its position when it has none."""
        owner = value.owner
        if isinstance(value, OpResult) and isinstance(owner, Operation):
            names = self.parsed.site(owner).result_names
            if len(names) == len(owner.results):
                return names[value.index]
        return f"%{value.name_hint or '?'}"

    def op_id(self, op: KernelIROp, position: int) -> str:
        """The op's tile result name without `%` when unique in the function, else `<mnemonic>#<position>`."""
        names = self.parsed.site(op).result_names
        tile_results = [i for i, result in enumerate(op.results) if tile_data_type(result.type) is not None]
        if names and len(names) == len(op.results):
            candidate = names[tile_results[0] if tile_results else 0].lstrip("%")
            if candidate not in self.ids:
                return candidate
        return f"{op.name.removeprefix('ttl.')}#{position}"

    def operand(self, value: SSAValue) -> Operand:
        data_type = tile_data_type(value.type)
        if data_type is None:
            return ScalarOperand(scalar=_type_text(value.type))
        dfb = resolve_dfb(value, self.value_name)
        if isinstance(dfb, FinalizedDfb):
            self.dfb_types.setdefault(dfb.index, data_type)
            return DfbOperand(dfb=dfb.index)
        if isinstance(dfb, UnfinalizedDfb):
            return UnfinalizedDfbOperand(dfb_unfinalized=dfb.name)
        producer = value.owner
        if isinstance(producer, KernelIROp) and producer in self.id_of:
            return ValueOperand(value=self.id_of[producer])
        return UnattachedOperand(unattached=data_type)

    def kernel_op(self, op: KernelIROp) -> KernelOp:
        operands = op.tile_data_operands()
        result_types = [tile_data_type(result.type) for result in op.results]
        attrs = _ATTRS_BY_OP.get(type(op))
        try:
            return KernelOp(
                id=self.id_of[op],
                op=op.name.removeprefix("ttl."),
                operands=[self.operand(value) for value in operands],
                result_dtype=next((t for t in result_types if t is not None), None),
                same_tile_coords=len(operands) >= 2 and same_tile_coords(operands[0], operands[1]),
                explicit_strategy=explicit_strategy(op),
                attrs=dict(attrs(op, self.parsed)) if attrs is not None else {},
            )
        except ValidationError as error:
            problem = error.errors()[0]
            field = ".".join(str(part) for part in problem["loc"])
            message = f"'{op.name}' op cannot be described in a request: {field}: {problem['msg']}"
            raise self.parsed.error_at(op, REQUEST_REJECTED, message) from None

    def declare_bound_dfbs(self) -> None:
        """Every finalized `ttl.bind_cb`, read by a tile op or not, so a suggested new index is free."""
        for op in self.function.walk():
            if isinstance(op, BindCBOp) and isinstance(op.cb_index, IntegerAttr):
                data_type = tile_data_type(op.result.type.element_type)
                if data_type is not None:
                    self.dfb_types.setdefault(op.cb_index.value.data, data_type)

    def collect(self) -> CollectedKernel:
        ops: list[KernelOp] = []
        for op in self.function.walk():
            if isinstance(op, UnregisteredOp | ForeignOp):
                _refuse_foreign_tiles(op, self.parsed)
            if isinstance(op, UnknownTtlOp) and not _handles_tiles(op):
                continue
            if isinstance(op, UnmodelledOp) and not op.refused():
                continue
            if isinstance(op, KernelIROp):
                self.id_of[op] = self.op_id(op, len(ops))
                self.ids.add(self.id_of[op])
                ops.append(self.kernel_op(op))
        self.declare_bound_dfbs()
        dfbs = tuple(DfbSpec(index=i, dtype=t) for i, t in sorted(self.dfb_types.items()))
        return CollectedKernel(tuple(ops), dfbs, {op_id: op for op, op_id in self.id_of.items()})


def _handles_tiles(op: Operation) -> bool:
    """An operand or result is a `!ttcore.tile`: the op works inside a compute body."""
    return any(isinstance(value.type, TileType) for value in (*op.operands, *op.results))


def _refuse_foreign_tiles(op: UnregisteredOp | ForeignOp, parsed: ParsedChunk) -> None:
    """Another dialect's op is ignored unless it handles tiles: then its requirements are unknown
    and planning around it would be unsound."""
    values = (*op.operands, *op.results)
    if all(tile_data_type(value.type) is None for value in values):
        return
    name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
    raise parsed.error_at(
        op,
        UNKNOWN_TILE_OP,
        f"'{name}' op reads or produces tiles but is not a TTL tile op, so its kernel-config "
        "requirements are unknown; express it with ttl tile ops",
    )


def collect_kernel(function: FuncOp, parsed: ParsedChunk) -> CollectedKernel:
    """The request ops and dataflow buffers of one function (section 3)."""
    return _FunctionCollector(function, parsed).collect()
