"""The CLI never loses an input and types every failure of reading or writing a file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner.cli import main
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
REFUSED = EXAMPLES / "pypto" / "refused_wrapping_offset.py"


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def source(tmp_path: Path) -> Path:
    copy = tmp_path / "refused.py"
    shutil.copy(REFUSED, copy)
    return copy


@pytest.mark.parametrize("option", ["--report", "-o"])
@pytest.mark.parametrize("spelling", ["same", "dotted", "link"])
def test_an_output_naming_the_input_is_refused_and_the_input_kept(
    capsys: pytest.CaptureFixture[str], source: Path, option: str, spelling: str
) -> None:
    original = source.read_bytes()
    target = {
        "same": source,
        "dotted": source.parent / "." / source.name,
        "link": source.parent / "alias.py",
    }[spelling]
    if spelling == "link":
        os.link(source, target)
    exit_code, out, err = run_main(capsys, "plan", str(source), option, str(target))
    assert (exit_code, out) == (2, "")
    assert "[request.output_is_input]" in err
    assert source.read_bytes() == original


@pytest.mark.parametrize("where", ["missing dir", "a directory"])
def test_an_output_that_cannot_be_a_file_is_a_typed_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    target = tmp_path / "absent" / "out.py" if where == "missing dir" else tmp_path
    exit_code, _, err = run_main(
        capsys, "plan", str(EXAMPLES / "pypto" / "nz_matmul_spmd.py"), "-o", str(target)
    )
    assert exit_code == 2
    assert err.startswith("planner: error: [request.unwritable] ")


def test_batch_output_naming_an_input_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    request = tmp_path / "request.json"
    shutil.copy(EXAMPLES / "json" / "proofs-check.json", request)
    exit_code, _, err = run_main(capsys, "batch", str(tmp_path), "-o", str(request))
    assert exit_code == 2
    assert "[request.output_is_input]" in err
    assert json.loads(request.read_text())["method"] == "proofs.check"


def test_an_endless_input_is_refused_at_the_byte_limit() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "planner.cli", "plan", "/dev/zero", "--max-bytes", "1000000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("planner: error: [request.too_large] ")
    assert "Traceback" not in done.stderr
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("command", [["plan"], ["call", "proofs.check"]])
def test_an_input_above_max_bytes_is_too_large(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"expr": "n", "bindings": [], "pad": "x" * 2000}))
    exit_code, _, err = run_main(capsys, *command, str(big), "--max-bytes", "1000")
    assert exit_code == 2
    assert "[request.too_large]" in err


def test_an_internal_fault_is_one_typed_line_and_a_traceback_only_with_debug(tmp_path: Path) -> None:
    probe = (
        "import sys, planner.adapters as a\n"
        "def broken(*args, **kwargs):\n    raise ZeroDivisionError('boom')\n"
        "a.plan_with = broken\n"
        "from planner.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    source = str(EXAMPLES / "pypto" / "nz_matmul_spmd.py")
    quiet = subprocess.run([sys.executable, "-c", probe, "plan", source], capture_output=True, text=True)
    assert quiet.returncode == 2
    assert quiet.stderr == "planner: internal error [request.internal] ZeroDivisionError: boom\n"
    loud = subprocess.run(
        [sys.executable, "-c", probe, "--debug", "plan", source], capture_output=True, text=True
    )
    assert loud.returncode == 2
    assert loud.stderr.startswith("planner: internal error [request.internal] ZeroDivisionError: boom\n")
    assert "Traceback (most recent call last)" in loud.stderr


def test_call_past_its_deadline_exits_2_with_a_timeout(tmp_path: Path) -> None:
    hard = tmp_path / "hard.json"
    hard.write_text(json.dumps({"expr": "(a*b*c) // (a*c*b) - 1", "bindings": [], "goals": ["non_negative"]}))
    started = time.monotonic()
    command = [
        sys.executable,
        "-m",
        "planner.cli",
        "call",
        "proofs.check",
        str(hard),
        "--timeout",
        "0.5",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("planner: error: [request.timeout] ")
    assert json.loads(done.stdout)["error"]["code"] == "request.timeout"
    assert time.monotonic() - started < 10
