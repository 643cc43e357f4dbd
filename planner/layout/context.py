"""The state one plan threads through phase 2: the NZ tensors in scope and the proof ledger."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from planner.errors import INVALID, RequestError
from planner.layout.blocking import NzTensor
from planner.layout.index_range import check_tensor_fits, constants_in
from planner.layout.offsets import ProofLedger
from planner.layout.protocol import Diagnostic, LayoutPlanRequest, StoreOp
from planner.proofs.expr import Expr, parse_expr


@dataclass
class PlanContext:
    """NZ tensors by name (parameters, then slice results as they are defined) and the ledger."""

    request: LayoutPlanRequest
    ledger: ProofLedger
    tensors: dict[str, NzTensor] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)

    def warn(self, diagnostic: Diagnostic) -> None:
        """Report what is not proven but does not refuse the plan (`nz.window_bounds_unproven`)."""
        self.warnings.append(diagnostic)

    def define(self, tensor: NzTensor) -> None:
        """Bring a new NZ tensor into scope; a name is defined once (SSA), NZ or not."""
        declared = {spec.name for spec in self.request.tensors if spec.layout != "NZ"}
        if tensor.name in self.tensors or tensor.name in declared:
            raise RequestError(INVALID, f"tensor {tensor.name!r} is defined more than once")
        check_tensor_fits(tensor, self.request.index_bits)
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


def _shape_and_offset_values(request: LayoutPlanRequest) -> Iterator[int | str]:
    for spec in request.tensors:
        yield from (*spec.shape, *(spec.valid_shape or ()), *(spec.stride or ()))
    for op in request.ops:
        for field_name in ("offsets", "shapes", "valid_shape", "shape"):
            yield from getattr(op, field_name, None) or ()
        if isinstance(op, StoreOp):
            yield from (*op.tile.shape, *(op.tile.valid_shape or ()))


def require_index_constants(request: LayoutPlanRequest) -> None:
    """Every constant in a shape or offset is an INDEX value: it must fit the signed index width.

    The planner divides constants exactly while the prover and the IR read them at the index
    width, so a constant outside it (`2**63` at 64 bits wraps negative) would be planned as
    one coordinate and addressed as another.
    """
    low, high = -(1 << (request.index_bits - 1)), (1 << (request.index_bits - 1)) - 1
    for value in _shape_and_offset_values(request):
        outside = [constant for constant in constants_in(parse_expr(value)) if not low <= constant <= high]
        if outside:
            raise RequestError(
                INVALID,
                f"constant {outside[0]} in {value!r} does not fit the signed {request.index_bits}-bit index "
                f"width [{low}, {high}]",
            )
