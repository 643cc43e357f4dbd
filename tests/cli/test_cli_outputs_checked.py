"""Every output is checked: a full device is `request.unwritable`, a reader that leaves early ends
the command quietly, two outputs naming one file are refused, and an option without effect is a
usage error. Each case runs the command as a process, since exit codes and stdout are a process's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.commands import PLANNER, PLANNER_OPT
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
PYPTO = EXAMPLES / "pypto" / "nz_matmul_spmd.py"
SUGGEST = EXAMPLES / "pypto" / "suggest_weights.py"
TTLANG = EXAMPLES / "ttlang" / "fpu_sfpu_mix.mlir"
CONFLICT = EXAMPLES / "ttlang" / "unpack_conflict.mlir"
REQUEST = EXAMPLES / "json" / "layout-plan.json"
EXIT_READER_LEFT = 141  # 128 + SIGPIPE, as a shell reports `yes | head -c 1`

# Each command that prints to standard output, as a user would type it.
PRINTING: dict[str, list[str]] = {
    "plan": [*PLANNER, "plan", str(PYPTO)],
    "plan --json": [*PLANNER, "plan", str(TTLANG), "--json"],
    "suggest": [*PLANNER, "suggest", str(SUGGEST)],
    "explain": [*PLANNER, "explain", str(TTLANG)],
    "explain-conflict": [*PLANNER, "explain-conflict", str(CONFLICT)],
    "call": [*PLANNER, "call", "layout.plan", str(REQUEST)],
    "batch": [*PLANNER, "batch", str(EXAMPLES / "ttlang")],
    "layout show": [*PLANNER, "layout", "show", "[64, 64] FP16"],
    "planner-opt": [*PLANNER_OPT, str(TTLANG), "-p", "ttl-set-compute-kernel-config"],
}


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=ROOT, capture_output="stdout" not in kwargs, text=True, timeout=120, check=False, **kwargs
    )  # type: ignore[call-overload,no-any-return]


def _onto_full_device(argv: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`argv` run with standard output on /dev/full, where every write fails with ENOSPC."""
    with open("/dev/full", "w") as full:
        return subprocess.run(
            argv,
            cwd=ROOT,
            input=stdin,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )


@pytest.mark.parametrize("command", sorted(PRINTING))
def test_a_full_device_on_standard_output_is_unwritable(command: str) -> None:
    done = _onto_full_device(PRINTING[command])
    assert done.returncode == 2
    assert "[request.unwritable] cannot write standard output: No space left on device" in done.stderr
    assert done.stderr.count("request.unwritable") == 1
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize(
    "argv",
    [[*PLANNER, "serve"], [*PLANNER, "--help"], [*PLANNER, "plan", "--help"], [*PLANNER_OPT, "--help"]],
)
def test_a_full_device_is_unwritable_for_the_service_and_for_help(argv: list[str]) -> None:
    done = _onto_full_device(argv, '{"jsonrpc": "2.0", "id": 1, "method": "planner.version"}\n')
    assert done.returncode == 2
    assert done.stderr.endswith(
        "[request.unwritable] cannot write standard output: No space left on device\n"
    )
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("command", sorted(PRINTING))
def test_a_reader_that_closed_the_pipe_ends_the_command_quietly(command: str) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left before the first byte
    try:
        done = subprocess.run(
            PRINTING[command],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (EXIT_READER_LEFT, "")


def _planned_program(tmp_path: Path) -> Path:
    source = tmp_path / "k.py"
    source.write_bytes(PYPTO.read_bytes())
    return source


@pytest.mark.parametrize("how", ["the same path", "a symlink", "a hard link", "standard output"])
def test_two_outputs_naming_one_file_are_refused_before_anything_is_written(tmp_path: Path, how: str) -> None:
    source = _planned_program(tmp_path)
    out = tmp_path / "out"
    out.write_text("kept\n")
    other = tmp_path / "other"
    if how == "a symlink":
        other.symlink_to(out)
    elif how == "a hard link":
        os.link(out, other)
    report = out if how == "the same path" else other
    if how == "standard output":
        with open(out, "a") as stdout:
            done = run(
                [*PLANNER, "plan", str(source), "--report", str(out)], stdout=stdout, stderr=subprocess.PIPE
            )
    else:
        done = run([*PLANNER, "plan", str(source), "-o", str(out), "--report", str(report)])
    assert done.returncode == 2
    assert "[request.invalid_params]" in done.stderr and "name the same file" in done.stderr
    assert out.read_text() == "kept\n"


def test_two_different_outputs_are_both_written(tmp_path: Path) -> None:
    source = _planned_program(tmp_path)
    done = run(
        [*PLANNER, "plan", str(source), "-o", str(tmp_path / "out"), "--report", str(tmp_path / "report")]
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out").read_text().startswith("#")
    assert (tmp_path / "report").read_text().startswith("{")


def test_suggest_output_without_apply_is_a_usage_error(tmp_path: Path) -> None:
    done = run([*PLANNER, "suggest", str(SUGGEST), "-o", str(tmp_path / "new.py")])
    assert done.returncode == 2
    assert "planner suggest: error: --output has no effect without --apply" in done.stderr
    assert not (tmp_path / "new.py").exists()


# ---------------------------------------------------------------------------------------------
# planner-opt answers with the exit codes and typed lines `planner plan` uses


@pytest.mark.parametrize("name", ["missing.mlir", "a_directory"])
def test_planner_opt_names_an_unreadable_input_once(tmp_path: Path, name: str) -> None:
    (tmp_path / "a_directory").mkdir()
    done = run([*PLANNER_OPT, str(tmp_path / name)])
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"planner-opt: error: [request.unreadable] cannot read {tmp_path / name}: "
        + ("No such file or directory" if name == "missing.mlir" else "Is a directory")
    ]


def test_planner_opt_and_planner_plan_answer_a_parse_error_alike(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    line = f"{bad}:1:15: error: [adapter.parse_error] Expected argument or type\n"
    for argv in ([*PLANNER_OPT, str(bad)], [*PLANNER, "plan", str(bad)]):
        done = run(argv)
        assert (done.returncode, done.stderr) == (2, line)


def test_planner_opt_parsing_diagnostics_prints_the_parse_error_and_exits_zero(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    done = run([*PLANNER_OPT, str(bad), "--parsing-diagnostics"])
    assert (done.returncode, done.stderr) == (
        0,
        f"{bad}:1:15: error: [adapter.parse_error] Expected argument or type\n",
    )


def test_planner_opt_verify_diagnostics_passes_an_expected_parse_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("// expected-error @below {{Expected argument or type}}\nfunc.func @f( {\n")
    done = run([*PLANNER_OPT, str(bad), "--verify-diagnostics"])
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize(
    "flag",
    [
        ["--no-implicit-module"],
        ["--print-between-passes"],
        ["--print-op-generic"],
        ["--print-no-properties"],
        ["--syntax-highlight"],
        ["--shrink"],
        ["-t", "wat"],
    ],
)
def test_planner_opt_refuses_an_inherited_flag_it_does_not_honour(flag: list[str]) -> None:
    done = run([*PLANNER_OPT, str(TTLANG), *flag])
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"planner-opt: error: {flag[0]}") and "is not supported" in done.stderr


@pytest.mark.parametrize(
    "flag", [["-t", "mlir"], ["-f", "mlir"], ["--allow-unregistered-dialect"], ["--print-debuginfo"]]
)
def test_planner_opt_accepts_the_inherited_flags_that_work(flag: list[str]) -> None:
    done = run([*PLANNER_OPT, str(TTLANG), *flag])
    assert done.returncode == 0, done.stderr
    assert "\nmodule attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {\n" in done.stdout
