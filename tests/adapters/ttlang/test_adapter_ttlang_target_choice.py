"""The target of a function dumped alone, whose module the IR-printing log never shows, and the
target given on the command line (`--target-arch NAME`).

The property's oracle is the same function planned inside a whole module that names each target
(`ttl.target_arch`, or no attribute for `none`): a function dumped alone is planned only when all
of those plans agree, and then as they do; given a target, it is planned as the module naming
that target plans it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import plan_text
from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.cli import main
from planner.explain.remarks import explain_source
from planner.limits import Limits

TARGETS = ("wormhole_b0", "blackhole", "none")  # written out: the oracle does not import the registry
HEADER = "// -----// IR Dump Before TTLSetComputeKernelConfig (ttl-set-compute-kernel-config) //----- //\n"


def _tile(dtype: str) -> str:
    return f"!ttcore.tile<32x32, {dtype}>"


def _function(dtype: str, ops: list[str], attrs: str = "", index: int = 0) -> str:
    tile = _tile(dtype)
    cb = f"!ttl.cb<[1, 1], {tile}, 2>"
    tensor = f"tensor<1x1x{tile}>"
    attributes = f" attributes {{{attrs}}}" if attrs else ""
    body = "".join(f"  {line.replace('T', tile)}\n" for line in ops)
    return (
        f"func.func @f(%t: {tensor}, %u: {tensor}){attributes} {{\n"
        "  %c0 = arith.constant 0 : index\n"
        f"  %b0 = ttl.bind_cb {{cb_index = {index}, block_count = 2}} : {cb}\n"
        f"  %b1 = ttl.bind_cb {{cb_index = 1, block_count = 2}} : {cb}\n"
        f"  %a0 = ttl.attach_cb %t, %b0 : ({tensor}, {cb}) -> {tensor}\n"
        f"  %a1 = ttl.attach_cb %u, %b1 : ({tensor}, {cb}) -> {tensor}\n"
        f"  %x = tensor.extract %a0[%c0, %c0] : {tensor}\n"
        f"  %y = tensor.extract %a1[%c0, %c0] : {tensor}\n"
        f"{body}"
        "  return\n"
        "}\n"
    )


def _in_module(function: str, target: str) -> str:
    attributes = "" if target == "none" else f" attributes {{ttl.target_arch = #ttcore.arch<{target}>}}"
    indented = "".join(f"  {line}\n" for line in function.splitlines())
    return f"module{attributes} {{\n{indented}}}\n"


OPS = [
    "%e = ttl.tile_exp %x into dst[%c0] : T -> T",
    "%s = ttl.tile_add %x, %y into dst[%c0] : T, T -> T",
    "%c = ttl.tile_bcast %x, %y 1 : i32 into dst[%c0] : (T, T) -> T",
    "%w = ttl.tile_bcast %x, %y 2 : i32 into dst[%c0] : (T, T) -> T",
    "%r = ttl.tile_reduce %x, %y, %x 0 : i32 <reduce_dim_row> into dst[%c0] : (T, T, T) -> T",
    "%k = ttl.tile_reduce %x, %y, %x 0 : i32 <reduce_dim_col> into dst[%c0] : (T, T, T) -> T",
]


@st.composite
def _kernels(draw: st.DrawFn) -> str:
    dtype = draw(st.sampled_from(["bf16", "f32"]))
    ops = draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=3, unique=True))
    attrs = draw(st.sampled_from(["", "fp32_dest_acc_en = true", "fp32_dest_acc_en = false"]))
    index = draw(st.sampled_from([0, 2, 40, 70]))  # 40: past Wormhole's 32 buffers, within Blackhole's 64
    return _function(dtype, ops, attrs, index)


def _answer(text: str, target: str | None = None) -> Any:
    options = {"target-arch": target} if target is not None else None
    return plan_text(text, filename="k.mlir", options=options).report["functions"][0]["response"]


def _same(response: Any) -> Any:
    """An answer up to a refusal's wording (which names its target)."""
    conflict = response["conflict"]
    key = (
        None
        if conflict is None
        else (conflict["code"], conflict["where"], conflict["op"], conflict["operand"])
    )
    return response["plan"], response["warnings"], key


@given(_kernels())
def test_a_function_dumped_alone_is_planned_only_as_every_target_would_plan_it(function: str) -> None:
    in_modules = [_answer(_in_module(function, target)) for target in TARGETS]
    alone = _answer(HEADER + function)
    if all(_same(answer) == _same(in_modules[0]) for answer in in_modules):
        assert _same(alone) == _same(in_modules[0])
    else:
        assert alone["conflict"]["code"] == "adapter.target_unknown"
        assert "--mlir-print-ir-module-scope" in alone["conflict"]["message"]
        assert "--target-arch NAME" in alone["conflict"]["message"]


@given(_kernels(), st.sampled_from(TARGETS))
def test_a_given_target_plans_as_the_module_naming_it(function: str, target: str) -> None:
    expected = _answer(_in_module(function, target))
    assert _answer(HEADER + function, target) == expected
    unnamed = _in_module(function, "none")  # a module naming no target takes the given one
    assert _answer(unnamed, target) == expected


BCAST_BF16_32 = _function("bf16", [OPS[2]], "fp32_dest_acc_en = true")


def test_the_refusal_names_the_decision_that_depends_on_the_target() -> None:
    outcome = plan_text(HEADER + BCAST_BF16_32, filename="k.log")
    assert not outcome.ok and outcome.text == HEADER + BCAST_BF16_32
    error = outcome.diagnostics[0]
    assert error.startswith("k.log:2:1: error: 'func.func' op function @f is dumped without its module")
    assert (
        "its outcome depends on the target (refused (kcfg.dst_width_explicit_unsupported) "
        "under wormhole_b0, blackhole; planned under none)"
    ) in error
    assert "the same under every target (wormhole_b0, blackhole, none)" in outcome.diagnostics[-1]


def test_a_plan_every_target_agrees_on_is_planned_with_the_note() -> None:
    text = HEADER + _function("bf16", [OPS[0]])
    outcome = plan_text(text, filename="k.log")
    assert outcome.ok and "fp32_dest_acc_en = false" in outcome.text
    assert outcome.diagnostics[-1].startswith("k.log:1:1: note: planned the IR dumped under")


def test_a_given_target_that_contradicts_the_module_is_an_input_error() -> None:
    text = _in_module(_function("bf16", [OPS[0]]), "blackhole")
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text, filename="k.mlir", options={"target-arch": "wormhole_b0"})
    error = caught.value
    assert (error.code, error.line, error.column) == ("adapter.target_mismatch", 1, 1)
    assert error.message == "--target-arch wormhole_b0 contradicts the module's own target, blackhole"
    assert plan_text(text, filename="k.mlir", options={"target-arch": "blackhole"}).ok


def test_a_target_outside_the_known_ones_is_an_input_error() -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(HEADER + BCAST_BF16_32, options={"target-arch": "quasar"})
    assert caught.value.code == "adapter.option_invalid"
    assert "expected one of wormhole_b0, blackhole, none" in caught.value.message


def test_explain_refuses_where_only_the_reasons_depend_on_the_target() -> None:
    """A bf16 broadcast: 16-bit DST on every target, forced where broadcasts forbid 32 bits, only
    preferred without a target; the remark would claim one of the two."""
    text = HEADER + _function("bf16", [OPS[2]])
    assert plan_text(text, filename="k.log").ok
    explained = explain_source("k.log", text, Limits())
    assert not explained.ok
    assert "adapter.target_unknown" in explained.text
    assert "its reason for dst_width depends on the target (forced by r1, narrow_destination under " in (
        explained.text
    )
    assert explain_source("k.log", text, Limits(), {"target-arch": "blackhole"}).ok


def _cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    log = tmp_path / "k.log"
    log.write_text(HEADER + BCAST_BF16_32)
    code = main([argv[0], str(log), *argv[1:]])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(log), "k.log")


def test_the_command_line_takes_the_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(tmp_path, capsys, "plan")
    assert (code, out) == (1, "")
    assert err.startswith("k.log:2:1: error: 'func.func' op function @f is dumped without its module")
    code, out, err = _cli(tmp_path, capsys, "plan", "--target-arch", "none")
    assert code == 0 and "fp32_dest_acc_en = true" in out
    assert _cli(tmp_path, capsys, "plan", "--target-arch", "blackhole")[0] == 1
    assert _cli(tmp_path, capsys, "explain-conflict", "--target-arch", "none")[0] == 0
    assert _cli(tmp_path, capsys, "explain", "--target-arch", "none")[0] == 0
    with pytest.raises(SystemExit) as usage:
        _cli(tmp_path, capsys, "plan", "--target-arch", "quasar")
    assert usage.value.code == 2 and "invalid choice: 'quasar'" in capsys.readouterr().err


def test_batch_takes_the_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.mlir").write_text(HEADER + BCAST_BF16_32)
    assert main(["batch", str(tmp_path)]) == 1
    assert "dumped without its module" in capsys.readouterr().out
    assert main(["batch", str(tmp_path), "--target-arch", "none"]) == 0


def test_planner_opt_takes_the_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "k.log"
    log.write_text(HEADER + BCAST_BF16_32)
    assert opt_main([str(log), "-p", "ttl-set-compute-kernel-config"]) == 1
    refused = capsys.readouterr()
    assert refused.out == ""
    assert refused.err.startswith(
        f"{log}:2:1: error: 'func.func' op function @f is dumped without its module"
    )
    assert opt_main([str(log), "-p", "ttl-set-compute-kernel-config", "--target-arch", "none"]) == 0
    assert "fp32_dest_acc_en = true" in capsys.readouterr().out
    module = tmp_path / "k.mlir"
    module.write_text(_in_module(_function("bf16", [OPS[0]]), "blackhole"))
    assert opt_main([str(module), "-p", "ttl-set-compute-kernel-config", "--target-arch", "none"]) == 1
    assert capsys.readouterr().err == (
        f"{module}:1:1: error: --target-arch none contradicts the module's own target, blackhole\n"
    )
