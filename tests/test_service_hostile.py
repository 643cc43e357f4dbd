"""A real `planner serve`, on stdio and on HTTP, against hostile clients and faulty cores.

Short limits (`--timeout 2`, `--read-timeout 1`) keep the file to seconds. Every case
asserts a typed answer, a `planner.version` ping answered within 1 s of the offending
message's deadline, no traceback on stderr (each internal fault on its one typed log line),
and at most 50 MB of memory growth across the service's processes.

Faults are injected into the cores of every process of the service through a
`sitecustomize` module on `PYTHONPATH`, picked by a `proofs.check` request's factor.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.service import codes
from planner.service.client import PlannerClient

TIMEOUT = 2.0
READ_TIMEOUT = 1.0
PING_SLACK = 1.0  # a ping after an offending message is answered within this long after its deadline
RSS_GROWTH_LIMIT_KB = 50 * 1024
PROOF = {
    "expr": "n0",
    "bindings": [
        {"name": "nb", "kind": "spmd", "extent": 4},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
    ],
}
HANG, CRASH, DIVIDE, UNPRINTABLE, BAD_DETAILS = (1 << n for n in range(40, 45))
HARD = "(a*b*c) // (a*c*b) - 1"  # Z3 cannot settle it in seconds: the cooperative deadline ends it

FAULTS = f"""
import functools, os, time
import planner.proofs
from planner.contract import RequestError

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text")

real = planner.proofs.check
faults = {{
    {HANG}: lambda: time.sleep(60),
    {CRASH}: lambda: os._exit(3),
    {DIVIDE}: lambda: 1 // 0,
    {UNPRINTABLE}: lambda: (_ for _ in ()).throw(Unprintable()),
    {BAD_DETAILS}: lambda: (_ for _ in ()).throw(RequestError("request.x", "set details", {{1, 2}})),
}}

@functools.wraps(real)
def check(request, *args, **kwargs):
    faults.get(request.factor, lambda: None)()
    return real(request, *args, **kwargs)

planner.proofs.check = check
"""


@pytest.fixture(scope="module")
def faulty_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("faults")
    (site / "sitecustomize.py").write_text(FAULTS)
    return {**os.environ, "PYTHONPATH": str(site), "PYTHONUNBUFFERED": "1"}


def tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants (the service and its workers)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        proc = Path(f"/proc/{current}")
        try:
            status = (proc / "status").read_text()
            children = (proc / "task" / str(current) / "children").read_text().split()
        except OSError:
            continue
        total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
        pending.extend(int(child) for child in children)
    return total


def fault(factor: int) -> dict[str, Any]:
    return {**PROOF, "factor": factor, "goals": ["multiple_of"]}


class Stdio:
    """`planner serve` on pipes with the short limits, faults injected, stderr captured to a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        self._stderr = log.open("wb")
        command = [sys.executable, "-m", "planner.cli", "serve", "--timeout", str(TIMEOUT)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        self.client = PlannerClient.connect(self.process.stdout, self.process.stdin, timeout=30.0)
        self.ping_within(time.monotonic() + 30)  # the workers are up
        self.baseline_kb = tree_rss_kb(self.process.pid)

    def exchange(self, line: bytes) -> tuple[Any, float]:
        """Send one raw line; its reply and the message's deadline (monotonic)."""
        self.client.send_raw(line)
        deadline = time.monotonic() + TIMEOUT
        return self.client.receive(), deadline

    def ping_within(self, deadline: float) -> None:
        """A version ping answered by `deadline + PING_SLACK` (monotonic)."""
        assert self.client.call("planner.version", {})["protocol"] == "1"
        assert time.monotonic() <= deadline + PING_SLACK

    def close(self) -> str:
        """Stop the service; its stderr."""
        assert tree_rss_kb(self.process.pid) - self.baseline_kb <= RSS_GROWTH_LIMIT_KB
        self.client.close()
        assert self.process.wait(timeout=30) == 0
        self._stderr.close()
        return self.log.read_text()


@pytest.fixture
def stdio(faulty_env: dict[str, str], tmp_path: Path) -> Iterator[Stdio]:
    service = Stdio(faulty_env, tmp_path / "stderr.log")
    yield service
    if service.process.poll() is None:
        service.process.kill()
        service.process.wait()


def request_line(method: str, params: Any, id: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode()


def error_code(reply: Any) -> str:
    code: str = reply["error"]["data"]["code"]
    return code


def chain(length: int) -> dict[str, Any]:
    """A `proofs.check` over `length` chained assignments, each 16 more than the one before."""
    bindings: list[dict[str, Any]] = [
        {"name": "x", "kind": "param", "min": 0, "max": 4096},
        {"name": "y0", "kind": "assign", "expr": "x * 16"},
    ]
    bindings += [{"name": f"y{i}", "kind": "assign", "expr": f"y{i - 1} + 16"} for i in range(1, length - 1)]
    return {"expr": f"y{length - 2}", "bindings": bindings, "factor": 16}


HOSTILE_LINES: dict[str, tuple[bytes, str]] = {
    "escaped quotes, 4 MB, unterminated": (b'"' + b'\\"' * (2 * 1024 * 1024 - 1), codes.PARSE_ERROR),
    "escaped quotes, 64 KB, in a request": (
        request_line("proofs.check", {"expr": '\\"' * 32 * 1024}),
        "request.bad_expression",
    ),
    "nesting 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, codes.TOO_DEEP),
    "id 1e400": (b'{"jsonrpc":"2.0","id":1e400,"method":"planner.version"}', codes.PARSE_ERROR),
    "not UTF-8": (b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', codes.PARSE_ERROR),
    "a 3.9 MB method name": (request_line("m" * 3_900_000, {}), codes.UNKNOWN_METHOD),
    "above the byte limit": (b" " * (4 * 1024 * 1024 + 10), codes.TOO_LARGE),
    "a hung core": (request_line("proofs.check", fault(HANG)), codes.TIMEOUT),
    "a core that runs past its deadline": (
        request_line("proofs.check", {"expr": HARD, "bindings": [], "goals": ["non_negative"]}),
        codes.TIMEOUT,
    ),
    "a crashed worker": (request_line("proofs.check", fault(CRASH)), codes.INTERNAL),
    "a core fault": (request_line("proofs.check", fault(DIVIDE)), codes.INTERNAL),
    "an unprintable core fault": (request_line("proofs.check", fault(UNPRINTABLE)), codes.INTERNAL),
    "details that are not JSON": (request_line("proofs.check", fault(BAD_DETAILS)), codes.INTERNAL),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_LINES))
def test_stdio_answers_a_hostile_line_typed_and_keeps_serving(stdio: Stdio, case: str) -> None:
    line, expected = HOSTILE_LINES[case]
    reply, deadline = stdio.exchange(line)
    assert error_code(reply) == expected, reply
    assert len(reply["error"]["message"]) < 600  # the input is never echoed whole
    stdio.ping_within(deadline)
    log = stdio.close()
    assert "Traceback" not in log
    internal = [entry for entry in log.splitlines() if "[request.internal]" in entry]
    assert len(internal) == (1 if expected == codes.INTERNAL else 0), log
    assert all(entry.startswith("planner: internal error [request.internal] ") for entry in internal)
