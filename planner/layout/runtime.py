"""The dispatch-time check of a dynamic-batch NZ parameter (section 9, `nz.runtime_batch_rank`).

A logical `[B, R, C]` NZ parameter with a dynamic `B` is blocked to `[B, C/c0, R/16, 16, c0]`;
the entry reads `B` from the argument's first logical extent, so the argument must arrive with
rank 3 even when a rank-2 or rank-5 shape would hold the same element count.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.layout import diagnostics as nz
from planner.layout.protocol import Diagnostic, TensorSpec
from planner.proofs.expr import Const, parse_expr

_DYNAMIC_BATCH_RANK = 3


def check_runtime_batch_rank(spec: TensorSpec, runtime_shape: Sequence[int]) -> Diagnostic | None:
    """None when the argument may be dispatched, else the `nz.runtime_batch_rank` diagnostic."""
    dynamic_batch = (
        spec.layout == "NZ"
        and len(spec.shape) == _DYNAMIC_BATCH_RANK
        and not isinstance(parse_expr(spec.shape[0]), Const)
    )
    if not dynamic_batch or len(runtime_shape) == _DYNAMIC_BATCH_RANK:
        return None
    return nz.refusal(
        nz.RUNTIME_BATCH_RANK,
        f"NZ parameter {spec.name} has a dynamic batch ({spec.shape[0]}), so its run-time argument must have "
        f"rank 3 [B, R, C], got rank {len(runtime_shape)} {list(runtime_shape)}.",
        nz.Site(tensor=spec.name),
    ).diagnostic
