"""The resolution state and step 4's batch application (docs/design/kernel-config.md section 6).

The state is a set of width candidates; each candidate holds, per DFB, the still-allowed
unpack modes and the first use that constrained it; plus the 32-bit and 16-bit evidence, the
sync modes the policy allows and the largest DST slot demand applied (a width stays a
candidate only while one of those sync modes gives it that many slots, 4.6).
Every write goes through a trail so a search can undo to a mark instead of copying.
Conflicts are typed records carrying their evidence; `planner.kernelcfg.messages` words them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypeVar, cast

from planner.kernelcfg.requirements import DestinationUse, DFBInputUse, SlotUse, UseBatch
from planner.targets.tenstorrent import SYNC_MODES, WIDTHS, KernelTargetEnvironment, UnpackMode

FUNCTION: Literal["function"] = "function"
Evidence: TypeAlias = DestinationUse | Literal["function"] | None


@dataclass(frozen=True, slots=True)
class UnsupportedDestination:
    use: DestinationUse


@dataclass(frozen=True, slots=True)
class DestinationWidthConflict:
    evidence32: Evidence
    evidence16: Evidence


@dataclass(frozen=True, slots=True)
class ExplicitUnpackConflict:
    use: DFBInputUse
    required: UnpackMode


@dataclass(frozen=True, slots=True)
class DFBUnpackConflict:
    first: DFBInputUse
    second: DFBInputUse


@dataclass(frozen=True, slots=True)
class UnsupportedDFBConfiguration:
    use: DFBInputUse


@dataclass(frozen=True, slots=True)
class DstSlotsExceeded:
    """No width and sync left gives `use` its slots; `available` is the most any candidate had."""

    use: SlotUse
    available: int


@dataclass(frozen=True, slots=True)
class PrecisionLossUnavoidable:
    """precision=exact, and `use` reads f32 lossily on every route left to its op (`choice`: a
    strategy-dependent op with no lossless option)."""

    use: DFBInputUse
    choice: bool


ConflictRecord: TypeAlias = (
    UnsupportedDestination
    | DestinationWidthConflict
    | ExplicitUnpackConflict
    | DFBUnpackConflict
    | UnsupportedDFBConfiguration
    | DstSlotsExceeded
    | PrecisionLossUnavoidable
)

_ALL_MODES = frozenset(UnpackMode)
_MISSING = object()
_V = TypeVar("_V")


class KernelState:
    """Width candidates with per-DFB mode sets, evidence, and an undo trail."""

    __slots__ = ("ev16", "ev32", "first_use", "modes", "slots", "syncs", "trail", "widths")

    def __init__(self, widths: Iterable[int], syncs: Iterable[str] = SYNC_MODES) -> None:
        self.widths: set[int] = set(widths)
        self.syncs: tuple[str, ...] = tuple(syncs)  # fixed for a search: the policy's sync modes
        self.slots = 0  # the largest DST slot demand applied so far
        self.modes: dict[tuple[int, int], frozenset[UnpackMode]] = {}  # (width, dfb) -> modes
        self.first_use: dict[tuple[int, int], DFBInputUse] = {}
        self.ev32: Evidence = None
        self.ev16: Evidence = None
        self.trail: list[tuple[str, object, object]] = []

    def mark(self) -> int:
        return len(self.trail)

    def undo(self, mark: int) -> None:
        """Restore every write made since `mark`, newest first."""
        trail = self.trail
        while len(trail) > mark:
            kind, key, old = trail.pop()
            if kind == "width":
                self.widths.add(key)  # type: ignore[arg-type]
            elif kind == "modes":
                _restore(self.modes, key, old)  # type: ignore[arg-type]
            elif kind == "first":
                _restore(self.first_use, key, old)  # type: ignore[arg-type]
            elif kind == "ev32":
                self.ev32 = old  # type: ignore[assignment]
            elif kind == "slots":
                self.slots = old  # type: ignore[assignment]
            else:
                self.ev16 = old  # type: ignore[assignment]

    def erase_width(self, width: int) -> None:
        self.widths.discard(width)
        self.trail.append(("width", width, None))

    def set_modes(self, width: int, dfb: int, modes: frozenset[UnpackMode], use: DFBInputUse | None) -> None:
        """Record `modes` (and `use` as the first constraint); None: a summary commit, no provenance."""
        key = (width, dfb)
        old = self.modes.get(key, _MISSING)
        if old == modes:
            return  # unchanged: neither a trail entry nor a reason to re-count neighbours
        self.trail.append(("modes", key, old))
        self.modes[key] = modes
        if use is not None and key not in self.first_use:
            self.trail.append(("first", key, _MISSING))
            self.first_use[key] = use

    def set_evidence(self, bits: int, evidence: Evidence) -> None:
        if bits == 32:
            self.trail.append(("ev32", None, self.ev32))
            self.ev32 = evidence
        else:
            self.trail.append(("ev16", None, self.ev16))
            self.ev16 = evidence

    def raise_slots(self, slots: int) -> None:
        self.trail.append(("slots", None, self.slots))
        self.slots = slots

    def unpack_dfbs(self, width: int) -> list[int]:
        """6.9: DFBs whose mode set at `width` is exactly unpack-to-DST, ascending."""
        only_unpack = frozenset({UnpackMode.UNPACK_TO_DEST})
        return sorted(dfb for (w, dfb), modes in self.modes.items() if w == width and modes == only_unpack)


def _restore(table: dict[tuple[int, int], _V], key: tuple[int, int], old: object) -> None:
    if old is _MISSING:
        del table[key]
    else:
        table[key] = cast(_V, old)


Demand: TypeAlias = tuple[tuple[int, frozenset[UnpackMode]], ...]  # (DFB or slot, modes it may keep) per read
Demands: TypeAlias = tuple[tuple[int, Demand], ...]  # (width, demand) per width candidate kept
Room: TypeAlias = Callable[[tuple[str, ...], int, int], bool]  # (sync modes, width, slots) -> has room
MAX_SHAPES = 4096  # folded shapes an applier's table keeps (a table may be shared across requests)


class BatchSummary:
    """Per width candidate a batch can keep, the unpack modes it leaves each DFB it reads.

    A candidate survives `Applier.apply` exactly when every destination use allows its width
    and each read DFB keeps a mode in the intersection of the batch's demands with the state's
    recorded modes; so `fits` answers "would `apply` succeed" without applying. The demands
    name DFBs by slot (`dfbs[slot]`), so batches of one shape share them.
    """

    __slots__ = ("demands", "dfbs", "room", "slots")

    def __init__(
        self, demands: Demands, dfbs: tuple[int, ...], slots: int = 0, room: Room | None = None
    ) -> None:
        self.demands = demands
        self.dfbs = dfbs
        self.slots = slots  # the batch's largest slot demand (0: none)
        self.room = room  # answers whether a width has `slots` slots under a state's sync modes

    @property
    def by_width(self) -> dict[int, Demand]:
        """The demands per width, naming DFBs."""
        dfbs = self.dfbs
        return {width: tuple((dfbs[slot], modes) for slot, modes in d) for width, d in self.demands}

    def fits(self, state: KernelState) -> bool:
        widths, recorded, dfbs = state.widths, state.modes, self.dfbs
        for width, demand in self.demands:
            if width not in widths or not self._roomy(state, width):
                continue
            for slot, modes in demand:
                if not modes & recorded.get((width, dfbs[slot]), _ALL_MODES):
                    break
            else:
                return True
        return False

    def commit(self, state: KernelState) -> bool:
        """Apply the batch's effect on widths and modes (no conflict provenance); False if none survives."""
        dfbs, recorded, demands = self.dfbs, state.modes, dict(self.demands)
        for width in sorted(state.widths):
            demand = demands.get(width)
            if (
                demand is None
                or not self._roomy(state, width)
                or not all(m & recorded.get((width, dfbs[s]), _ALL_MODES) for s, m in demand)
            ):
                state.erase_width(width)
                continue
            for slot, modes in demand:
                dfb = dfbs[slot]
                state.set_modes(width, dfb, modes & recorded.get((width, dfb), _ALL_MODES), None)
        if self.slots > state.slots and state.widths:
            state.raise_slots(self.slots)
        return bool(state.widths)

    def _roomy(self, state: KernelState, width: int) -> bool:
        """Whether `width` keeps the batch's slots under the state's sync modes (no demand: always)."""
        return self.room is None or self.slots <= state.slots or self.room(state.syncs, width, self.slots)


def _keeps(
    recorded: dict[tuple[int, int], frozenset[UnpackMode]],
    width: int,
    demand: Demand,
) -> bool:
    """Each demanded DFB keeps a mode at `width` (a plain loop: this is the search's inner test)."""
    for dfb, modes in demand:  # noqa: SIM110
        if not modes & recorded.get((width, dfb), _ALL_MODES):
            return False
    return True


@dataclass(frozen=True, slots=True)
class Applier:
    """Applies use batches under one target and one explicit unpack set (6.4)."""

    target: KernelTargetEnvironment
    explicit_unpack: frozenset[int] | None
    explicit_scope: frozenset[int] | None = None  # DFBs the explicit set speaks for; None: all
    shapes: dict[object, Demands] = field(default_factory=dict, compare=False, repr=False)

    def explicit_applies(self, use: DFBInputUse) -> bool:
        """The explicit set constrains f32 DFBs only; entries for other types are inert."""
        if self.explicit_unpack is None or not use.elem.is_f32:
            return False
        return self.explicit_scope is None or use.dfb in self.explicit_scope

    def apply(self, state: KernelState, batch: UseBatch) -> ConflictRecord | None:
        """All destination uses, then all DFB uses, then the slot demands, each in collection
        order; stop at a conflict."""
        applied: set[tuple[object, ...]] = set()  # a use like one applied before changes nothing
        for use in batch.destination:
            kind = (use.primitive, use.elem.name)
            if kind in applied:
                continue
            applied.add(kind)
            conflict = self.apply_destination(state, use)
            if conflict is not None:
                return conflict
        for dfb_use in batch.dfb:
            read = (dfb_use.dfb, dfb_use.primitive, dfb_use.route, dfb_use.elem.name)
            if read in applied:
                continue
            applied.add(read)
            conflict = self.apply_dfb(state, dfb_use)
            if conflict is not None:
                return conflict
        for slot_use in batch.slots:
            conflict = self.apply_slots(state, slot_use)
            if conflict is not None:
                return conflict
        return None

    def has_room(self, syncs: tuple[str, ...], width: int, slots: int) -> bool:
        """Whether one of `syncs` gives `slots` DST slots at `width` (4.6)."""
        return any(self.target.dst_slots(width, sync) >= slots for sync in syncs)

    def apply_slots(self, state: KernelState, use: SlotUse) -> ConflictRecord | None:
        """Keep the widths some allowed sync gives `use.slots` slots; none left: the slots conflict."""
        if use.slots <= state.slots:
            return None
        available = max(
            (self.target.dst_slots(width, sync) for width in state.widths for sync in state.syncs), default=0
        )
        for width in sorted(state.widths):
            if not self.has_room(state.syncs, width, use.slots):
                state.erase_width(width)
        if not state.widths:
            return DstSlotsExceeded(use, available)
        state.raise_slots(use.slots)
        return None

    def summarize(self, batch: UseBatch) -> BatchSummary:
        """`batch` folded per width candidate: what `apply` would demand of each (see `BatchSummary`).

        Batches of one shape (their uses, DFBs numbered by first read) are folded once.
        """
        dfbs = tuple(dict.fromkeys([use.dfb for use in batch.dfb]))
        explicit = () if self.explicit_unpack is None else tuple([self.configured(use) for use in batch.dfb])
        slots = max([use.slots for use in batch.slots], default=0)
        shape = (
            tuple([(use.primitive, use.elem.name) for use in batch.destination]),
            tuple([(dfbs.index(use.dfb), use.primitive, use.route, use.elem.name) for use in batch.dfb]),
            explicit,
            slots,
        )
        folded = self.shapes.get(shape)
        if folded is None:
            folded = self._fold(batch, dfbs, slots)
            if len(self.shapes) < MAX_SHAPES:
                self.shapes[shape] = folded
        return BatchSummary(folded, dfbs, slots, self.has_room if slots else None)

    def _fold(self, batch: UseBatch, dfbs: tuple[int, ...], slots: int) -> Demands:
        """Per width the batch can keep (under some sync mode), the modes it leaves each DFB (named
        by its slot in `dfbs`)."""
        demands: list[tuple[int, Demand]] = []
        for width in WIDTHS:
            if not all(self.destination_allows(use, width) for use in batch.destination):
                continue
            if not self.has_room(SYNC_MODES, width, slots):
                continue
            modes: dict[int, frozenset[UnpackMode]] = {}
            for use in batch.dfb:
                slot = dfbs.index(use.dfb)
                modes[slot] = modes.get(slot, _ALL_MODES) & self.allowed_modes(use, width)
            if all(modes.values()):
                demands.append((width, tuple(modes.items())))
        return tuple(demands)

    def destination_allows(self, use: DestinationUse, width: int) -> bool:
        if width == 16 and use.elem.is_32bit:
            return False
        return self.target.supports_destination_width(use.primitive, use.elem, width)

    def apply_destination(self, state: KernelState, use: DestinationUse) -> ConflictRecord | None:
        s16 = self.destination_allows(use, 16)
        s32 = self.destination_allows(use, 32)
        if not (s16 or s32):
            return UnsupportedDestination(use)
        if use.elem.is_32bit and state.ev32 is None:
            state.set_evidence(32, use)
        if not s32 and state.ev16 is None:
            state.set_evidence(16, use)
        for width, allowed in ((16, s16), (32, s32)):
            if not allowed and width in state.widths:
                state.erase_width(width)
        if not state.widths:
            return DestinationWidthConflict(state.ev32, state.ev16)
        return None

    def apply_dfb(self, state: KernelState, use: DFBInputUse) -> ConflictRecord | None:
        conflict: ConflictRecord | None = None
        for width in sorted(state.widths):
            key = (width, use.dfb)
            allowed = self.allowed_modes(use, width) & state.modes.get(key, _ALL_MODES)
            if allowed:
                state.set_modes(width, use.dfb, allowed, use)
                continue
            state.erase_width(width)
            if conflict is None:
                conflict = self._dfb_conflict(state, use, key)
        return conflict if not state.widths else None

    def allowed_modes(self, use: DFBInputUse, width: int) -> frozenset[UnpackMode]:
        """The unpack modes the target pairs at `width` and the explicit set leave this use (6.4)."""
        pairs = self.target.supported_dfb_configurations(use.primitive, use.route, use.elem)
        return frozenset(mode for w, mode in pairs if w == width) & self.configured(use)

    def configured(self, use: DFBInputUse) -> frozenset[UnpackMode]:
        """The modes the explicit set leaves this use (all modes where it does not apply)."""
        if not self.explicit_applies(use):
            return _ALL_MODES
        assert self.explicit_unpack is not None
        listed = use.dfb in self.explicit_unpack
        return frozenset({UnpackMode.UNPACK_TO_DEST if listed else UnpackMode.DEFAULT})

    def _dfb_conflict(self, state: KernelState, use: DFBInputUse, key: tuple[int, int]) -> ConflictRecord:
        if self.explicit_applies(use):
            pairs = self.target.supported_dfb_configurations(use.primitive, use.route, use.elem)
            modes = {mode for _, mode in pairs}
            required = UnpackMode.UNPACK_TO_DEST if UnpackMode.UNPACK_TO_DEST in modes else UnpackMode.DEFAULT
            return ExplicitUnpackConflict(use, required)
        first = state.first_use.get(key)
        if first is not None:
            return DFBUnpackConflict(first, use)
        return UnsupportedDFBConfiguration(use)
