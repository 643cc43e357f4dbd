"""Conflict explanations: requirement records, minimal conflicting sets, checked corrections."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.kernelcfg import KernelConfigPlan, resolve
from planner.kernelcfg.explain import quickxplain
from tests.test_kernelcfg_outcomes import ADD, EXP1, SAME, kernel, op, refused


def _kinds(conflict: object, ids: list[str]) -> list[str]:
    records = {r.id: r for r in conflict.requirements}  # type: ignore[attr-defined]
    return [records[i].summary for i in ids]


def test_two_incompatible_uses_are_the_minimal_conflict() -> None:
    conflict = refused(
        kernel(EXP1, op("bc0", "tile_bcast", 1, attrs={"kind": "row"})), "kcfg.dfb_unpack_conflict"
    )
    assert _kinds(conflict, conflict.minimal_conflict) == [
        "tile_exp exp0 operand 0 reads DFB 1 via Dst",
        "tile_bcast bc0 operand 0 reads DFB 1 via DataflowBuffer",
    ]
    assert [r.id for r in conflict.requirements] == [
        f"r{i}" for i in range(1, len(conflict.requirements) + 1)
    ]
    assert conflict.corrections == []  # both records are the kernel itself


def test_disabled_policy_correction_resolves() -> None:
    conflict = refused(kernel(op("f", "tile_fill"), fp32_dest_acc=False), "kcfg.dst_width_disabled_conflict")
    assert _kinds(conflict, conflict.minimal_conflict) == [
        "fp32_dest_acc disabled",
        "tile_fill f result holds 'f32' in DST",
    ]
    assert [(c.change, c.resolves) for c in conflict.corrections] == [("set fp32_dest_acc to auto", True)]


def test_explicit_unpack_correction_names_the_dfb() -> None:
    conflict = refused(
        kernel(op("a", "tile_abs", 0), unpack_to_dest_fp32=[]), "kcfg.explicit_unpack_conflict"
    )
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        ("add DFB 0 to ttl.unpack_to_dest_fp32", True)
    ]
    red = op("r", "tile_reduce", 0, 0, attrs={"dim": "row"})
    conflict = refused(kernel(red, unpack_to_dest_fp32=[0]), "kcfg.explicit_unpack_conflict")
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        ("remove DFB 0 from ttl.unpack_to_dest_fp32", True)
    ]


def test_fpu_policy_clash_offers_both_relaxations() -> None:
    bf16_add = op("a", "tile_add", 0, 1, result="bf16", explicit_strategy="fpu", **SAME)
    conflict = refused(
        kernel(bf16_add, dfbs={0: "bf16", 1: "bf16"}, fpu_binary=False), "kcfg.fpu_policy_conflict"
    )
    assert len(conflict.minimal_conflict) == 3
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        ("enable FPU binary ops", True),
        ("allow SFPU for tile_add a", True),
    ]


def test_explicit_fpu_against_a_shared_unpacked_dfb() -> None:
    conflict = refused(kernel(EXP1, {**ADD, "explicit_strategy": "fpu"}), "kcfg.dfb_unpack_conflict")
    assert _kinds(conflict, conflict.minimal_conflict) == [
        "explicit ttl.tile_execution_strategy<fpu> on add0",
        "tile_exp exp0 operand 0 reads DFB 1 via Dst",
        "tile_add add0 runs on one of its legal strategies",
    ]
    assert [(c.change, c.resolves) for c in conflict.corrections] == [("allow SFPU for tile_add add0", True)]


def test_a_correction_that_does_not_resolve_says_so() -> None:
    # Two independent causes: relaxing the policy alone leaves the explicit-unpack clash.
    request = kernel(
        op("f", "tile_fill"), op("a", "tile_abs", 0), fp32_dest_acc=False, unpack_to_dest_fp32=[]
    )
    response = resolve(request)
    assert response.conflict is not None
    corrections = response.conflict.corrections
    assert len(corrections) == 1 and not corrections[0].resolves


@pytest.mark.parametrize(
    "request_, code",
    [
        (kernel(ADD, arch="quasar"), "kcfg.target_quasar_unsupported"),
        (kernel(ADD, fp32_dest_acc="maybe"), "kcfg.policy_option_invalid"),
        (kernel(op("z", "tile_frobnicate", 0)), "kcfg.op_semantics_unknown"),
    ],
)
def test_non_search_refusals_carry_no_records(request_: object, code: str) -> None:
    conflict = refused(request_, code)  # type: ignore[arg-type]
    assert (conflict.requirements, conflict.minimal_conflict, conflict.corrections) == ([], [], [])


def test_quickxplain_finds_a_minimal_subset() -> None:
    items = list(range(10))

    def consistent(subset: object) -> bool:
        chosen = set(subset)  # type: ignore[call-overload]
        return not ({2, 7} <= chosen or {4, 5, 9} <= chosen)

    found = quickxplain(items, consistent)  # type: ignore[arg-type]
    assert found in ([2, 7], [4, 5, 9])
    assert not consistent([items[i] for i in found])


def test_only_the_resolver_constructs_a_plan() -> None:
    fields = {"strategies": {}, "dst_width": 16, "dst_sync": "full", "unpack_to_dest_fp32": []}
    with pytest.raises(ValidationError, match="constructed only by"):
        KernelConfigPlan(**fields)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="constructed only by"):
        KernelConfigPlan.model_validate(fields)
    plan = resolve(kernel(ADD)).plan
    assert plan is not None
    with pytest.raises(TypeError):
        plan.model_copy(update={"dst_width": 16})
    assert plan.model_copy() == plan
