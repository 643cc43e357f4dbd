"""The plan of a source file as compiler-style notes (docs/design/nz-layout.md section 18).

Source is reported, not rewritten: the user's program stays logical and the compiler blocks
it. Each NZ tensor gets a note at its declaration (blocked shape and strides), each access a
note at its position (the blocked offsets and shapes of what it lowers to), each proof
obligation a note at its access (goal, expression and status). `--report` carries the same
entries as JSON, each with its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from planner.adapters.pypto.base.splicing import SourcePosition, SourceText
from planner.adapters.pypto.requests.model import FunctionModel
from planner.adapters.pypto.writing.apply import render_value
from planner.layout.protocol import LayoutPlanResponse, ObligationRecord, PlannedOp, PlannedTensor

_SPACES = re.compile(r"\s+")
_PLANNED_LISTS = ("offsets", "shapes", "valid_shape", "partition")


def source_notes(
    model: FunctionModel, response: LayoutPlanResponse, source: SourceText
) -> list[dict[str, Any]]:
    """The note entries of one planned function, in source order (ties: tensors, accesses, obligations)."""
    spelling = _Spelling(model.planned.spelling)
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


def kernel_notes(model: FunctionModel, source: SourceText) -> list[dict[str, Any]]:
    """A kernel not at module level is named as Python qualifies it; a plan that holds only for the
    builder parameters' defaults or `--bind` values says so (section 19)."""
    function = model.function
    resolved = function.constants
    assumptions = resolved.assumptions if resolved is not None else ()
    if function.qualified == function.node.name and not assumptions:
        return []
    message = f"kernel {function.qualified!r}"
    if assumptions:
        message += f" planned for {', '.join(assumptions)}"
    position = source.position(function.node)
    return [_located(position, "kernel", message, kernel=function.qualified, assumptions=list(assumptions))]


def render_note(filename: str, note: dict[str, Any]) -> str:
    return f"{filename}:{note['line']}:{note['column']}: note: {note['message']}"


def _located(position: SourcePosition, kind: str, message: str, **fields: Any) -> dict[str, Any]:
    return {"line": position.line, "column": position.column, "kind": kind, "message": message, **fields}


def _tensor_note(model: FunctionModel, tensor: PlannedTensor, spelling: _Spelling) -> dict[str, Any]:
    position = model.planned.tensor_positions.get(tensor.name, model.planned.position)
    name = spelling.name(tensor.name)
    shape, strides = spelling.list(tensor.shape), spelling.list(tensor.strides)
    message = f"NZ tensor {name!r}: blocked shape {shape}, strides {strides}"
    shape_json, strides_json = spelling.json(tensor.shape), spelling.json(tensor.strides)
    return _located(position, "tensor", message, tensor=name, shape=shape_json, strides=strides_json)


def _access_note(
    model: FunctionModel, op: PlannedOp, source: SourceText, spelling: _Spelling, memory: str | None
) -> dict[str, Any]:
    site = model.op_sites[op.id]
    written = _SPACES.sub(" ", source.segment(site.call))
    if op.kept:
        return _located(site.position, "access", f"{written}: {op.op} kept as written", op=op.op, kept=True)
    values = {name: getattr(op, name) for name in _PLANNED_LISTS if getattr(op, name) is not None}
    parts = [f"{name} {spelling.list(entries)}" for name, entries in values.items()]
    lists = {name: spelling.json(entries) for name, entries in values.items()}
    for chunk in op.chunks or []:
        parts.append(
            f"chunk at column {spelling.value(chunk.col_offset)}: offsets "
            f"{spelling.list(chunk.offsets)}, partition {spelling.list(chunk.partition)}"
        )
    planned = f"{op.op}{f' into {memory}' if memory else ''}"
    chunks = [chunk.model_dump(mode="json") for chunk in op.chunks] if op.chunks else None
    return _located(
        site.position, "access", f"{written}: {planned} " + ", ".join(parts), op=op.op, chunks=chunks, **lists
    )


def _obligation_note(model: FunctionModel, record: ObligationRecord, spelling: _Spelling) -> dict[str, Any]:
    position = model.op_sites[record.op].position
    expr = spelling.value(record.expr)
    goals = {"multiple_of": f"{expr} % {record.factor} == 0", "at_most": f"{expr} <= {record.bound}"}
    goal = goals.get(record.goal, f"{expr} >= 0")
    message = f"obligation {goal} (axis {record.axis}): {record.status}"
    counterexample = None
    if record.counterexample:
        counterexample = {spelling.name(name): value for name, value in sorted(record.counterexample.items())}
        message += " at " + ", ".join(f"{name}={value}" for name, value in counterexample.items())
    if record.reading is not None:  # the semantics of the generated code under which it breaks
        reading = record.reading
        message += f" ({reading.division} division, {reading.extension}-extended unsigned"
        message += f", value {record.value})" if record.value is not None else ")"
    return _located(
        position,
        "obligation",
        message,
        goal=record.goal,
        expr=expr,
        factor=record.factor,
        bound=record.bound,
        axis=record.axis,
        status=record.status,
        counterexample=counterexample,
        reading=record.reading.model_dump(mode="json") if record.reading is not None else None,
        value=record.value,
    )


class _Spelling:
    """Planned values in source spelling; each distinct expression is rendered once."""

    def __init__(self, names: dict[str, str]) -> None:
        self._names = names
        self._rendered: dict[int | str, str] = {}

    def name(self, request_name: str) -> str:
        return self._names.get(request_name, request_name)

    def value(self, value: int | str) -> str:
        if value not in self._rendered:
            self._rendered[value] = render_value(value, self._names)
        return self._rendered[value]

    def json(self, values: Sequence[int | str]) -> list[int | str]:
        """The values as JSON, expressions in source spelling."""
        return [value if isinstance(value, int) else self.value(value) for value in values]

    def list(self, values: Sequence[int | str]) -> str:
        return "[" + ", ".join(self.value(value) for value in values) + "]"
