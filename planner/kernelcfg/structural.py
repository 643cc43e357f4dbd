"""Structural corrections: changes to the kernel itself that keep its results bit-identical.

Split (docs/design/kernel-config.md section 1: one unpack setting per DFB for the whole kernel): two
consumers of one DFB that need different settings cannot both be served. Reading one of
them from a copy of the buffer in a free DFB index (the producer, or a data-movement
kernel, writes the same tiles there too) gives that consumer its own setting. Only DFBs
read by at least two ops of the minimal conflicting set qualify: moving the sole reader of
a DFB cannot separate anything.

Widen (section 4.3: a non-32-bit broadcast input forbids 32-bit destination elements on
Wormhole B0 and Blackhole): a bf16 or f16 broadcast that keeps a kernel needing 32-bit
DST from resolving can broadcast an f32 copy of its input instead, with a new typecast
narrowing its result back for its users. Widening bf16/f16 to f32 is exact, a broadcast
only replicates values and narrowing them back is exact again, so every user sees the same
tiles. The opposite change (computing an f32 op on a bf16 copy) changes the results and is
never suggested.

The new index is the lowest one within the target's capacity (section 4.2) that the
request neither declares in `dfbs` nor names in `ttl.unpack_to_dest_fp32` (a request should
therefore declare every index its function binds); with no such index no structural
correction is offered, since there is no change to suggest.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from planner.kernelcfg.protocol import (
    DfbOperand,
    DfbSpec,
    KernelcfgResolveRequest,
    KernelOp,
    Operand,
    ValueOperand,
)
from planner.kernelcfg.requirements import (
    ChoiceOption,
    DestinationUse,
    DFBInputUse,
    KernelRequirements,
    UseBatch,
)
from planner.targets.tenstorrent import BROADCASTS, KernelTargetEnvironment

RequestEdit = Callable[[KernelcfgResolveRequest], KernelcfgResolveRequest]
RequirementsEdit = Callable[[KernelRequirements], KernelRequirements]

MAX_STRUCTURAL = 6  # bounds the corrections offered (each one costs a resolution)
WIDE = "f32"


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A change in a compiler engineer's terms and the request edit that makes it.

    `collected`, when present, is the same edit on the collected requirements of the
    unchanged request: checking the change then skips collecting the whole kernel again.
    """

    change: str
    edit: RequestEdit
    collected: RequirementsEdit | None = None


def free_dfb_index(request: KernelcfgResolveRequest, capacity: int) -> int | None:
    """The lowest index in `[0, capacity - 1]` that the kernel and its policy leave unused."""
    taken = {spec.index for spec in request.dfbs} | set(request.policy.unpack_to_dest_fp32 or ())
    return next((index for index in range(capacity) if index not in taken), None)


def _with_dfb(request: KernelcfgResolveRequest, index: int, dtype: str) -> list[DfbSpec]:
    return sorted([*request.dfbs, DfbSpec(index=index, dtype=dtype)], key=lambda spec: spec.index)


def _dtype_of(request: KernelcfgResolveRequest, dfb: int) -> str:
    return next(spec.dtype for spec in request.dfbs if spec.index == dfb)


def _reroute(op: KernelOp, operand: int, to: Operand) -> KernelOp:
    operands = list(op.operands)
    operands[operand] = to
    return op.model_copy(update={"operands": operands})


def _split_edit(read: DFBInputUse, index: int) -> RequestEdit:
    def edit(request: KernelcfgResolveRequest) -> KernelcfgResolveRequest:
        dfbs = _with_dfb(request, index, _dtype_of(request, read.dfb))
        ops = [
            _reroute(op, read.operand, DfbOperand(dfb=index)) if op.id == read.op else op
            for op in request.ops
        ]
        return request.model_copy(update={"dfbs": dfbs, "ops": ops})

    return edit


def _moved(read: DFBInputUse, index: int) -> RequirementsEdit:
    """What collecting the split request gives: the same uses, `read`'s now on DFB `index`.

    The copy has the DFB's element type, so element types, legal strategies and every other
    use are unchanged (docs/design/kernel-config.md section 3).
    """

    def move(use: DFBInputUse) -> DFBInputUse:
        return replace(use, dfb=index) if (use.op, use.operand) == (read.op, read.operand) else use

    def batch(uses: UseBatch) -> UseBatch:
        return UseBatch(uses.destination, tuple(move(use) for use in uses.dfb), uses.slots)

    def edit(requirements: KernelRequirements) -> KernelRequirements:
        choices = tuple(
            replace(c, options=tuple(ChoiceOption(o.strategy, batch(o.uses)) for o in c.options))
            for c in requirements.choices
        )
        return KernelRequirements(
            batch(requirements.fixed), choices, requirements.fp32_uses, requirements.walk_order
        )

    return edit


def shared_reads(reads: Iterable[DFBInputUse]) -> list[DFBInputUse]:
    """One use per operand (first occurrence order) of the DFBs that two or more ops read.

    Two operands of one op never need different settings of one DFB (an option routes both
    the same way), so a DFB read only by one op is not shared.
    """
    unique: dict[tuple[str, int], DFBInputUse] = {}
    readers: dict[int, set[str]] = {}
    for read in reads:
        unique.setdefault((read.op, read.operand), read)
        readers.setdefault(read.dfb, set()).add(read.op)
    return [read for read in unique.values() if len(readers[read.dfb]) > 1]


def _split(read: DFBInputUse, index: int, where: str) -> Suggestion:
    change = (
        f"read operand {read.operand} of ttl.{read.mnemonic} '{read.op}' from its own dataflow "
        f"buffer: a copy of DFB {read.dfb} in new index {index} {where}"
    )
    return Suggestion(change, _split_edit(read, index), _moved(read, index))


@dataclass(frozen=True, slots=True)
class NarrowBroadcast:
    """A bf16/f16 broadcast `result` whose input is DFB `dfb` of the same element type."""

    result: DestinationUse
    dfb: int


def narrow_broadcasts(
    request: KernelcfgResolveRequest, results: Iterable[DestinationUse]
) -> list[NarrowBroadcast]:
    """The widening candidates among `results` (first occurrence order, one per op)."""
    sources = {op.id: op.operands[0] for op in request.ops if op.operands}
    dtypes = {spec.index: spec.dtype for spec in request.dfbs}
    found: dict[str, NarrowBroadcast] = {}
    for use in results:
        source = sources.get(use.op)
        if not (use.operand is None and use.primitive in BROADCASTS and isinstance(source, DfbOperand)):
            continue
        if use.elem.is_float and not use.elem.is_32bit and dtypes.get(source.dfb) == use.elem.name:
            found.setdefault(use.op, NarrowBroadcast(use, source.dfb))
    return list(found.values())


def _fresh_id(request: KernelcfgResolveRequest, base: str) -> str:
    taken = {op.id for op in request.ops}
    return next(name for name in (f"{base}{n or ''}" for n in itertools.count()) if name not in taken)


def _widen_edit(bcast: DestinationUse, index: int, narrowed: str) -> RequestEdit:
    """The broadcast reads the f32 copy and yields f32; its users read the typecast back instead."""
    produced, back_value = ValueOperand(value=bcast.op), ValueOperand(value=narrowed)
    back = KernelOp(id=narrowed, op="tile_typecast", operands=[produced], result_dtype=bcast.elem.name)

    def rewired(op: KernelOp) -> list[KernelOp]:
        if op.id == bcast.op:
            return [_reroute(op, 0, DfbOperand(dfb=index)).model_copy(update={"result_dtype": WIDE}), back]
        operands = [back_value if operand == produced else operand for operand in op.operands]
        return [op.model_copy(update={"operands": operands})]

    def edit(request: KernelcfgResolveRequest) -> KernelcfgResolveRequest:
        ops = [new for op in request.ops for new in rewired(op)]
        return request.model_copy(update={"dfbs": _with_dfb(request, index, WIDE), "ops": ops})

    return edit


def _widen(request: KernelcfgResolveRequest, bcast: NarrowBroadcast, index: int, where: str) -> Suggestion:
    use, elem = bcast.result, bcast.result.elem.name
    narrowed = _fresh_id(request, f"{use.op}_narrowed")
    change = (
        f"broadcast in {WIDE}: ttl.{use.mnemonic} '{use.op}' reads operand 0 from a copy of DFB "
        f"{bcast.dfb} widened to {WIDE} in new index {index} {where} and yields {WIDE} tiles; a new "
        f"ttl.tile_typecast '{narrowed}' narrows them back to '{elem}' for its users "
        f"({elem} -> {WIDE} -> {elem} is exact)"
    )
    return Suggestion(change, _widen_edit(use, index, narrowed))


def structural_suggestions(
    request: KernelcfgResolveRequest,
    target: KernelTargetEnvironment,
    reads: Iterable[DFBInputUse],
    destinations: Iterable[DestinationUse],
) -> list[Suggestion]:
    """At most `MAX_STRUCTURAL` suggestions: splits of the shared reads, then widened broadcasts."""
    index = free_dfb_index(request, target.dfb_capacity)
    if index is None:
        return []
    where = f"(the lowest undeclared index within {target.capacity_description})"
    splits = [_split(read, index, where) for read in shared_reads(reads)]
    widens = [_widen(request, bcast, index, where) for bcast in narrow_broadcasts(request, destinations)]
    return (splits + widens)[:MAX_STRUCTURAL]
