#!/usr/bin/env python3
"""A deliberately wrong kernel-config pass, to show what `check_kernelcfg_pass` finds.

It decides strategies first and configuration second: every binary op that may run on
the FPU is pinned to FPU, then the rest is resolved. docs/design/kernel-config.md 6.6 explains why
that is wrong: a fixed SFPU consumer can require unpack-to-DST on a dataflow buffer the
binary op also reads, and FPU there requires the default mode, so the greedy choice
rejects a kernel the joint search resolves with SFPU.

A command line: one `kernelcfg.resolve` request as JSON on stdin, the response on stdout::

    from planner.testing import check_kernelcfg_pass
    check_kernelcfg_pass([sys.executable, "examples/harness/greedy_fpu.py"])
"""

from __future__ import annotations

import json
import sys
from typing import Any

from planner.kernelcfg import resolve as resolve_kernel
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import collect_requirements


def resolve(request: dict[str, Any]) -> dict[str, Any]:
    """`kernelcfg.resolve` after pinning every FPU-capable binary op to FPU."""
    parsed = KernelcfgResolveRequest.model_validate(request)
    if parsed.policy.fpu_binary:
        greedy = _fpu_capable(parsed)
        ops = [
            op.model_copy(update={"explicit_strategy": "fpu"}) if op.id in greedy else op for op in parsed.ops
        ]
        parsed = parsed.model_copy(update={"ops": ops})
    return resolve_kernel(parsed).model_dump(mode="json")


def _fpu_capable(request: KernelcfgResolveRequest) -> set[str]:
    """The ops with no explicit strategy whose legal options include FPU."""
    try:
        choices = collect_requirements(request).choices
    except KcfgError:
        return set()
    return {
        choice.op
        for choice in choices
        if choice.explicit is None and any(option.strategy.value == "fpu" for option in choice.options)
    }


if __name__ == "__main__":
    json.dump(resolve(json.load(sys.stdin)), sys.stdout, sort_keys=True)
