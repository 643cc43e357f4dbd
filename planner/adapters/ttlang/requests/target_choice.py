"""Which target a kernel is planned for when the module does not say it all: a target given on the
command line (`--target-arch NAME`), or, for a function dumped alone whose module the log never
shows, every target the module could name (docs/design/kernel-config.md section 10).

The module-level facts a request reads are `ttl.target_arch`, `ttcore.system_desc` and
`ttcore.device` (`pass_options`); together they select one environment of
`planner.targets.tenstorrent.KNOWN_TARGETS` (or a refusal). Unknown, they are not absent: the
function is answered under each environment, and the answer stands only if it is the same under
all of them; otherwise the function is refused (`adapter.target_unknown`), naming the decision
that differs and both fixes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import ModuleOp

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.base.codes import OPTION_INVALID, TARGET_MISMATCH, TARGET_UNKNOWN
from planner.adapters.ttlang.reading.source import ParsedChunk
from planner.kernelcfg.protocol import (
    Conflict,
    KernelcfgResolveRequest,
    KernelcfgResolveResponse,
    KernelConfigPlan,
)
from planner.targets.tenstorrent import KNOWN_TARGETS, NO_TARGET, TargetError, build_target

TARGET_OPTION = "target-arch"
"""The adapter option naming the target (`--target-arch NAME`); not a pass option."""
TARGET_FIXES = (
    "print the log with --mlir-print-ir-module-scope, or give the target with --target-arch NAME "
    f"({', '.join(KNOWN_TARGETS)})"
)


def given_target(options: dict[str, str]) -> str | None:
    """Take `target-arch` out of the adapter options, checked against the known targets."""
    given = options.pop(TARGET_OPTION, None)
    if given is not None and given not in KNOWN_TARGETS:
        known = ", ".join(KNOWN_TARGETS)
        raise AdapterInputError(OPTION_INVALID, f"invalid {TARGET_OPTION} '{given}'; expected one of {known}")
    return given


def under(request: KernelcfgResolveRequest, target: str) -> KernelcfgResolveRequest:
    """The request as if the module named `target` alone (`none`: no target attributes)."""
    arch = None if target == NO_TARGET.name else target
    return request.model_copy(update={"arch": arch, "system_desc": None})


def _own_target(request: KernelcfgResolveRequest) -> str:
    """The environment the module's own attributes select, or what they name when it is refused."""
    desc = request.system_desc
    try:
        if desc is None:
            return build_target(request.arch).name
        return build_target(request.arch, desc.chip_archs, desc.device_chip_ids).name
    except TargetError as refused:
        return request.arch or refused.message


def with_given_target(
    request: KernelcfgResolveRequest, given: str, parsed: ParsedChunk, module: ModuleOp | None
) -> KernelcfgResolveRequest:
    """The request under the given target: the module's own when they agree, the given one where
    the module names none (or is not known); a module naming another is an input error."""
    if not parsed.module_known:
        return under(request, given)
    own = _own_target(request)
    if own == given:
        return request
    if own == NO_TARGET.name:
        return under(request, given)
    message = f"--{TARGET_OPTION} {given} contradicts the module's own target, {own}"
    if module is None:
        raise AdapterInputError(TARGET_MISMATCH, message)
    raise parsed.error_at(module, TARGET_MISMATCH, message)


def _plan_decisions(plan: KernelConfigPlan) -> dict[str, str]:
    decisions = {
        "dst_width": str(plan.dst_width),
        "dst_sync": plan.dst_sync,
        "unpack_to_dest_fp32": str(sorted(plan.unpack_to_dest_fp32)),
        "math_fidelity": str(plan.math_fidelity),
        "math_approx_mode": str(plan.math_approx_mode),
    }
    decisions.update({f"strategy of {op}": strategy for op, strategy in sorted(plan.strategies.items())})
    return decisions


def _decisions(response: KernelcfgResolveResponse) -> dict[str, str]:
    """What an answer decides, by name, in the order a reader would look for a difference."""
    conflict = response.conflict
    if response.plan is None or conflict is not None:
        code = conflict.code if conflict is not None else "no plan"
        at = f" at op '{conflict.op}'" if conflict is not None and conflict.op else ""
        return {"outcome": f"refused ({code}{at})"}
    decisions = {"outcome": "planned", **_plan_decisions(response.plan)}
    decisions["warnings"] = ", ".join(warning.code for warning in response.warnings) or "none"
    if response.explanation is not None:  # asked for by `planner explain`
        for decision in response.explanation.decisions:
            subject = f" of {decision.subject}" if decision.subject is not None else ""
            decisions[f"reason for {decision.setting}{subject}"] = (
                f"{decision.how} by {', '.join(decision.causes)}"
            )
        decisions["explanation"] = response.explanation.model_dump_json()
    if response.precision is not None:
        decisions["precision account"] = response.precision.model_dump_json()
    return decisions


def _agreeing(response: KernelcfgResolveResponse) -> object:
    """What must be equal across targets: everything but a refusal's wording (which names its
    target), so a kernel every target refuses alike is refused as under any of them."""
    conflict = response.conflict
    key = None if conflict is None else (conflict.code, conflict.where, conflict.op, conflict.operand)
    return (response.plan, response.warnings, key, response.explanation, response.precision)


def _differing(targets: Sequence[str], responses: Sequence[KernelcfgResolveResponse]) -> str:
    """The first decision that differs, with its value under each target."""
    decided = [_decisions(response) for response in responses]
    for name in dict.fromkeys(key for decisions in decided for key in decisions):
        values = [decisions.get(name, "not decided") for decisions in decided]
        if len(set(values)) > 1:
            if name in ("explanation", "precision account"):  # the reasons' wording or records
                return f"its plan's {name} differs between the targets ({', '.join(targets)})"
            by_value: dict[str, list[str]] = {}
            for target, value in zip(targets, values, strict=True):
                by_value.setdefault(value, []).append(target)
            said = "; ".join(f"{value} under {', '.join(named)}" for value, named in by_value.items())
            return f"its {name} depends on the target ({said})"
    return "its answer depends on the target"


def answer_under_every_target(
    request: KernelcfgResolveRequest, resolver: Callable[[KernelcfgResolveRequest], KernelcfgResolveResponse]
) -> KernelcfgResolveResponse:
    """The answer every known target gives the request alike, else the refusal naming what differs."""
    responses = [resolver(under(request, target)) for target in KNOWN_TARGETS]
    first = _agreeing(responses[0])
    if all(_agreeing(response) == first for response in responses[1:]):
        return responses[-1]
    message = (
        f"function @{request.function} is dumped without its module, whose attributes (the target) "
        f"the log does not show, and {_differing(KNOWN_TARGETS, responses)}; {TARGET_FIXES}"
    )
    return KernelcfgResolveResponse(
        ok=False, conflict=Conflict(code=TARGET_UNKNOWN, message=message, where="function")
    )
