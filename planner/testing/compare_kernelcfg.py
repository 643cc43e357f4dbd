"""Compare a `kernelcfg.resolve` answer with the planner's, with the exhaustive oracle as referee.

The resolver's plan is deterministic (FPU first, fewest options first, walk-order ties), so
a pass implementing the same design must give the same plan, the same warnings, or the
same conflict code. Where they differ, the enumeration oracle
(`planner.testing.oracles.kernel_enum`) says which side is wrong: whether any complete
configuration meets every requirement, and whether the implementation's plan is one.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelcfgResolveResponse, KernelConfigPlan
from planner.testing.disagreement import Disagreement
from planner.testing.impl import JsonObject
from planner.testing.oracles.kernel_enum import EnumOracle, enum_oracle


def compare_kernelcfg(
    request: KernelcfgResolveRequest, planned: JsonObject, answered: JsonObject
) -> list[Disagreement]:
    """Every way `answered` differs from the planner's `planned` resolution of `request`."""
    ours = KernelcfgResolveResponse.model_validate(planned)
    try:
        theirs = KernelcfgResolveResponse.model_validate(answered)
    except ValidationError as exc:
        return [Disagreement("response", f"not a kernelcfg.resolve response: {exc}")]
    oracle = enum_oracle(request)
    if ours.ok != theirs.ok:
        verdicts = f"the planner {_verdict(ours)} but the implementation {_verdict(theirs)}"
        return [Disagreement("ok", verdicts), *_referee(oracle, theirs)]
    if not ours.ok:
        mine, other = _conflict_code(ours), _conflict_code(theirs)
        if mine == other:
            return []
        return [Disagreement("conflict.code", f"the planner reports {mine} but the implementation {other}")]
    found = [
        Disagreement(
            f"plan.{key}",
            f"the planner chooses {_get(ours.plan, key)!r} but the implementation {_get(theirs.plan, key)!r}",
        )
        for key in sorted(KernelConfigPlan.model_fields)
        if _get(ours.plan, key) != _get(theirs.plan, key)
    ]
    if found:
        found += _referee(oracle, theirs)
    if _warning_keys(ours) != _warning_keys(theirs):
        found.append(
            Disagreement(
                "warnings",
                f"the planner warns {_warning_keys(ours)} but the implementation {_warning_keys(theirs)}",
            )
        )
    return found


def _verdict(answer: KernelcfgResolveResponse) -> str:
    if answer.ok:
        plan = None if answer.plan is None else answer.plan.model_dump()
        return f"resolves it with {json.dumps(plan, sort_keys=True)}"
    return f"refuses it with {_conflict_code(answer)}" + (
        f": {answer.conflict.message}" if answer.conflict else ""
    )


def _conflict_code(answer: KernelcfgResolveResponse) -> str | None:
    return None if answer.conflict is None else answer.conflict.code


def _get(plan: KernelConfigPlan | None, key: str) -> Any:
    return None if plan is None else plan.model_dump().get(key)


def _warning_keys(answer: KernelcfgResolveResponse) -> list[tuple[str, str | None]]:
    return sorted((warning.code, warning.op) for warning in answer.warnings)


def _referee(oracle: EnumOracle | None, theirs: KernelcfgResolveResponse) -> list[Disagreement]:
    """What exhaustive enumeration says about the kernel and about the implementation's plan."""
    if oracle is None:
        return []
    text = ("some" if oracle.satisfiable() else "no") + " configuration meets every requirement"
    if theirs.ok and theirs.plan is not None:
        text += "; the implementation's plan " + (
            "meets them" if oracle.plan_satisfies(theirs.plan) else "violates one"
        )
    return [Disagreement("oracle", f"exhaustive enumeration: {text}")]
