"""Every command is held to one deadline (`--timeout`) and one memory cap (`--max-memory`).

Cases that would hang run in a subprocess with a timeout of their own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner.budget import deadline_after
from planner.errors import RequestError
from planner.service.workers import WorkerPool
from tests.support.commands import PLANNER, PLANNER_OPT
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
# Runs the command after it and prints its peak resident memory (KiB) as the last line of stderr.
MEASURED = [
    sys.executable,
    "-c",
    "import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); raise SystemExit(code)",
]


def _run(argv: list[str], limit: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A named pipe nobody writes: opening it to read blocks forever."""
    path = tmp_path / "never.py"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "argv",
    [
        [*PLANNER, "plan", "{fifo}"],
        [*PLANNER, "suggest", "{fifo}"],
        [*PLANNER, "explain", "{fifo}"],
        [*PLANNER, "explain-conflict", "{fifo}"],
        [*PLANNER, "call", "proofs.check", "{fifo}"],
        [*PLANNER, "layout", "pack", "{fifo}", "--dtype", "INT8", "-o", "{out}"],
        [*PLANNER_OPT, "{fifo}", "-p", "ttl-set-compute-kernel-config"],
    ],
    ids=["plan", "suggest", "explain", "explain-conflict", "call", "layout-pack", "planner-opt"],
)
def test_reading_a_fifo_with_no_writer_times_out(fifo: Path, tmp_path: Path, argv: list[str]) -> None:
    filled = [arg.format(fifo=fifo, out=tmp_path / "out.npy") for arg in argv]
    started = time.monotonic()
    done = _run([*filled, "--timeout", "1"])
    assert done.returncode == 2
    assert "[request.timeout]" in done.stderr
    assert time.monotonic() - started < 30


def test_batch_times_out_one_file_and_plans_the_others(fifo: Path, tmp_path: Path) -> None:
    planned = tmp_path / "planned.py"
    planned.write_bytes((EXAMPLES / "pypto" / "nz_matmul_spmd.py").read_bytes())
    done = _run([*PLANNER, "batch", str(fifo), str(planned), "--timeout", "1"])
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 2
    assert [(line["input"], line["exit"]) for line in lines] == [(str(fifo), 2), (str(planned), 0)]
    assert lines[0]["error"]["code"] == "request.timeout"


def test_layout_show_caps_the_cells_it_draws_and_says_so() -> None:
    done = _run([*PLANNER, "layout", "show", "[1048576, 1048576] FP16"])
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "first 32 x 32 of 65536 x 65536 fractals shown (at most 32 per axis)" in lines
    assert len(lines) == 4 + 32  # three header lines, the column labels, 32 rows
    assert lines[-1].split()[-1] == str(31 * 65536 + 31)  # memory index of the last drawn fractal


def _chain(bindings: int) -> dict[str, object]:
    """b_i = max(b_{i-1}, 0) - min(b_{i-1}, 5): every binding reads the one before twice."""
    chain: list[dict[str, object]] = [{"name": "b0", "kind": "param", "min": 0, "max": 100}]
    chain += [
        {"name": f"b{i}", "kind": "assign", "expr": f"max(b{i - 1}, 0) - min(b{i - 1}, 5)"}
        for i in range(1, bindings)
    ]
    return {"expr": f"b{bindings - 1} * 16", "bindings": chain, "goals": ["non_negative"]}


def test_a_16384_binding_chain_stays_within_the_memory_cap(tmp_path: Path) -> None:
    request = tmp_path / "chain.json"
    request.write_text(json.dumps(_chain(16384)))
    done = _run([*MEASURED, *PLANNER, "call", "proofs.check", str(request), "--timeout", "8", "--json"], 120)
    peak_kib = int(done.stderr.splitlines()[-1])
    assert done.returncode in (1, 2), done.stderr
    if done.returncode == 2:
        assert json.loads(done.stdout)["error"]["code"] in ("request.too_large", "request.timeout")
    assert peak_kib < 1024 * 1024 + 64 * 1024  # the 1 GiB address-space cap (resident is below it)


def test_the_cli_answers_a_request_past_max_memory_as_too_large(tmp_path: Path) -> None:
    request = tmp_path / "chain.json"
    request.write_text(json.dumps(_chain(2048)))
    done = _run(
        [
            *PLANNER,
            "call",
            "proofs.check",
            str(request),
            "--timeout",
            "60",
            "--max-memory",
            str(400 << 20),
            "--json",
        ],
        limit=120,
    )
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "request.too_large"


def test_a_service_worker_answers_a_request_past_max_memory_as_too_large() -> None:
    with WorkerPool(1, max_memory=600 << 20) as pool:
        outcome = pool.run("proofs.check", _chain(2048), deadline_after(60))
        assert isinstance(outcome, RequestError) and outcome.code == "request.too_large"
        small = pool.run(
            "proofs.check", {"expr": "16 * n", "bindings": [{"name": "n", "kind": "param"}]}, None
        )
    assert not isinstance(small, RequestError)
    assert [result["status"] for result in small["results"]] == ["proven", "refuted"]
