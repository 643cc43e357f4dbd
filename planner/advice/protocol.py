"""Response models of `layout.suggest`: a verdict for every weight that could become NZ."""

from __future__ import annotations

from pydantic import Field

from planner.adapters.protocol import KernelStatus, UnresolvedExtent
from planner.contract import ContractModel
from planner.layout.protocol import Diagnostic


class SuggestedLoad(ContractModel):
    """A Mat load of the weight that would read NZ bytes as they are (NZ->NZ) instead of converting."""

    op: str  # the op id in the dry run's layout.plan request
    line: int  # where the load is in the source
    column: int
    bytes_not_converted: int | None  # the window's bytes; None when its extent is not static


class SuggestedTensor(ContractModel):
    """One ND tensor parameter feeding a matmul's B operand, planned as if it were `pl.NZ`."""

    name: str
    function: str
    line: int  # the parameter's declaration; for an ineligible tensor, where the blocking diagnostic points
    column: int
    eligible: bool
    also_annotated: list[str] = Field(default_factory=list)  # callers' parameters it is passed from
    loads: list[SuggestedLoad] = Field(default_factory=list)
    bytes_not_converted_total: int | None = 0
    blocking: Diagnostic | None = None  # the first refusal of the dry run
    warnings: list[Diagnostic] = Field(default_factory=list)  # what the annotated plan warns of
    # where each extent read through an import came from (`D = config.FLASH.hidden_size = 4096`), and
    # the builder calls the plan holds for (`build_x(batch=16)`)
    extents: list[str] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    # why each name of its shape that is not static stays symbolic (a pl.dynamic extent, an
    # import-time choice, a builder parameter without a default, ...): never eligible
    unresolved: list[UnresolvedExtent] = Field(default_factory=list)


class LayoutSuggestResponse(ContractModel):
    """`layout.suggest`: a verdict for every candidate weight of the kernels that read, in file order.

    `unread_kernels`: each kernel refused or not read (`refused` / `unreadable`), whose weights get
    no verdict; present only when there is one, so a file that reads whole answers as it always has."""

    tensors: list[SuggestedTensor] = Field(default_factory=list)
    unread_kernels: list[KernelStatus] = Field(default_factory=list, exclude_if=lambda kernels: not kernels)
