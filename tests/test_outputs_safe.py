"""Every command's outputs go through one writer that cannot destroy an input or a special file.

The README's "Files are safe" names these tests.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.errors import RequestError
from tests.support.commands import PLANNER_OPT
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
CONFLICT = EXAMPLES / "ttlang" / "unpack_conflict.mlir"
PLANNED = EXAMPLES / "ttlang" / "fpu_sfpu_mix.mlir"
PYPTO = EXAMPLES / "pypto" / "nz_matmul_spmd.py"
PASS = "ttl-set-compute-kernel-config"


RunCli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    """`planner ARGV...` in this process: its exit code, stdout and stderr."""
    from planner.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    path = tmp_path / "w.npy"
    np.save(path, np.arange(32 * 32, dtype=np.int8).reshape(32, 32))
    return path


def _packed_bytes(tmp_path: Path, weights: Path, run_cli: RunCli) -> bytes:
    reference = tmp_path / "reference.npy"
    assert run_cli("layout", "pack", str(weights), "--dtype", "INT8", "-o", str(reference))[0] == 0
    return reference.read_bytes()


def test_plan_from_stdin_refuses_a_report_onto_the_file_stdin_reads(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    shutil.copy(PYPTO, source)
    with source.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "planner.cli", "plan", "-", "--report", str(source)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert "[request.output_is_input]" in done.stderr
    assert source.read_bytes() == PYPTO.read_bytes()


def test_pack_onto_a_fifo_writes_through_it(tmp_path: Path, weights: Path, run_cli: RunCli) -> None:
    expected = _packed_bytes(tmp_path, weights, run_cli)
    fifo = tmp_path / "out.npy"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    exit_code, _, err = run_cli("layout", "pack", str(weights), "--dtype", "INT8", "-o", str(fifo))
    reader.join(timeout=30)
    assert (exit_code, err) == (0, "")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # never replaced by a regular file
    assert received == [expected]


def test_pack_onto_a_symlink_writes_its_target_and_keeps_the_link(
    tmp_path: Path, weights: Path, run_cli: RunCli
) -> None:
    expected = _packed_bytes(tmp_path, weights, run_cli)
    real = tmp_path / "real.npy"
    real.write_bytes(b"old")
    link = tmp_path / "link.npy"
    link.symlink_to(real.name)
    assert run_cli("layout", "pack", str(weights), "--dtype", "INT8", "-o", str(link))[0] == 0
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_bytes() == expected


def test_a_new_output_gets_0666_less_the_umask_and_an_old_one_keeps_its_mode(
    tmp_path: Path, weights: Path, run_cli: RunCli
) -> None:
    previous = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.npy"
        assert run_cli("layout", "pack", str(weights), "--dtype", "INT8", "-o", str(fresh))[0] == 0
        kept = tmp_path / "kept.py"
        kept.write_text("old\n")
        kept.chmod(0o604)
        assert run_cli("plan", str(PYPTO), "-o", str(kept))[0] == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604
    assert kept.read_text() != "old\n"


def test_an_unfinished_answer_leaves_the_target_and_no_temporary_file(tmp_path: Path) -> None:
    from planner.outputs import open_output

    target = tmp_path / "out.txt"
    target.write_text("before\n")
    with pytest.raises(RuntimeError), open_output(str(target), "-o") as out:
        out.write(b"half an answer")
        raise RuntimeError("the command failed before its answer was whole")
    assert target.read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


@pytest.mark.parametrize("shape", ["conflict", "unparsable"])
@pytest.mark.parametrize("onto", ["the input", "another file"])
def test_planner_opt_writes_nothing_for_a_refused_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str, onto: str
) -> None:
    kernel = tmp_path / "k.mlir"
    kernel.write_text(CONFLICT.read_text() if shape == "conflict" else "func.func @f( {\n")
    original = kernel.read_bytes()
    target = kernel if onto == "the input" else tmp_path / "out.mlir"
    if onto == "another file":
        target.write_text("kept\n")
    kept = target.read_bytes()
    exit_code = opt_main([str(kernel), "-p", PASS, "-o", str(target)])
    err = capsys.readouterr().err
    assert exit_code == (1 if shape == "conflict" and onto == "another file" else 2)
    assert kernel.read_bytes() == original
    assert target.read_bytes() == kept
    if onto == "the input":
        assert "[request.output_is_input]" in err


def test_planner_opt_refuses_an_output_onto_the_file_stdin_reads(tmp_path: Path) -> None:
    kernel = tmp_path / "k.mlir"
    shutil.copy(PLANNED, kernel)
    with kernel.open("rb") as stdin:
        done = subprocess.run(
            [*PLANNER_OPT, "-", "-p", PASS, "-o", str(kernel)],
            stdin=stdin, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2
    assert "[request.output_is_input]" in done.stderr
    assert kernel.read_bytes() == PLANNED.read_bytes()


@pytest.mark.parametrize(
    "argv",
    [
        ["layout", "pack", "{weights}", "--dtype", "INT8", "-o", "{missing}/x.npy"],
        ["layout", "pack", "{weights}", "--dtype", "INT8", "-o", "{dir}"],
        ["layout", "unpack", "{weights}", "--dtype", "INT8", "--shape", "32,32", "-o", "{dir}"],
        ["layout", "show", "[64, 64] FP16", "--png", "{missing}/x.png"],
        ["explain-conflict", str(CONFLICT), "--graph", "{missing}/x.dot"],
    ],
    ids=[
        "pack-missing-dir",
        "pack-directory",
        "unpack-directory",
        "show-png-missing-dir",
        "graph-missing-dir",
    ],
)
def test_an_output_that_cannot_be_written_is_request_unwritable(
    tmp_path: Path, weights: Path, run_cli: RunCli, argv: list[str]
) -> None:
    filled = [arg.format(weights=weights, missing=tmp_path / "missing", dir=tmp_path) for arg in argv]
    exit_code, _, err = run_cli(*filled)
    assert exit_code == 2
    assert err.startswith("planner: error: [request.unwritable] ")
    assert not (tmp_path / "missing").exists()


def test_planner_opt_output_in_a_missing_directory_is_request_unwritable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exit_code = opt_main([str(PLANNED), "-p", PASS, "-o", str(tmp_path / "missing" / "x.mlir")])
    assert exit_code == 2
    assert capsys.readouterr().err.startswith("planner-opt: error: [request.unwritable] ")


def test_the_writer_refuses_a_directory_as_a_typed_error(tmp_path: Path) -> None:
    from planner.outputs import open_output

    with pytest.raises(RequestError) as refused, open_output(str(tmp_path), "-o"):
        pass
    assert refused.value.code == "request.unwritable"
