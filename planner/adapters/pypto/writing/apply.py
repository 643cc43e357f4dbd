"""Write a successful plan back into the printed program (docs/design/nz-layout.md 5, 6, 11.2, 12, 15).

Only these spans change: the shape list of every NZ tensor annotation (blocked shape), the
offsets/shapes/valid_shape lists of rewritten loads and slices (a slice's `drop_dims` is
dropped), a `pl.slice` the lowering makes a Mat load (printed as that `pl.tile.load`), the
annotation of an unannotated load result (its logical tile), the offsets of an accumulator
store plus its fourth argument (the partition), and the `@pl.function` decorator, which
gains the idempotence stamp. Every other character is copied through.

Textual forms chosen here:
- stamp: the decorator keyword `attrs={"nz_tensor_views_blocked": True}` (an existing
  literal `attrs` dict gains the key instead);
- N-split (section 12): the store statement is repeated once per chunk, each copy on the
  chunk's blocked offsets and partition. Copy `i` writes source-tile columns
  `[col_offset_i, col_offset_i + n_i)`: the window its partition selects at its offsets.
  Copies go on separate lines at the statement's indentation (joined by `; ` when the
  statement shares its line with other code).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import rename
from planner.adapters.pypto.base.splicing import Edit, SourceText, apply_edits
from planner.adapters.pypto.reading.program import STAMP, ProgramFunction
from planner.adapters.pypto.requests.model import FunctionModel, OpSite
from planner.layout.protocol import LayoutPlanResponse, PlannedOp
from planner.proofs.expr import format_expr, parse_expr

_STAMP_ENTRY = f'"{STAMP}": True'
_REWRITTEN_LISTS = ("offsets", "shapes", "valid_shape")


def plan_edits(model: FunctionModel, response: LayoutPlanResponse, source: SourceText) -> list[Edit]:
    """Every edit one planned function needs; empty when the plan changes nothing."""
    spelling = model.planned.spelling
    edits = _type_edits(model, response, source, spelling)
    chunked: list[tuple[OpSite, PlannedOp]] = []
    for planned in response.ops:
        site = model.op_sites.get(planned.id)
        if site is None or planned.kept:
            continue
        if planned.chunks:
            chunked.append((site, planned))
        else:
            edits.extend(_op_edits(site, planned, source, spelling))
    for site, planned in chunked:
        edits = _split_store(site, planned, source, spelling, edits)
    if response.attrs.get(STAMP) is True and model.function.attrs.get(STAMP) is not True:
        edits.append(_stamp_edit(model.function, source))
    return edits


def render_value(value: int | str, spelling: dict[str, str]) -> str:
    """A planned coordinate in source spelling (request names mapped back to what the text says)."""
    if isinstance(value, int):
        return str(value)
    return format_expr(rename(parse_expr(value), spelling))


def _render_list(values: Sequence[int | str], spelling: dict[str, str]) -> str:
    return "[" + ", ".join(render_value(value, spelling) for value in values) + "]"


def _type_edits(
    model: FunctionModel, response: LayoutPlanResponse, source: SourceText, spelling: dict[str, str]
) -> list[Edit]:
    """Section 5: every NZ annotation gets the blocked shape of its tensor."""
    blocked = {tensor.name: tensor.shape for tensor in response.tensors if tensor.layout == "NZ"}
    return [
        Edit(
            source.start(site.shape_node),
            source.end(site.shape_node),
            _render_list(blocked[site.tensor], spelling),
        )
        for site in model.type_sites
        if site.tensor in blocked
    ]


def _op_edits(site: OpSite, planned: PlannedOp, source: SourceText, spelling: dict[str, str]) -> list[Edit]:
    """Sections 6.1, 6.2, 11.2: replace the planned argument lists, drop drop_dims, add the partition;
    a load's unannotated result gets its logical tile type (section 6.1.6)."""
    annotation = _tile_annotation(site, source, spelling) if site.op == "tile.load" else []
    if site.retarget:
        return [*annotation, _retarget(site, planned, source, spelling)]
    edits = [
        _replace(source, site.arguments[name], _render_list(values, spelling))
        for name, values in zip(
            _REWRITTEN_LISTS, (planned.offsets, planned.shapes, planned.valid_shape), strict=True
        )
        if values is not None and name in site.arguments
    ]
    if site.op == "tensor.slice" and "drop_dims" in site.arguments and planned.offsets is not None:
        edits.append(_remove_argument(site, source))
    if site.op == "tile.store" and planned.partition is not None:
        edits.append(_insert_partition(site, source, _render_list(planned.partition, spelling)))
    return [*annotation, *edits]


def _retarget(site: OpSite, planned: PlannedOp, source: SourceText, spelling: dict[str, str]) -> Edit:
    """Section 18: a `pl.slice` the lowering makes a Mat load is printed as that load."""
    lists = [planned.offsets, planned.shapes, planned.valid_shape]
    rendered = [_render_list(values, spelling) for values in lists if values is not None]
    tensor = source.segment(site.arguments["tensor"])
    return _replace(
        source, site.call, f"pl.tile.load({tensor}, {', '.join(rendered)}, target_memory=pl.Mem.Mat)"
    )


def _tile_annotation(site: OpSite, source: SourceText, spelling: dict[str, str]) -> list[Edit]:
    """`name = <load>` becomes `name: pl.Tile[[R, C], DTYPE, pl.Mem.X] = <load>`: the blocked
    `shapes` must not be where the tile type is deduced from (a rank-5 tile)."""
    statement, tile = site.statement, site.tile
    if not (isinstance(statement, ast.Assign) and statement.value is site.call and tile is not None):
        return []
    (target,) = statement.targets
    if not isinstance(target, ast.Name) or tile.memory is None:
        return []
    shape = ", ".join(format_expr(rename(extent, spelling)) for extent in tile.shape)
    end = source.end(target)
    return [Edit(end, end, f": pl.Tile[[{shape}], pl.{tile.dtype}, pl.Mem.{tile.memory}]")]


def _replace(source: SourceText, node: ast.AST, text: str) -> Edit:
    return Edit(source.start(node), source.end(node), text)


def _insert_partition(site: OpSite, source: SourceText, partition: str) -> Edit:
    """Section 11.2: the store's fourth positional argument, right after the destination."""
    destination = site.arguments["output"]
    call = site.call
    if not isinstance(call, ast.Call) or destination not in call.args:
        raise source.error(
            codes.UNSUPPORTED_CONSTRUCT,
            "cannot add the partition: the store's destination is not its third positional argument",
            call,
        )
    end = source.end(destination)
    return Edit(end, end, f", {partition}")


def _remove_argument(site: OpSite, source: SourceText) -> Edit:
    """Section 6.2: `drop_dims` is discarded; remove it with the separator before it."""
    call = site.call
    assert isinstance(call, ast.Call)
    target = site.arguments["drop_dims"]
    holder: ast.AST = next((kw for kw in call.keywords if kw.value is target), target)
    items: list[ast.AST] = [*call.args, *call.keywords]
    before = [item for item in items if source.end(item) <= source.start(holder)]
    start = max(source.end(item) for item in before)
    return Edit(start, source.end(holder), "")


def _split_store(
    site: OpSite, planned: PlannedOp, source: SourceText, spelling: dict[str, str], edits: list[Edit]
) -> list[Edit]:
    """Section 12: one store statement per N-split chunk (see the module docstring)."""
    statement = site.statement
    if not isinstance(statement, ast.Assign | ast.AnnAssign | ast.Expr) or statement.value is not site.call:
        raise source.error(
            codes.UNSUPPORTED_CONSTRUCT,
            "cannot split this store into chunks: it must be a statement of its own",
            site.call,
        )
    start, end = source.start(statement), source.end(statement)
    inside = [edit for edit in edits if start <= edit.start and edit.end <= end]
    outside = [edit for edit in edits if not (start <= edit.start and edit.end <= end)]
    text = source.text[start:end]
    copies = []
    for chunk in planned.chunks or []:
        chunk_op = PlannedOp(
            id=planned.id, op=planned.op, offsets=chunk.offsets, partition=list(chunk.partition)
        )
        chunk_edits = [*inside, *_op_edits(site, chunk_op, source, spelling)]
        copies.append(apply_edits(text, [Edit(e.start - start, e.end - start, e.text) for e in chunk_edits]))
    indent = source.line_indent(statement)
    separator = "; " if indent is None else source.line_break_after(statement) + indent
    return [*outside, Edit(start, end, separator.join(copies))]


def _stamp_edit(function: ProgramFunction, source: SourceText) -> Edit:
    """Section 15: the idempotence stamp, printed as a decorator keyword."""
    decorator = function.decorator
    if not isinstance(decorator, ast.Call):
        end = source.end(decorator)
        return Edit(end, end, f"(attrs={{{_STAMP_ENTRY}}})")
    if function.attrs_node is not None:
        entries = function.attrs_node.values
        if entries:
            end = source.end(entries[-1])
            return Edit(end, end, f", {_STAMP_ENTRY}")
        inner = source.end(function.attrs_node) - 1
        return Edit(inner, inner, _STAMP_ENTRY)
    items: list[ast.AST] = [*decorator.args, *decorator.keywords]
    if items:
        end = max(source.end(item) for item in items)
        return Edit(end, end, f", attrs={{{_STAMP_ENTRY}}}")
    inner = source.end(decorator) - 1
    return Edit(inner, inner, f"attrs={{{_STAMP_ENTRY}}}")
