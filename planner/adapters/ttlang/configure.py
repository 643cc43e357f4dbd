"""The public path of `ttl-set-compute-kernel-config` as an xDSL `ModulePass` (README); the pass is
written in `writing.configure`."""

from __future__ import annotations

from planner.adapters.ttlang.writing.configure import SetComputeKernelConfig

__all__ = ["SetComputeKernelConfig"]
