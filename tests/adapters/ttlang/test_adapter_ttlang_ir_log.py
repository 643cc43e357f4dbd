"""IR-printing logs (`// -----// IR Dump Before|After <Pass> (<arg>) //----- //` sections) read
as the IR they dump: which section is planned, the note naming it, and the log kept byte for byte
outside the plan's attributes. The example log is TT-Lang 1.1.1's own output."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import plan_text
from planner.adapters.ttlang.base.codes import NO_IR_DUMP
from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.explain import conflicts
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "ttlang"
LOG = (EXAMPLES / "kernel_passes.log").read_text(encoding="utf-8")
TILE = "!ttcore.tile<32x32, bf16>"
CONFIG = "TTLSetComputeKernelConfig (ttl-set-compute-kernel-config)"


def _function(name: str, op: str = "tile_exp") -> str:
    return (
        f"func.func @{name}(%t: tensor<1x1x{TILE}>) {{\n"
        "  %c0 = arith.constant 0 : index\n"
        f"  %cb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : !ttl.cb<[1, 1], {TILE}, 2>\n"
        f"  %in = ttl.attach_cb %t, %cb : (tensor<1x1x{TILE}>, !ttl.cb<[1, 1], {TILE}, 2>)"
        f" -> tensor<1x1x{TILE}>\n"
        f"  %x = tensor.extract %in[%c0, %c0] : tensor<1x1x{TILE}>\n"
        f"  %e = ttl.{op} %x into dst[%c0] : {TILE} -> {TILE}\n"
        "  return\n"
        "}\n"
    )


def _header(when: str, title: str, scope: str = "") -> str:
    return f"// -----// IR Dump {when} {title}{scope} //----- //\n"


def _planned_functions(text: str, section: str | None = None) -> list[str]:
    options = {"section": section} if section is not None else None
    return [
        entry["function"] for entry in plan_text(text, filename="log", options=options).report["functions"]
    ]


def test_the_upstream_log_plans_each_function_from_its_own_config_section() -> None:
    outcome = plan_text(LOG, filename="kernel_passes.log")
    assert [entry["function"] for entry in outcome.report["functions"]] == ["add", "exp_and_bcast"]
    first = outcome.diagnostics[0].split("\n")
    assert first[0].startswith("kernel.py:9:11: error: 'ttl.tile_bcast' op dataflow buffer 1")
    assert first[1] == "kernel_passes.log:73:8: note: the op in the IR"
    assert outcome.diagnostics[-2:] == [
        f"kernel_passes.log:{line}:1: note: planned the IR dumped under "
        f"'// -----// IR Dump Before {CONFIG} //----- //' (line {line} of the log;"
        " with the attributes of the module at line 6)"
        for line in (52, 65)
    ]
    assert outcome.text == LOG  # refused: the log byte for byte


def test_a_planned_log_changes_only_the_chosen_sections_attributes() -> None:
    log = (
        "some output of the tool\n"
        + _header("Before", "CanonicalizerPass (canonicalize)")
        + "module {\n"
        + _function("f")
        + "}\n\n"
        + _header("Before", CONFIG)
        + _function("f")
        + "\n"
        + _header("After", CONFIG)
        + _function("f")
    )
    outcome = plan_text(log, filename="log")
    assert outcome.ok
    before, after = log.split("\n"), outcome.text.split("\n")
    assert len(before) == len(after)
    changed = [index for index, (was, now) in enumerate(zip(before, after, strict=True)) if was != now]
    assert changed == [before.index(_header("Before", CONFIG).rstrip()) + 1]
    assert after[changed[0]].startswith(
        "func.func @f(%t: tensor<1x1x!ttcore.tile<32x32, bf16>>) attributes {"
    )


def test_function_scoped_dumps_with_names_give_each_function_from_its_own_section() -> None:
    module = "module {\n" + _function("f") + _function("g") + "}\n"
    log = "".join(
        _header("Before", CONFIG, f" ('func.func' operation: @{name})") + module for name in ("f", "g", "f")
    )
    outcome = plan_text(log, filename="log")
    assert [entry["function"] for entry in outcome.report["functions"]] == ["f", "g"]
    assert [entry["location"] for entry in outcome.report["functions"]] == ["log:3:1", "log:30:1"]


def test_a_module_pass_dump_is_taken_once() -> None:
    module = "module {\n" + _function("f") + _function("g") + "}\n"
    log = _header("Before", CONFIG) + module + _header("Before", CONFIG) + module
    assert _planned_functions(log) == ["f", "g"]


def test_without_a_config_dump_the_last_dump_is_taken() -> None:
    log = (
        _header("Before", "CanonicalizerPass (canonicalize)")
        + _function("f")
        + _header("After", "CanonicalizerPass (canonicalize)")
        + _function("g")
        + _header("After", "CSE (cse)")
        + "\n"
    )
    assert _planned_functions(log) == ["g"]


def test_section_picks_the_first_dump_whose_header_holds_the_text() -> None:
    log = (
        _header("Before", "CanonicalizerPass (canonicalize)")
        + _function("f")
        + _header("Before", CONFIG)
        + _function("g")
    )
    assert _planned_functions(log, "Canonicalizer") == ["f"]
    with pytest.raises(AdapterInputError) as raised:
        _planned_functions(log, "no such pass")
    assert raised.value.code == NO_IR_DUMP and "no dump's header holds 'no such pass'" in raised.value.message


def test_a_log_without_ir_is_a_typed_error_saying_what_was_looked_for() -> None:
    with pytest.raises(AdapterInputError) as raised:
        plan_text(_header("Before", CONFIG) + "\n// nothing here\n", filename="log")
    assert raised.value.code == NO_IR_DUMP
    assert "no dump holds IR" in raised.value.message and "IR Dump Before|After" in raised.value.message


def test_section_on_a_file_that_is_not_a_log_is_refused() -> None:
    with pytest.raises(AdapterInputError) as raised:
        plan_text(_function("f"), filename="f.mlir", options={"section": "x"})
    assert raised.value.code == NO_IR_DUMP


def test_explain_conflict_reports_the_log_at_the_kernel_line() -> None:
    lines = conflicts.render(conflicts.explain_ir("kernel_passes.log", LOG)).split("\n")
    assert lines[0].startswith("kernel.py:9:11: error: [kcfg.dfb_unpack_conflict]")
    assert lines[1] == "kernel_passes.log:73:8: note: the op in the IR"
    assert lines[2].startswith("kernel.py:12:10: note: op '2', operand 0:")
    assert lines[3:5] == [
        "kernel.py:8:9: note: called from",
        "kernel_passes.log:72:8: note: the op in the IR",
    ]


def test_planner_opt_runs_on_the_chosen_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "passes.log"
    log.write_text(
        _header("Before", "CanonicalizerPass (canonicalize)")
        + _function("f", "tile_log")
        + _header("Before", CONFIG)
        + _function("g")
    )
    assert opt_main([str(log), "-p", "ttl-set-compute-kernel-config"]) == 0
    captured = capsys.readouterr()
    assert "func.func @g" in captured.out and "@f" not in captured.out
    header = _header("Before", CONFIG).rstrip()
    assert captured.err == (
        f"{log}:10:1: note: planned the IR dumped under '{header}' (line 10 of the log; it holds functions "
        "alone and no earlier dump shows their module, so the module's attributes (its target) are not "
        "known: a function is planned only where its plan is the same under every target (wormhole_b0, "
        "blackhole, none), unless --target-arch names the target; print the log with "
        "--mlir-print-ir-module-scope to show them)\n"
    )
    assert opt_main([str(log), "-p", "ttl-set-compute-kernel-config", "--section", "canonicalize"]) == 0
    assert "func.func @f" in capsys.readouterr().out


def test_functions_dumped_alone_plan_under_the_attributes_of_the_module_dumped_before() -> None:
    module = "module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {\n" + _function("f") + "}\n"
    log = (
        _header("Before", "CanonicalizerPass (canonicalize)")
        + module
        + _header("Before", CONFIG)
        + _function("f")
    )
    outcome = plan_text(log, filename="log")
    assert outcome.report["functions"][0]["request"]["arch"] == "blackhole"
    assert outcome.diagnostics[-1].endswith(
        "(line 12 of the log; with the attributes of the module at line 2)"
    )
    alone = plan_text(_header("Before", CONFIG) + _function("f"), filename="log")
    assert alone.report["functions"][0]["request"]["arch"] != "blackhole"
