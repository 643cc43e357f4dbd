"""Precision and the accuracy knobs from TT-Lang IR (docs/design/kernel-config.md 5, 6.10, 10):
pass options and function attributes reach the policy, and every face honours `precision=exact`."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.adapters.ttlang import build_requests, plan_text
from planner.adapters.ttlang.writing.configure import SetComputeKernelConfig
from planner.cli import main
from planner.kernelcfg.codes import KcfgError
from tests.adapters.ttlang.kernel_text import TILE, kernel

ADD = f"    %s = ttl.tile_add %x, %y into dst[%c0] : {TILE}, {TILE} -> {TILE}\n"
SFPU = "#ttl.tile_execution_strategy<sfpu>"


def test_the_options_reach_the_policy() -> None:
    options = {"precision": "exact", "math-fidelity": "HiFi3", "math-approx-mode": "0"}
    (request,) = build_requests(kernel(ADD), options=options)
    policy = request.policy
    assert (policy.precision, policy.math_fidelity, policy.math_approx_mode) == ("exact", "HiFi3", False)


def test_the_function_attributes_win_over_the_options() -> None:
    text = kernel(ADD, func_attrs='math_fidelity = "LoFi", math_approx_mode = true')
    (request,) = build_requests(text, options={"math-fidelity": "HiFi4", "math-approx-mode": "false"})
    assert (request.policy.math_fidelity, request.policy.math_approx_mode) == ("LoFi", True)


@pytest.mark.parametrize(
    ("attrs", "code"),
    [
        ("math_fidelity = 4 : i32", "kcfg.policy_attr_not_string"),
        ('math_approx_mode = "yes"', "kcfg.policy_attr_not_bool"),
    ],
)
def test_malformed_knob_attributes_are_refused_with_the_resolver_s_codes(attrs: str, code: str) -> None:
    with pytest.raises(KcfgError) as refused:
        build_requests(kernel(ADD, func_attrs=attrs))
    assert refused.value.code == code


def test_plan_with_precision_exact_runs_the_add_on_the_sfpu_and_keeps_the_knob_attributes() -> None:
    text = kernel(ADD, func_attrs='math_fidelity = "HiFi3"')
    assert SFPU not in plan_text(text).text
    planned = plan_text(text, options={"precision": "exact"}).text
    assert f"{{ttl.tile_execution_strategy = {SFPU}}}" in planned
    assert 'math_fidelity = "HiFi3"' in planned and "ttl.unpack_to_dest_fp32 = array<i32: 0, 1>" in planned


def test_the_pass_takes_the_new_options() -> None:
    options = SetComputeKernelConfig(
        precision="exact", math_fidelity="HiFi2", math_approx_mode=True
    ).options()
    assert options == {"precision": "exact", "math-fidelity": "HiFi2", "math-approx-mode": "true"}


def test_explain_takes_options_and_prints_no_loss_under_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "k.mlir").write_text(kernel(ADD))
    monkeypatch.chdir(tmp_path)
    assert main(["explain", "k.mlir"]) == 0
    lost = [line for line in capsys.readouterr().out.splitlines() if "precision of" in line]
    assert [line.split(" (lost")[0] for line in lost] == [
        "k.mlir:11:10: remark: precision of s operand 0 = tf32",
        "k.mlir:11:10: remark: precision of s operand 1 = tf32",
    ]
    assert main(["explain", "k.mlir", "--option", "precision=exact"]) == 0
    out = capsys.readouterr().out
    assert "precision of" not in out and "strategy of s = sfpu (forced by r1)" in out
