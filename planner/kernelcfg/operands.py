"""Section 3's operand resolution: what tile a routed operand is, and which DFB holds it.

Reads the request's DFB table and producer ops (docs/design/kernel-config.md 3): a DFB
operand names its buffer and element type; a value operand is the DST-resident result of
another op, whose element type follows `result_dtype` or its first tile operand.
"""

from __future__ import annotations

from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from typing import TypeVar

from planner.errors import RequestError, excerpt
from planner.kernelcfg.codes import OPERAND_NOT_TILE, KcfgError, op_message
from planner.kernelcfg.protocol import (
    DfbOperand,
    KernelcfgResolveRequest,
    KernelOp,
    Operand,
    ScalarOperand,
    UnattachedOperand,
    UnfinalizedDfbOperand,
    ValueOperand,
)
from planner.targets.tenstorrent import TT_DTYPES, TtDtype


@dataclass(slots=True, unsafe_hash=True)
class Tile:
    """A tile operand as section 3 sees it: its element, its DFB if it resolves.

    A value like the uses (not frozen only because frozen instances take longer to build).
    """

    elem: TtDtype
    dfb: int | None
    unfinalized: bool
    produced: bool  # the DST-resident result of another tile op


_K = TypeVar("_K")
_V = TypeVar("_V")


def _unique(entries: list[tuple[_K, _V]], duplicate: str) -> dict[_K, _V]:
    """`entries` as a table; a key given twice is a bad request (`duplicate` names it)."""
    table: dict[_K, _V] = {}
    for key, value in entries:
        if key in table:
            raise RequestError("request.invalid", duplicate.format(key))
        table[key] = value
    return table


class OperandResolver:
    """Resolves operands against the request's DFB table and producer ops."""

    def __init__(self, request: KernelcfgResolveRequest) -> None:
        specs = _unique([(spec.index, spec) for spec in request.dfbs], "dfbs lists index {} twice")
        self.dfb_dtypes = {index: _dtype(spec.dtype, f"dfbs[{index}]") for index, spec in specs.items()}
        self.ops_by_id = _unique([(op.id, op) for op in request.ops], "duplicate op id '{}'")
        _refuse_value_cycles(request.ops)
        self.result_elems: dict[str, TtDtype] = {}

    def tile(self, op: KernelOp, number: int, operand: Operand) -> Tile:
        """Section 3 step 1: operand `number` must be a tile (or tensor of tiles) to be routed."""
        if isinstance(operand, DfbOperand):
            elem = self.dfb_dtypes.get(operand.dfb)
            if elem is None:
                raise RequestError(
                    "request.invalid", f"op '{op.id}' reads DFB {operand.dfb}, absent from dfbs"
                )
            return Tile(elem, operand.dfb, False, False)
        if isinstance(operand, ValueOperand):
            return Tile(self.result_elem(self._producer(op, operand)), None, False, True)
        if isinstance(operand, UnattachedOperand) and operand.unattached in TT_DTYPES:
            return Tile(TT_DTYPES[operand.unattached], None, False, False)
        if isinstance(operand, UnfinalizedDfbOperand):
            return Tile(TT_DTYPES["f32"], None, True, False)
        got = operand.scalar if isinstance(operand, ScalarOperand) else operand.unattached
        raise KcfgError(
            OPERAND_NOT_TILE,
            op_message(op.op, f"expected a tile or tensor-of-tiles operand, got '{got}'"),
            "op",
            op.id,
            number,
        )

    def result_elem(self, op: KernelOp) -> TtDtype:
        """The result element type: `result_dtype`, else the first tile operand's (followed iteratively)."""
        known = self.result_elems.get(op.id)
        if known is not None:
            return known
        chain: list[str] = []
        current = op
        while current.id not in self.result_elems:
            if current.id in chain:
                raise RequestError(
                    "request.invalid", f"op '{op.id}': result_dtype is needed (values form a cycle)"
                )
            chain.append(current.id)
            if current.result_dtype is not None:
                self.result_elems[current.id] = _dtype(current.result_dtype, current.id)
                break
            number, source = next(
                (
                    (n, o)
                    for n, o in enumerate(current.operands)
                    if not isinstance(o, (ScalarOperand, UnfinalizedDfbOperand))
                ),
                (0, None),
            )
            if source is None:
                raise RequestError(
                    "request.invalid",
                    f"op '{current.id}' needs result_dtype (no tile operand to take it from)",
                )
            if not isinstance(source, ValueOperand):
                self.result_elems[current.id] = self.tile(current, number, source).elem
                break
            current = self._producer(current, source)
        elem = self.result_elems[current.id]
        self.result_elems.update(dict.fromkeys(chain, elem))
        return elem

    def _producer(self, op: KernelOp, operand: ValueOperand) -> KernelOp:
        producer = self.ops_by_id.get(operand.value)
        if producer is None or producer.id == op.id:
            raise RequestError("request.invalid", f"op '{op.id}' uses unknown value '{operand.value}'")
        return producer


def _refuse_value_cycles(ops: list[KernelOp]) -> None:
    """Values flow from producer to consumer as in SSA, so an op cannot read, through any chain of
    values, its own result; a request whose value operands form a cycle describes no program."""
    producers = {
        op.id: [o.value for o in op.operands if isinstance(o, ValueOperand) and o.value != op.id]
        for op in ops
    }
    if not any(producers.values()):
        return  # no value operand at all: nothing can form a cycle
    try:
        TopologicalSorter(producers).prepare()
    except CycleError as exc:
        chain = " -> ".join(f"'{op_id}'" for op_id in reversed(exc.args[1]))
        raise RequestError("request.invalid", f"value operands form a cycle: {excerpt(chain)}") from None


def _dtype(name: str, where: str) -> TtDtype:
    dtype = TT_DTYPES.get(name)
    if dtype is None:
        known = ", ".join(sorted(TT_DTYPES))
        raise RequestError(
            "request.unknown_dtype", f"{where}: unknown element type '{name}' (known: {known})"
        )
    return dtype
