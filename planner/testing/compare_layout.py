"""Compare a `layout.plan` answer with the planner's: acceptance, refusal code, every coordinate.

Acceptance is compared first: a pass that accepts what the planner refuses (or refuses
what it accepts) disagrees, whatever else it says. When both refuse, the first error's code
must match (docs/design/protocol.md: every refusal names its cause). When both accept, every
blocked tensor and every planned op must match, each symbolic coordinate semantically
(`planner.testing.equivalence`): `n0 // 16` and `nb * 16` differ where `nb * 256` wraps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from planner.layout.protocol import Diagnostic, LayoutPlanRequest, LayoutPlanResponse, PlannedOp, StoreChunk
from planner.testing.disagreement import Disagreement
from planner.testing.equivalence import Context, first_difference
from planner.testing.impl import JsonObject

_OP_LISTS = ("offsets", "shapes", "valid_shape", "partition")
_CHUNK_LISTS = ("offsets", "partition")


def compare_layout(
    request: LayoutPlanRequest, planned: JsonObject, answered: JsonObject
) -> list[Disagreement]:
    """Every way `answered` differs from the planner's `planned` response to `request`."""
    ours = LayoutPlanResponse.model_validate(planned)
    try:
        theirs = LayoutPlanResponse.model_validate(answered)
    except ValidationError as exc:
        return [Disagreement("response", f"not a layout.plan response: {exc}")]
    if ours.ok != theirs.ok:
        return [Disagreement("ok", f"the planner {_verdict(ours)} but the implementation {_verdict(theirs)}")]
    if not ours.ok:
        return _compare_refusals(ours, theirs)
    context = Context(request.bindings, request.index_bits, request.target)
    return [
        *_compare_tensors(ours, theirs, context),
        *_compare_ops(ours.ops, theirs.ops, context),
        *_compare_exact("attrs", ours.attrs, theirs.attrs),
    ]


def _verdict(response: LayoutPlanResponse) -> str:
    if response.ok:
        return "accepts the request"
    first = _first_error(response)
    return (
        "refuses with no error diagnostic" if first is None else f"refuses it: [{first.code}] {first.message}"
    )


def _first_error(response: LayoutPlanResponse) -> Diagnostic | None:
    return next((d for d in response.diagnostics if d.severity == "error"), None)


def _first_code(response: LayoutPlanResponse) -> str | None:
    first = _first_error(response)
    return None if first is None else first.code


def _compare_refusals(ours: LayoutPlanResponse, theirs: LayoutPlanResponse) -> list[Disagreement]:
    if _first_code(ours) == _first_code(theirs):
        return []
    return [
        Disagreement(
            "diagnostics[0].code", f"the planner {_verdict(ours)} but the implementation {_verdict(theirs)}"
        )
    ]


def _compare_tensors(
    ours: LayoutPlanResponse, theirs: LayoutPlanResponse, context: Context
) -> list[Disagreement]:
    found = _compare_names("tensors", [t.name for t in ours.tensors], [t.name for t in theirs.tensors])
    by_name = {t.name: t for t in theirs.tensors}
    for tensor in ours.tensors:
        other = by_name.get(tensor.name)
        if other is None:
            continue
        where = f"tensors[{tensor.name}]"
        found += _compare_exact(f"{where}.layout", tensor.layout, other.layout)
        found += _compare_lists(f"{where}.shape", tensor.shape, other.shape, context)
        found += _compare_lists(f"{where}.strides", tensor.strides, other.strides, context)
    return found


def _compare_ops(
    ours: Sequence[PlannedOp], theirs: Sequence[PlannedOp], context: Context
) -> list[Disagreement]:
    found = _compare_names("ops", [op.id for op in ours], [op.id for op in theirs])
    by_id = {op.id: op for op in theirs}
    for op in ours:
        other = by_id.get(op.id)
        if other is None:
            continue
        where = f"ops[{op.id}]"
        found += _compare_exact(f"{where}.op", op.op, other.op)
        found += _compare_exact(f"{where}.kept", op.kept, other.kept)
        for field in _OP_LISTS:
            found += _compare_lists(f"{where}.{field}", getattr(op, field), getattr(other, field), context)
        found += _compare_chunks(f"{where}.chunks", op.chunks, other.chunks, context)
    return found


def _compare_chunks(
    where: str, ours: list[StoreChunk] | None, theirs: list[StoreChunk] | None, context: Context
) -> list[Disagreement]:
    if ours is None or theirs is None or len(ours) != len(theirs):
        return _compare_exact(f"{where} count", _count(ours), _count(theirs))
    found: list[Disagreement] = []
    for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
        found += _compare_lists(
            f"{where}[{index}].col_offset", [mine.col_offset], [other.col_offset], context
        )
        found += _compare_exact(f"{where}[{index}].n", mine.n, other.n)
        for field in _CHUNK_LISTS:
            found += _compare_lists(
                f"{where}[{index}].{field}", getattr(mine, field), getattr(other, field), context
            )
    return found


def _count(items: list[StoreChunk] | None) -> int | None:
    return None if items is None else len(items)


def _compare_lists(
    where: str, ours: Sequence[int | str] | None, theirs: Sequence[int | str] | None, context: Context
) -> list[Disagreement]:
    """Two coordinate lists: same presence and length, then every entry the same function."""
    if ours is None or theirs is None or len(ours) != len(theirs):
        return _compare_exact(where, ours, theirs)
    found = []
    for axis, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
        difference = first_difference(mine, other, context)
        if difference is not None:
            text = difference.describe(f"the planner's {mine!r}", f"the implementation's {other!r}")
            found.append(Disagreement(f"{where}[{axis}]", text))
    return found


def _compare_names(where: str, ours: Sequence[str], theirs: Sequence[str]) -> list[Disagreement]:
    missing, extra = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
    if not missing and not extra:
        return []
    return [Disagreement(where, f"the implementation omits {missing} and adds {extra}")]


def _compare_exact(where: str, ours: Any, theirs: Any) -> list[Disagreement]:
    if ours == theirs:
        return []
    return [Disagreement(where, f"the planner answers {ours!r} but the implementation {theirs!r}")]
