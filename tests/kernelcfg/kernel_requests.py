"""Kernel requests in JSON form and the checks on their answers, shared by the resolver's tests."""

from __future__ import annotations

from typing import Any

from planner.kernelcfg import KernelcfgResolveResponse, resolve_on
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.targets.tenstorrent import DescriptorTarget

SAME = {"same_tile_coords": True}


def op(op_id: str, mnemonic: str, *operands: Any, result: str | None = "f32", **extra: Any) -> dict[str, Any]:
    """An op in JSON form; ints are DFB operands, strings are values of earlier ops."""
    forms = [
        o if isinstance(o, dict) else {"dfb": o} if isinstance(o, int) else {"value": o} for o in operands
    ]
    return {"id": op_id, "op": mnemonic, "operands": forms, "result_dtype": result, **extra}


def kernel(
    *ops: dict[str, Any], dfbs: dict[int, str] | None = None, arch: str | None = None, **policy: Any
) -> KernelcfgResolveRequest:
    table = dfbs if dfbs is not None else {0: "f32", 1: "f32"}
    return KernelcfgResolveRequest.model_validate(
        {
            "arch": arch,
            "policy": policy,
            "dfbs": [{"index": i, "dtype": d} for i, d in sorted(table.items())],
            "ops": list(ops),
        }
    )


def planned(
    request: KernelcfgResolveRequest, target: DescriptorTarget | None = None
) -> KernelcfgResolveResponse:
    response = resolve_on(request, target)
    assert response.ok, response.conflict
    return response


def assert_plan(response: KernelcfgResolveResponse, width: int, unpack: list[int], **strategies: str) -> None:
    assert response.plan is not None
    assert (response.plan.dst_width, response.plan.unpack_to_dest_fp32) == (width, unpack)
    assert response.plan.strategies == strategies


def refused(request: KernelcfgResolveRequest, code: str, target: DescriptorTarget | None = None) -> Any:
    response = resolve_on(request, target)
    assert not response.ok and response.conflict is not None
    assert response.conflict.code == code, response.conflict
    return response.conflict


ADD = op("add0", "tile_add", 0, 1, **SAME)
EXP1 = op("exp0", "tile_exp", 1)
