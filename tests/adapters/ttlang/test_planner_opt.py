"""`planner-opt`, the MLIR tool face: canonical printing, the pass under xDSL, MLIR's options,
`-verify-diagnostics` matching, and the lit suite's runner catching a wrong CHECK line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.passes import PassPipeline
from xdsl.universe import Universe

from planner.adapters.ttlang import configure as public_configure
from planner.adapters.ttlang import opt_main as public_opt_main
from planner.adapters.ttlang.reading.context import ttlang_context
from planner.adapters.ttlang.reading.diagnostics import Diagnostic
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from planner.adapters.ttlang.tool.expected import expected_diagnostics, verify
from planner.adapters.ttlang.tool.opt_main import main, mlir_argv, pass_list
from planner.adapters.ttlang.writing.configure import SetComputeKernelConfig
from planner.adapters.ttlang.writing.mlir_printer import canonical_text
from tests.support.paths import ROOT

EXAMPLES = sorted((ROOT / "examples" / "ttlang").glob("*.mlir"))
LIT_DIR = ROOT / "tests" / "lit"
PASS = "ttl-set-compute-kernel-config"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_printed_output_reads_back_to_the_same_text(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refused example prints nothing; then its input, printed canonically, is read back instead."""
    status, printed, _ = run([str(path), "--split-input-file", "-p", "ttl-set-compute-kernel-config"], capsys)
    if status == 1:
        status, printed, _ = run([str(path), "--split-input-file"], capsys)
    assert status == 0 and printed
    for chunk in printed.split("// -----\n"):
        again = canonical_text(parse_chunk(Chunk(chunk, 0, 1), path.name).module)
        assert again == chunk


def test_canonical_output_puts_the_function_signature_and_sorted_attributes_on_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = next(path for path in EXAMPLES if path.name == "compute_mixed_args.mlir")
    status, printed, err = run([str(path), "-p", "ttl-set-compute-kernel-config"], capsys)
    assert (status, err) == (0, "")
    signature = next(line for line in printed.splitlines() if "func.func @k(" in line)
    assert signature.endswith(
        "attributes {dst_full_sync_en = false, fp32_dest_acc_en = true, "
        "ttl.unpack_to_dest_fp32 = array<i32: 0, 1>} {"
    )
    assert "ttl.bind_cb{cb_index = 0, block_count = 2} : <[1, 1], !ttcore.tile<32x32, f32>, 2>" in printed
    assert "ttl.enable_fpu_binary_ops" not in printed


def test_upstream_pipeline_and_single_dash_options_are_read() -> None:
    assert pass_list("builtin.module(func.func(ttl-set-compute-kernel-config{a=b c=d}))") == (
        "ttl-set-compute-kernel-config{a=b c=d}"
    )
    assert mlir_argv(["-split-input-file", "-verify-diagnostics", "-pass-pipeline=x", "-o", "f", "--p"]) == [
        "--split-input-file",
        "--verify-diagnostics",
        "--pass-pipeline=x",
        "-o",
        "f",
        "--p",
    ]


def test_the_output_file_option_writes_the_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.mlir"
    path = next(path for path in EXAMPLES if path.name == "f32_unpack.mlir")
    status, printed, _ = run([str(path), "-p", "ttl-set-compute-kernel-config", "-o", str(target)], capsys)
    assert (status, printed) == (0, "")
    assert "ttl.unpack_to_dest_fp32 = array<i32:" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "ttl-set-compute-kernel-config{no-such-option=1}"],
        ["-p", "not-a-pass"],
        ["-p", PASS, "--pass-pipeline=builtin.module(ttl-set-compute-kernel-config)"],
    ],
)
def test_a_bad_pipeline_is_a_usage_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, printed, err = run([str(EXAMPLES[0]), *args], capsys)
    assert (status, printed) == (2, "")
    assert err.startswith("planner-opt: error: ")


def test_a_bad_option_value_is_reported_on_the_function(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(path for path in EXAMPLES if path.name == "f32_unpack.mlir")
    status, printed, err = run([str(path), "-p", f"{PASS}{{matmul-full-fp32=maybe}}"], capsys)
    assert (status, printed) == (1, "")
    assert "error: invalid matmul-full-fp32 value 'maybe'; expected true, false, 1, or 0" in err


def test_the_public_paths_of_the_pass_and_the_console_script_name_the_tool_itself() -> None:
    assert public_configure.SetComputeKernelConfig is SetComputeKernelConfig
    assert public_opt_main.main is main


def test_the_pass_runs_in_an_xdsl_pipeline_and_is_offered_to_xdsl_tools() -> None:
    assert Universe.get_multiverse().all_passes["ttl-set-compute-kernel-config"]() is SetComputeKernelConfig
    path = next(path for path in EXAMPLES if path.name == "compute_mixed_args.mlir")
    module = parse_chunk(Chunk(path.read_text(encoding="utf-8"), 0, 1), path.name).module
    pipeline = PassPipeline.parse_spec(
        {"ttl-set-compute-kernel-config": lambda: SetComputeKernelConfig},
        "ttl-set-compute-kernel-config{enable-fpu-binary-ops=false fp32-dest-acc-en=enabled}",
    )
    pipeline.apply(ttlang_context(), module)
    assert "#ttl.tile_execution_strategy<sfpu>" in canonical_text(module)
    assert pipeline.passes[0].options() == {"enable-fpu-binary-ops": "false", "fp32-dest-acc-en": "enabled"}


# ---------------------------------------------------------------------------------------------
# -verify-diagnostics


DESIGNATED = """\
// expected-error @below {{first}}
// expected-note @+2 {{second}}
line three
line four
// expected-warning @-2 {{third}}
line six // expected-error {{fourth}}
// expected-remark @above {{fifth}}
"""


def test_designators_name_the_lines_mlir_gives_them() -> None:
    found = expected_diagnostics(Chunk(DESIGNATED, 0, 10))
    assert [(item.severity, item.line, item.text) for item in found] == [
        ("error", 12, "first"),
        ("note", 13, "second"),
        ("warning", 12, "third"),
        ("error", 15, "fourth"),
        ("remark", 13, "fifth"),  # lines holding a designator are skipped
    ]


def test_comments_on_one_line_are_read_left_to_right_to_the_first_closing_braces() -> None:
    line = "// expected-error {{a}} x // expected-note @+1 {{b // expected-error {{c}} // expected-error {{d"
    found = expected_diagnostics(Chunk(line + "\n", 0, 1))
    assert [(item.severity, item.line, item.text) for item in found] == [
        ("error", 1, "a"),
        ("note", 2, "b // expected-error {{c"),  # a text runs to its first closing braces
    ]


def test_an_offset_longer_than_any_file_names_no_line_of_it() -> None:
    found = expected_diagnostics(Chunk("// expected-error @+" + "9" * 5000 + " {{x}}\n", 0, 1))
    assert [(item.line, item.written_at) for item in found] == [(3, 1)]


HOSTILE_COMMENTS = {
    "30,000 unclosed comments on one line": "// expected-error {{" * 30_000,
    "a megabyte of spaces after a designator": "// expected-error" + " " * 1_000_000 + "x",
}


@pytest.mark.parametrize("text", HOSTILE_COMMENTS.values(), ids=HOSTILE_COMMENTS.keys())
def test_reading_expected_diagnostics_is_linear_in_the_line(text: str) -> None:
    """Each case took more than a minute when a lazy pattern was retried at every start position."""
    script = (
        "import sys\n"
        "from planner.adapters.ttlang.tool.expected import expected_diagnostics\n"
        "from planner.adapters.ttlang.reading.source import Chunk\n"
        "print(len(expected_diagnostics(Chunk(sys.stdin.read(), 0, 1))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=text, capture_output=True, text=True, timeout=20, check=True
    )
    assert done.stdout == "0\n"


def test_verification_reports_unexpected_and_missing_diagnostics() -> None:
    found = expected_diagnostics(Chunk(DESIGNATED, 0, 10))
    emitted = [
        Diagnostic("error", 12, 3, "'ttl.x' op the first problem"),
        Diagnostic("note", 13, 1, "the second"),
        Diagnostic("warning", 12, 1, "a third one"),
        Diagnostic("error", 15, 1, "nothing expected this"),
        Diagnostic("error", 20, 1, "or this"),
    ]
    assert verify(emitted, found) == [
        Diagnostic("error", 15, 1, "unexpected error: nothing expected this"),
        Diagnostic("error", 20, 1, "unexpected error: or this"),
        Diagnostic("error", 15, 1, 'expected error "fourth" was not produced'),
        Diagnostic("error", 16, 1, 'expected remark "fifth" was not produced'),
    ]


def test_verify_diagnostics_fails_on_a_diagnostic_nobody_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conflict = next(path for path in EXAMPLES if path.name == "unpack_conflict.mlir")
    status, _, err = run([str(conflict), "-verify-diagnostics", "-p", PASS], capsys)
    assert status == 1
    assert "error: unexpected error: 'ttl.tile_bcast' op dataflow buffer 1 requires incompatible" in err
    assert "error: unexpected note: operand 0 establishes the conflicting unpack mode" in err


# ---------------------------------------------------------------------------------------------
# The lit suite's runner


def test_the_lit_runner_reports_a_wrong_check_line(tmp_path: Path) -> None:
    """A copy of the suite's configuration with one passing and one deliberately wrong test."""
    shutil.copy(LIT_DIR / "lit.cfg.py", tmp_path / "lit.cfg.py")
    right = LIT_DIR / "foreign.mlir"
    shutil.copy(right, tmp_path / "right.mlir")
    written = right.read_text(encoding="utf-8")
    wrong = written.replace("#ttkernel.thread<compute>, ttl.unpack", "#ttkernel.thread<noc>, ttl.unpack")
    assert wrong != written
    (tmp_path / "wrong.mlir").write_text(wrong, encoding="utf-8")
    lit = Path(sys.executable).parent / "lit"
    result = subprocess.run([str(lit), "-v", str(tmp_path)], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "PASS: tile-planner :: right.mlir" in result.stdout
    assert "FAIL: tile-planner :: wrong.mlir" in result.stdout
    assert "CHECK-SAME: expected string not found" in result.stdout or "wrong.mlir:7" in result.stdout


def test_planner_plan_help_names_its_text_preserving_mode(capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli import main as planner_main

    with pytest.raises(SystemExit):
        planner_main(["plan", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "TT-Lang MLIR is planned in text-preserving mode" in helped
    assert "run planner-opt" in helped
