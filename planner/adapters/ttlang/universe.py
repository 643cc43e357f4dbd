"""The TT-Lang dialects and `ttl-set-compute-kernel-config`, offered to every xDSL tool.

Registered through the `xdsl.universe` entry point, so `xdsl-opt -p ttl-set-compute-kernel-config`
and any xDSL pass pipeline can use the pass and read the dialects.
"""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _ttl() -> Dialect:
    from planner.adapters.ttlang.dialects.ttl_registry import ttl_dialect

    return ttl_dialect()


def _ttcore() -> Dialect:
    from planner.adapters.ttlang.dialects.ttcore_dialect import TTCore

    return TTCore


def _set_compute_kernel_config() -> type[ModulePass]:
    from planner.adapters.ttlang.writing.configure import SetComputeKernelConfig

    return SetComputeKernelConfig


TILE_PLANNER = Universe(
    all_dialects={"ttl": _ttl, "ttcore": _ttcore},
    all_passes={"ttl-set-compute-kernel-config": _set_compute_kernel_config},
)
