"""Window bounds: each axis of a load, slice or store window is in its tensor (docs/design/nz-layout.md 7.3).

`off + extent <= dim` is an obligation like the others (`extent` is the valid extent where a
valid_shape is given). In NZ order a window past the end does not fail: it reads the next
column block's fractals. Two outcomes when the bound is not proven:

- refuted on the smallest launch (block index 0, block count 1, every `spmd` and `for`
  variable over its own extent) with no unbounded value and no dynamic extent involved: the
  program reads out of bounds on its own iterations, so it is refused
  (`nz.window_out_of_bounds`, with the counterexample);
- anything else (refuted only through a larger launch, an unbounded parameter or a dynamic
  extent, or unknown): the warning `nz.window_bounds_unproven` naming what the bound depends
  on. The launch grid is not in the IR, so the plan stays `ok`.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor
from planner.layout.context import PlanContext
from planner.layout.offsets import reading_record
from planner.layout.protocol import Diagnostic
from planner.proofs.explain import refutation_text
from planner.proofs.expr import BinOp, Const, Expr, format_expr, free_names, parse_expr
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    BlockNumBinding,
    IterArgBinding,
    ParamBinding,
)
from planner.proofs.prover import Prover
from planner.proofs.scope import bindings_read_by

_LAUNCH = (BlockIdxBinding, BlockNumBinding)
_OPERAND_FIELDS = ("expr", "start", "stop", "step", "extent", "init")


def check_window_bounds(
    ctx: PlanContext,
    site: nz.Site,
    what: str,
    tensor: NzTensor,
    offsets: Sequence[Expr],
    extents: Sequence[Expr],
) -> None:
    """Pose `off + extent <= dim` on every axis, leading to trailing (section 14)."""
    for axis, (offset, extent, dim) in enumerate(zip(offsets, extents, tensor.logical, strict=True)):
        check_axis(ctx, site, what, axis - tensor.rank, offset, extent, dim)


def check_axis(
    ctx: PlanContext, site: nz.Site, what: str, axis: int, offset: Expr, extent: Expr, dim: Expr
) -> None:
    """One axis: proven, refused on the smallest launch, or warned about (module docstring)."""
    start = format_expr(offset)
    window = f"NZ {what} window [{start}, {start} + {format_expr(extent)}) on axis {axis}"
    if not isinstance(dim, Const):
        ctx.warn(_unproven(window, f"the dynamic extent {format_expr(dim)}", site, axis))
        return
    verdict = ctx.ledger.discharge_window(site.op or "", axis, offset, extent, dim.value)
    if verdict.status == "proven":
        return
    read = bindings_read_by(ctx.request.bindings, BinOp("+", offset, extent))
    unbounded = unbounded_names(read, offset, extent)
    if verdict.status == "unknown" or unbounded:
        depends = f"the unbounded {', '.join(unbounded)}" if unbounded else "values the prover cannot decide"
        ctx.warn(_unproven(window, depends, site, axis))
        return
    prover = Prover(smallest_launch(read), index_bits=ctx.request.index_bits, target=ctx.request.target)
    launch = prover.check_window(offset, extent, dim.value, ctx.request.division)
    if launch.status == "refuted":
        subject = f"the window end {start} + {format_expr(extent)}"
        raise nz.refusal(
            nz.WINDOW_OUT_OF_BOUNDS,
            f"{window} runs past the tensor's {dim.value} elements on the smallest launch: "
            f"{refutation_text(launch, subject, (offset, extent), prover.scope)}; in NZ order it would read "
            "other fractals instead of failing.",
            site,
            axis=axis,
            counterexample=launch.counterexample,
            reading=reading_record(launch),
        )
    lanes = sorted(binding.name for binding in read if isinstance(binding, _LAUNCH))
    depends = f"the launch ({', '.join(lanes)})" if lanes else "values the prover cannot decide"
    ctx.warn(_unproven(window, depends, site, axis))


def unbounded_names(read: Sequence[Binding], *exprs: Expr) -> list[str]:
    """The values nothing bounds among those read: unbound names, iter-args, params open on a side."""
    by_name = {binding.name: binding for binding in read}
    names = set().union(*(free_names(expr) for expr in exprs))
    for binding in read:
        operands = (getattr(binding, field, None) for field in _OPERAND_FIELDS)
        names.update(*(free_names(parse_expr(value)) for value in operands if value is not None))
    return sorted(name for name in names if name not in by_name or _unbounded(by_name[name]))


def _unbounded(binding: Binding) -> bool:
    open_param = isinstance(binding, ParamBinding) and (binding.min is None or binding.max is None)
    return isinstance(binding, IterArgBinding) or open_param


def smallest_launch(read: Sequence[Binding]) -> list[Binding]:
    """The bindings with block index 0 and block count 1 (section 7.3's smallest launch)."""
    return [
        AssignBinding(name=b.name, bits=b.bits, signed=b.signed, expr=int(isinstance(b, BlockNumBinding)))
        if isinstance(b, _LAUNCH)
        else b
        for b in read
    ]


def _unproven(window: str, depends: str, site: nz.Site, axis: int) -> Diagnostic:
    return nz.warning(
        nz.WINDOW_BOUNDS_UNPROVEN,
        f"{window} is not proven inside the tensor: it depends on {depends}.",
        site,
        axis=axis,
    )
