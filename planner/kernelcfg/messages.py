"""The wording of a typed conflict record: section 8's code, message, location and note.

Deciding keeps evidence (`planner.kernelcfg.state`); saying it is this module's job, so the
search never builds a message it may throw away (docs/design/kernel-config.md 8).
"""

from __future__ import annotations

from planner.kernelcfg.codes import (
    DFB_CONFIG_UNSUPPORTED,
    DFB_UNPACK_CONFLICT,
    DST_SLOTS_EXCEEDED,
    DST_WIDTH_CONFLICT,
    DST_WIDTH_DISABLED_CONFLICT,
    DST_WIDTH_EXPLICIT_UNSUPPORTED,
    DST_WIDTH_UNSUPPORTED,
    EXPLICIT_UNPACK_CONFLICT,
    PRECISION_LOSS_UNAVOIDABLE,
    KcfgError,
    Note,
    op_message,
)
from planner.kernelcfg.requirements import DestinationUse
from planner.kernelcfg.state import (
    FUNCTION,
    ConflictRecord,
    DestinationWidthConflict,
    DFBUnpackConflict,
    DstSlotsExceeded,
    ExplicitUnpackConflict,
    PrecisionLossUnavoidable,
    UnsupportedDestination,
)
from planner.targets.tenstorrent import UnpackMode

DESCRIBED_CODES = frozenset(
    {
        DST_WIDTH_DISABLED_CONFLICT,
        DST_WIDTH_CONFLICT,
        DST_WIDTH_EXPLICIT_UNSUPPORTED,
        DST_WIDTH_UNSUPPORTED,
        EXPLICIT_UNPACK_CONFLICT,
        DFB_UNPACK_CONFLICT,
        DFB_CONFIG_UNSUPPORTED,
        DST_SLOTS_EXCEEDED,
        PRECISION_LOSS_UNAVOIDABLE,
    }
)
"""Every code `describe` gives: the search's conflicts, the ones a refusal explains with records."""


def _bcast_note(use: DestinationUse) -> Note:
    return Note(
        use.op,
        use.operand,
        f"the target does not support 32-bit destination elements for ttl.{use.mnemonic} "
        f"with '{use.elem.name}' elements",
    )


def _width_conflict(conflict: DestinationWidthConflict) -> KcfgError:
    """Section 8's width-conflict message selection."""
    ev32, ev16 = conflict.evidence32, conflict.evidence16
    note = _bcast_note(ev16) if isinstance(ev16, DestinationUse) else None
    if ev16 == FUNCTION and isinstance(ev32, DestinationUse):
        text = (
            "requires 32-bit destination elements, but fp32 destination accumulation is explicitly disabled"
        )
        return KcfgError(
            DST_WIDTH_DISABLED_CONFLICT, op_message(ev32.mnemonic, text), "op", ev32.op, ev32.operand
        )
    if isinstance(ev32, DestinationUse):
        text = (
            "requires 32-bit destination elements, "
            "but no kernel-wide destination width supports all tile operations"
        )
        return KcfgError(
            DST_WIDTH_CONFLICT, op_message(ev32.mnemonic, text), "op", ev32.op, ev32.operand, note
        )
    text = "explicit 32-bit destination elements are unsupported by the kernel's tile operations"
    return KcfgError(DST_WIDTH_EXPLICIT_UNSUPPORTED, text, "function", note=note)


def _precision_conflict(conflict: PrecisionLossUnavoidable) -> KcfgError:
    """6.10: the op, its lossy read, and what would make it lossless."""
    use = conflict.use
    if conflict.choice:
        route = "through SrcA/SrcB on every strategy left to it"
        fix = "the SFPU strategy (reading the buffer unpacked to DST), bf16 input or another dataflow buffer"
    else:
        route, fix = "only through SrcA/SrcB", "an SFPU alternative, bf16 input or another dataflow buffer"
    text = (
        f"operand {use.operand} reads f32 dataflow buffer {use.dfb} {route} (TF32 at most), but "
        f"precision=exact requires every f32 operand without loss; {fix} would make it lossless"
    )
    return KcfgError(PRECISION_LOSS_UNAVOIDABLE, op_message(use.mnemonic, text), "op", use.op, use.operand)


def describe(conflict: ConflictRecord) -> KcfgError:
    """Render a typed conflict with section 8's code, wording, location and note."""
    if isinstance(conflict, DestinationWidthConflict):
        return _width_conflict(conflict)
    if isinstance(conflict, UnsupportedDestination):
        dest = conflict.use
        text = f"has no target-supported destination element width for '{dest.elem.name}' elements"
        return KcfgError(DST_WIDTH_UNSUPPORTED, op_message(dest.mnemonic, text), "op", dest.op, dest.operand)
    if isinstance(conflict, ExplicitUnpackConflict):
        use = conflict.use
        if conflict.required is UnpackMode.UNPACK_TO_DEST:
            text = "requires unpack-to-DST-f32 mode, but ttl.unpack_to_dest_fp32 excludes this index"
        else:
            text = "requires default unpack mode, but ttl.unpack_to_dest_fp32 includes this index"
        message = op_message(use.mnemonic, f"dataflow buffer {use.dfb} {text}")
        return KcfgError(EXPLICIT_UNPACK_CONFLICT, message, "op", use.op, use.operand)
    if isinstance(conflict, PrecisionLossUnavoidable):
        return _precision_conflict(conflict)
    if isinstance(conflict, DstSlotsExceeded):
        slots = conflict.use
        text = (
            f"requires {slots.slots} simultaneous DST slots, but at most {conflict.available} are "
            "available under the kernel configuration"
        )
        return KcfgError(DST_SLOTS_EXCEEDED, op_message(slots.mnemonic, text), "op", slots.op)
    if isinstance(conflict, DFBUnpackConflict):
        first, second = conflict.first, conflict.second
        note = Note(
            first.op, first.operand, f"operand {first.operand} establishes the conflicting unpack mode"
        )
        message = op_message(
            second.mnemonic, f"dataflow buffer {second.dfb} requires incompatible unpack modes in one kernel"
        )
        return KcfgError(DFB_UNPACK_CONFLICT, message, "op", second.op, second.operand, note)
    use = conflict.use
    text = (
        f"dataflow buffer {use.dfb} has no target-supported destination-width and unpack-route configuration"
    )
    return KcfgError(DFB_CONFIG_UNSUPPORTED, op_message(use.mnemonic, text), "op", use.op, use.operand)
