"""The TTL dialect by op name: the op families and the ops made from `OpSpec` records are defined
(accessors, assembly format) the first time a text names them.

Defining an xDSL op costs about half a millisecond, mostly its declarative assembly format, and
those ops are nine in ten of the dialect while a kernel uses a handful; so `ttl_op` defines one
on demand and `TTLangContext` (`context`) asks it for the names a text uses. The op classes
written out in `ttl_structure` and `ttl_dialect` are defined on import, as requirement
collection and other code use them directly. `ttl_dialect()` is the whole dialect, for tools
that load dialects whole (the `xdsl.universe` entry).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, partial
from threading import Lock

from xdsl.ir import Attribute, Dialect
from xdsl.irdl import IRDLOperation

from planner.adapters.ttlang.dialects import ttl_movement, ttl_tensor, ttl_unmodelled
from planner.adapters.ttlang.dialects.op_table import OpSpec, define
from planner.adapters.ttlang.dialects.ttl_attrs import (
    CBType,
    DstType,
    ReduceDimAttr,
    TileExecutionStrategyAttr,
)
from planner.adapters.ttlang.dialects.ttl_dialect import (
    BINARY_MNEMONICS,
    UNARY_MNEMONICS,
    BinaryTileOp,
    CopyTileOp,
    DstIndexOp,
    TileAccumulateOp,
    TileBcastOp,
    TileFillOp,
    TileMatmulBlockOp,
    TileMulUnaryConstOp,
    TileReduceOp,
    TileRowNormalizationBlockOp,
    TileStoreOp,
    TileTransposeOp,
    UnaryTileOp,
    family_op,
)
from planner.adapters.ttlang.dialects.ttl_structure import STRUCTURE_OPS

TTL_ATTRIBUTES: tuple[type[Attribute], ...] = (CBType, DstType, TileExecutionStrategyAttr, ReduceDimAttr)

_Definer = Callable[[], type[IRDLOperation]]
_WRITTEN_TILE_OPS: tuple[type[IRDLOperation], ...] = (
    TileBcastOp, TileReduceOp, TileRowNormalizationBlockOp, TileMatmulBlockOp, TileFillOp, CopyTileOp,
    TileStoreOp, DstIndexOp, TileTransposeOp, TileAccumulateOp, TileMulUnaryConstOp,
)  # fmt: skip


def _from_specs(
    specs: Iterable[OpSpec], module: str, base: type[IRDLOperation] = IRDLOperation
) -> dict[str, _Definer]:
    """Definers of the ops of `specs`, each op class placed in the module (by name) holding its record."""
    return {f"ttl.{spec.mnemonic}": partial(define, spec, module, base) for spec in specs}


_FAMILIES: dict[str, _Definer] = {
    **{f"ttl.{name}": partial(family_op, name, UnaryTileOp) for name in UNARY_MNEMONICS},
    **{f"ttl.{name}": partial(family_op, name, BinaryTileOp) for name in BINARY_MNEMONICS},
}
_RECORDS = (
    _from_specs(ttl_tensor.TENSOR_SPECS, ttl_tensor.__name__)
    | _from_specs(ttl_movement.MOVEMENT_SPECS, ttl_movement.__name__)
    | _from_specs(ttl_unmodelled.UNMODELLED_SPECS, ttl_unmodelled.__name__, ttl_unmodelled.UnmodelledOp)
)
_TOPK = {
    f"ttl.{name}": partial(ttl_unmodelled.topk_op, name, *keywords)
    for name, keywords in ttl_unmodelled.TOPK_KEYWORDS.items()
}
_RECORDS |= _TOPK
_DEFINERS = _FAMILIES | _RECORDS
_STRUCTURE = {op.name: op for op in (*STRUCTURE_OPS, ttl_unmodelled.KernelOp)}
_WRITTEN = {op.name: op for op in _WRITTEN_TILE_OPS}
TTL_OP_NAMES = (*_STRUCTURE, *_FAMILIES, *_WRITTEN, *_RECORDS)
"""Every TTL op, in the dialect's order."""
_defined: dict[str, type[IRDLOperation]] = _STRUCTURE | _WRITTEN
_defining = Lock()


def ttl_op(name: str) -> type[IRDLOperation] | None:
    """The TTL op called `name` (defined once, on first use); None when TTL has no such op."""
    op = _defined.get(name)
    if op is not None or name not in _DEFINERS:
        return op
    with _defining:
        if name not in _defined:
            _defined[name] = _DEFINERS[name]()
        return _defined[name]


@cache
def ttl_dialect() -> Dialect:
    """Every TTL op and attribute (each op defined now)."""
    ops = [ttl_op(name) for name in TTL_OP_NAMES]
    return Dialect("ttl", [op for op in ops if op is not None], list(TTL_ATTRIBUTES))
