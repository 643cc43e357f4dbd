"""The plan of a source file as compiler-style notes (nz-layout.md section 18).

Source is reported, not rewritten: the user's program stays logical and the compiler blocks
it. Each NZ tensor gets a note at its declaration (blocked shape and strides), each access a
note at its position (the blocked offsets and shapes of what it lowers to), each proof
obligation a note at its access (goal, expression and status). `--report` carries the same
entries as JSON, each with its line and column.
"""

from __future__ import annotations

import re
from typing import Any

from planner.adapters.pypto.apply import render_value
from planner.adapters.pypto.model import FunctionModel
from planner.adapters.pypto.source import SourcePosition, SourceText
from planner.layout.protocol import LayoutPlanResponse, ObligationRecord, PlannedOp, PlannedTensor

_SPACES = re.compile(r"\s+")
_PLANNED_LISTS = ("offsets", "shapes", "valid_shape", "partition")


def source_notes(
    model: FunctionModel, response: LayoutPlanResponse, source: SourceText
) -> list[dict[str, Any]]:
    """The note entries of one planned function, in source order (ties: tensors, accesses, obligations)."""
    spelling = model.planned.spelling
    tensors = [_tensor_note(model, tensor, spelling) for tensor in response.tensors if tensor.layout == "NZ"]
    memories = {op.id: getattr(op, "target_memory", None) for op in model.planned.request.ops}
    accesses = [
        _access_note(model, op, source, spelling, memories.get(op.id))
        for op in response.ops
        if op.id in model.op_sites
    ]
    obligations = [
        _obligation_note(model, record, spelling)
        for record in response.obligations
        if record.op in model.op_sites
    ]
    notes = [*tensors, *accesses, *obligations]
    return sorted(notes, key=lambda note: (note["line"], note["column"]))  # stable: ties keep the order above


def render_note(filename: str, note: dict[str, Any]) -> str:
    return f"{filename}:{note['line']}:{note['column']}: note: {note['message']}"


def _located(position: SourcePosition, kind: str, message: str, **fields: Any) -> dict[str, Any]:
    return {"line": position.line, "column": position.column, "kind": kind, "message": message, **fields}


def _tensor_note(model: FunctionModel, tensor: PlannedTensor, spelling: dict[str, str]) -> dict[str, Any]:
    position = model.planned.tensor_positions.get(tensor.name, model.planned.position)
    name = spelling.get(tensor.name, tensor.name)
    shape, strides = _rendered(tensor.shape, spelling), _rendered(tensor.strides, spelling)
    message = f"NZ tensor {name!r}: blocked shape {shape}, strides {strides}"
    return _located(position, "tensor", message, tensor=name, shape=tensor.shape, strides=tensor.strides)


def _access_note(
    model: FunctionModel, op: PlannedOp, source: SourceText, spelling: dict[str, str], memory: str | None
) -> dict[str, Any]:
    site = model.op_sites[op.id]
    written = _SPACES.sub(" ", source.segment(site.call))
    if op.kept:
        return _located(site.position, "access", f"{written}: {op.op} kept as written", op=op.op, kept=True)
    lists = {name: getattr(op, name) for name in _PLANNED_LISTS if getattr(op, name) is not None}
    parts = [f"{name} {_rendered(values, spelling)}" for name, values in lists.items()]
    for chunk in op.chunks or []:
        parts.append(
            f"chunk at column {render_value(chunk.col_offset, spelling)}: offsets "
            f"{_rendered(chunk.offsets, spelling)}, partition {_rendered(chunk.partition, spelling)}"
        )
    planned = f"{op.op}{f' into {memory}' if memory else ''}"
    chunks = [chunk.model_dump(mode="json") for chunk in op.chunks] if op.chunks else None
    return _located(
        site.position, "access", f"{written}: {planned} " + ", ".join(parts), op=op.op, chunks=chunks, **lists
    )


def _obligation_note(
    model: FunctionModel, record: ObligationRecord, spelling: dict[str, str]
) -> dict[str, Any]:
    position = model.op_sites[record.op].position
    expr = render_value(record.expr, spelling)
    goal = f"{expr} % {record.factor} == 0" if record.goal == "multiple_of" else f"{expr} >= 0"
    message = f"obligation {goal} (axis {record.axis}): {record.status}"
    counterexample = None
    if record.counterexample:
        counterexample = {
            spelling.get(name, name): value for name, value in sorted(record.counterexample.items())
        }
        message += " at " + ", ".join(f"{name}={value}" for name, value in counterexample.items())
    return _located(
        position,
        "obligation",
        message,
        goal=record.goal,
        expr=expr,
        factor=record.factor,
        axis=record.axis,
        status=record.status,
        counterexample=counterexample,
    )


def _rendered(values: list[int | str] | list[int], spelling: dict[str, str]) -> str:
    return "[" + ", ".join(render_value(value, spelling) for value in values) + "]"
