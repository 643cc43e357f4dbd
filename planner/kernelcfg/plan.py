"""`KernelConfigPlan` and the `kernelcfg.resolve` response (kernel-config.md section 7).

Only the resolver constructs a plan: the model's validator demands a private token that
`planner.kernelcfg.resolver` passes through `model_validate(..., context=...)`. Constructing
or validating a plan without it (including `model_copy(update=...)`, which is refused too)
raises, so a plan in hand always came out of a resolution.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from planner.contract import ContractModel
from planner.kernelcfg.protocol import Conflict, KernelWarning

_PLAN_TOKEN = object()  # handed only to the resolver (see `_issue_plan`, resolver-only)


class KernelConfigPlan(ContractModel):
    strategies: dict[str, Literal["fpu", "sfpu"]]
    dst_width: Literal[16, 32]
    dst_sync: Literal["double_buffered", "full"]
    unpack_to_dest_fp32: list[int]
    math_fidelity: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _only_the_resolver(cls, data: Any, info: ValidationInfo) -> Any:
        if not (isinstance(info.context, dict) and info.context.get("plan_token") is _PLAN_TOKEN):
            raise ValueError("a KernelConfigPlan is constructed only by planner.kernelcfg.resolve")
        return data

    def model_copy(self, *, update: Any = None, deep: bool = False) -> KernelConfigPlan:
        if update:
            raise TypeError("a KernelConfigPlan cannot be altered; resolve again instead")
        return super().model_copy(deep=deep)


def _issue_plan(
    strategies: dict[str, str], dst_width: int, dst_sync: str, unpack: list[int], math_fidelity: str | None
) -> KernelConfigPlan:
    """The resolver's constructor (the one holder of the token)."""
    payload = {
        "strategies": dict(sorted(strategies.items())),
        "dst_width": dst_width,
        "dst_sync": dst_sync,
        "unpack_to_dest_fp32": sorted(unpack),
        "math_fidelity": math_fidelity,
    }
    return KernelConfigPlan.model_validate(payload, context={"plan_token": _PLAN_TOKEN})


class KernelcfgResolveResponse(ContractModel):
    ok: bool
    plan: KernelConfigPlan | None = None
    warnings: list[KernelWarning] = Field(default_factory=list)
    conflict: Conflict | None = None
