"""Conflict explanations: requirement records, minimal conflicting sets, checked corrections."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import planner
from planner.kernelcfg import KernelConfigPlan, resolve
from planner.kernelcfg.corrections import suggestions
from planner.kernelcfg.minimal_conflict import focus, quickxplain
from planner.kernelcfg.protocol import DfbOperand, DfbSpec, KernelcfgResolveRequest, ValueOperand
from planner.kernelcfg.records import build_records
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import resolve_with
from planner.kernelcfg.structural import Suggestion, free_dfb_index
from tests.kernelcfg.kernel_requests import ADD, EXP1, SAME, kernel, op, refused

DFB = "kcfg.dfb_unpack_conflict"


def suggestions_for(request: KernelcfgResolveRequest) -> list[Suggestion]:
    """The suggestions `resolve` checks for `request`'s minimal conflict."""
    resolution = resolve_with(request)
    assert resolution.target is not None and resolution.requirements is not None
    items = build_records(resolution, resolution.requirements)
    response = resolve(request)
    assert response.conflict is not None
    chosen = set(response.conflict.minimal_conflict)
    return suggestions(request, resolution.target, [i for i in items if i.record.id in chosen])


def _split(request: KernelcfgResolveRequest, op_id: str, index: int) -> KernelcfgResolveRequest:
    """The split correction written by hand: `op_id` reads operand 0 from a copy in `index`."""
    ops = [
        o.model_copy(update={"operands": [DfbOperand(dfb=index), *o.operands[1:]]}) if o.id == op_id else o
        for o in request.ops
    ]
    dfbs = sorted([*request.dfbs, DfbSpec(index=index, dtype="f32")], key=lambda spec: spec.index)
    return request.model_copy(update={"ops": ops, "dfbs": dfbs})


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
    capacity = "the conservative 32-DFB-index capacity used when target metadata is absent"
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        (
            f"read operand 0 of ttl.{mnemonic} '{op_id}' from its own dataflow buffer: a copy of DFB 1 "
            f"in new index 2 (the lowest undeclared index within {capacity})",
            True,
        )
        for mnemonic, op_id in (("tile_exp", "exp0"), ("tile_bcast", "bc0"))
    ]


def test_a_split_takes_the_lowest_index_free_of_declared_and_explicit_entries() -> None:
    assert free_dfb_index(kernel(dfbs={0: "f32", 1: "f32"}, unpack_to_dest_fp32=[2, 4]), 32) == 3
    assert free_dfb_index(kernel(dfbs={i: "bf16" for i in range(32)}), 32) is None
    bcast = op("bc0", "tile_bcast", 1, attrs={"kind": "row"})
    request = kernel(EXP1, bcast, dfbs={0: "bf16", 1: "f32", 3: "f32"}, arch="blackhole")
    conflict = refused(request, DFB)
    assert conflict.corrections[1].change.endswith(
        "a copy of DFB 1 in new index 2 "
        "(the lowest undeclared index within the 64-DFB-index Blackhole target capacity)"
    )
    resolved = resolve(_split(request, "bc0", 2))
    assert resolved.plan is not None and resolved.plan.unpack_to_dest_fp32 == [1]


def test_no_split_is_offered_when_every_index_is_taken() -> None:
    full = {i: "f32" for i in range(32)}
    conflict = refused(kernel(EXP1, op("bc0", "tile_bcast", 1, attrs={"kind": "row"}), dfbs=full), DFB)
    assert conflict.minimal_conflict and conflict.corrections == []


def test_a_split_that_leaves_another_reader_is_listed_as_not_resolving() -> None:
    second_exp = op("exp1", "tile_exp", 1)
    conflict = refused(kernel(EXP1, second_exp, op("bc0", "tile_bcast", 1, attrs={"kind": "row"})), DFB)
    assert [(c.change.split(" from ")[0], c.resolves) for c in conflict.corrections] == [
        ("read operand 0 of ttl.tile_exp 'exp0'", False),
        ("read operand 0 of ttl.tile_bcast 'bc0'", True),
    ]


def test_the_minimal_conflict_is_found_in_the_conflicts_component() -> None:
    bystanders = [op(f"e{i}", "tile_exp", 2 + i % 3) for i in range(30)]
    bcast = op("bc0", "tile_bcast", 1, attrs={"kind": "row"})
    dfbs = {i: "f32" for i in range(5)}
    request = kernel(*bystanders[:15], EXP1, *bystanders[15:], bcast, dfbs=dfbs)
    resolution = resolve_with(request)
    assert resolution.error is not None and resolution.target is not None
    items = build_records(resolution, collect_requirements(request))
    part = focus(items, resolution.error, resolution.target)
    assert {items[p].record.op for p in part} == {"exp0", "bc0", "e0"}  # e0: the first 32-bit-only record
    conflict = refused(request, DFB)
    assert _kinds(conflict, conflict.minimal_conflict) == [
        "tile_exp exp0 operand 0 reads DFB 1 via Dst",
        "tile_bcast bc0 operand 0 reads DFB 1 via DataflowBuffer",
    ]


def test_a_width_conflict_across_components_keeps_the_width_evidence() -> None:
    exp0 = op("e", "tile_exp", 0)
    bcast = op("bc", "tile_bcast", 1, result="bf16", attrs={"kind": "col"})
    conflict = refused(
        kernel(exp0, bcast, dfbs={0: "f32", 1: "bf16"}, arch="wormhole_b0"), "kcfg.dst_width_conflict"
    )
    assert _kinds(conflict, conflict.minimal_conflict) == [
        "tile_exp e operand 0 holds 'f32' in DST",
        "tile_bcast bc result holds 'bf16' in DST",
    ]
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        (
            "broadcast in f32: ttl.tile_bcast 'bc' reads operand 0 from a copy of DFB 1 widened to f32 in "
            "new index 2 (the lowest undeclared index within the 32-DFB-index Wormhole B0 target capacity) "
            "and yields f32 tiles; a new ttl.tile_typecast 'bc_narrowed' narrows them back to 'bf16' for "
            "its users (bf16 -> f32 -> bf16 is exact)",
            True,
        )
    ]


def test_a_widened_broadcast_hands_its_users_the_narrowed_tiles() -> None:
    bcast = op("bc", "tile_bcast", 1, result="bf16", attrs={"kind": "row"})
    request = kernel(
        op("bc_narrowed", "tile_fill", result="bf16"),
        bcast,
        op("st", "tile_store", "bc", result=None),
        op("ab", "tile_abs", "bc", result="bf16"),
        dfbs={0: "f32", 1: "bf16"},
        arch="blackhole",
        fp32_dest_acc=True,
    )
    conflict = refused(request, "kcfg.dst_width_explicit_unsupported")
    widen = next(s for s in suggestions_for(request) if s.change.startswith("broadcast in f32"))
    assert "ttl.tile_typecast 'bc_narrowed1'" in widen.change
    corrected = widen.edit(request)
    assert [(o.id, o.op, o.result_dtype) for o in corrected.ops] == [
        ("bc_narrowed", "tile_fill", "bf16"),
        ("bc", "tile_bcast", "f32"),
        ("bc_narrowed1", "tile_typecast", "bf16"),
        ("st", "tile_store", None),
        ("ab", "tile_abs", "bf16"),
    ]
    assert [o.operands[0] for o in corrected.ops[1:]] == [
        DfbOperand(dfb=2),
        ValueOperand(value="bc"),
        ValueOperand(value="bc_narrowed1"),
        ValueOperand(value="bc_narrowed1"),
    ]
    assert [(s.index, s.dtype) for s in corrected.dfbs] == [(0, "f32"), (1, "bf16"), (2, "f32")]
    assert any(c.change == widen.change and c.resolves for c in conflict.corrections)


def test_a_broadcast_of_another_element_type_is_not_widened() -> None:
    bcast = op("bc", "tile_bcast", 1, result="bf16", attrs={"kind": "col"})
    request = kernel(op("e", "tile_exp", 0), bcast, dfbs={0: "f32", 1: "f16"}, arch="wormhole_b0")
    conflict = refused(request, "kcfg.dst_width_conflict")
    assert conflict.corrections == []


def test_two_operands_of_one_op_are_never_split() -> None:
    conflict = refused(
        kernel(op("a", "tile_add", 0, 0, explicit_strategy="sfpu"), fp32_dest_acc=False),
        "kcfg.dst_width_disabled_conflict",
    )
    assert [c.change for c in conflict.corrections] == ["set fp32_dest_acc to auto"]


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
    assert [(c.change.split(" from ")[0], c.resolves) for c in conflict.corrections] == [
        ("allow SFPU for tile_add add0", True),
        ("read operand 0 of ttl.tile_exp 'exp0'", True),
        ("read operand 1 of ttl.tile_add 'add0'", True),
    ]


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


def test_a_plan_read_back_from_json_is_the_same_plan() -> None:
    plan = resolve(kernel(ADD)).plan
    assert plan is not None
    assert KernelConfigPlan.model_validate_json(plan.model_dump_json()) == plan


def test_only_the_resolver_decides_a_plan() -> None:
    """No module of the package but the resolver builds a `KernelConfigPlan` (protocol.py defines it)."""
    package = Path(planner.__file__).parent
    builders = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if re.search(
            r"(?<!class )KernelConfigPlan(\(|\.model_validate|\.model_construct)", path.read_text("utf-8")
        )
    )
    assert builders == ["kernelcfg/resolver.py"]
