"""The state one plan threads through phase 2: the NZ tensors in scope and the proof ledger."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from planner.contract import INVALID, RequestError
from planner.layout.blocking import NzTensor
from planner.layout.offsets import ProofLedger
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs.expr import Expr, parse_expr


@dataclass
class PlanContext:
    """NZ tensors by name (parameters, then slice results as they are defined) and the ledger."""

    request: LayoutPlanRequest
    ledger: ProofLedger
    tensors: dict[str, NzTensor] = field(default_factory=dict)

    def define(self, tensor: NzTensor) -> None:
        """Bring a new NZ tensor into scope; a name is defined once (SSA)."""
        if tensor.name in self.tensors:
            raise RequestError(INVALID, f"tensor {tensor.name!r} is defined more than once")
        self.tensors[tensor.name] = tensor


def exprs(values: Sequence[int | str]) -> tuple[Expr, ...]:
    """Parse protocol expressions (already validated by the request model)."""
    return tuple(parse_expr(value) for value in values)


def require_rank(values: Sequence[object], tensor: NzTensor, op: str, field_name: str) -> None:
    """An op's per-axis list must have the NZ tensor's logical rank: anything else is a malformed request."""
    if len(values) != tensor.rank:
        raise RequestError(
            INVALID,
            f"op {op!r}: {field_name} has {len(values)} entries but tensor {tensor.name!r} has logical rank "
            f"{tensor.rank}",
        )
