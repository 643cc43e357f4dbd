"""Compute-kernel configuration: op semantics, policy, requirements, CSP resolver, plan, conflicts."""

from planner.kernelcfg.api import resolve, resolve_on
from planner.kernelcfg.protocol import KernelcfgResolveResponse, KernelConfigPlan

__all__ = ["KernelConfigPlan", "KernelcfgResolveResponse", "resolve", "resolve_on"]
