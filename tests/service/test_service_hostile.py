"""A real `planner serve`, on stdio and on HTTP, against hostile clients and faulty cores.

Short limits (`--timeout 2`, `--read-timeout 1`) keep the file to seconds. Every case
asserts a typed answer, a `planner.version` ping answered within 1 s of the offending
message's deadline, no traceback on stderr (each internal fault on its one typed log line),
and at most 50 MB of memory growth across the service's processes.

Faults are injected into the cores of every process of the service through a
`sitecustomize` module on `PYTHONPATH`, picked by a `proofs.check` request's factor.
"""

from __future__ import annotations

import concurrent.futures
import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner import request_codes
from planner.errors import TOO_DEEP
from planner.service.client import PlannerClient
from tests.service.http_service import Served, read_reply
from tests.service.memory import tree_rss_kb
from tests.service.messages import HARD, MALFORMED, request_line

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
    tree = os.environ.get("PYTHONPATH", "")  # the tree under test stays first after the faults
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (str(site), tree))),
        "PYTHONUNBUFFERED": "1",
    }


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


def error_code(reply: Any) -> str:
    code: str = reply["error"]["data"]["code"]
    return code


HOSTILE_LINES: dict[str, tuple[bytes, str]] = {
    "escaped quotes, 4 MB, unterminated": (b'"' + b'\\"' * (2 * 1024 * 1024 - 1), request_codes.PARSE_ERROR),
    "escaped quotes, 64 KB, in a request": (
        request_line("proofs.check", {"expr": '\\"' * 32 * 1024}),
        "request.bad_expression",
    ),
    "nesting 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, TOO_DEEP),
    "id 1e400": (b'{"jsonrpc":"2.0","id":1e400,"method":"planner.version"}', request_codes.PARSE_ERROR),
    "not UTF-8": (b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', request_codes.PARSE_ERROR),
    "a 3.9 MB method name": (request_line("m" * 3_900_000, {}), request_codes.UNKNOWN_METHOD),
    "above the byte limit": (b" " * (4 * 1024 * 1024 + 10), request_codes.TOO_LARGE),
    "a hung core": (request_line("proofs.check", fault(HANG)), request_codes.TIMEOUT),
    "a core that runs past its deadline": (
        request_line("proofs.check", {"expr": HARD, "bindings": [], "goals": ["non_negative"]}),
        request_codes.TIMEOUT,
    ),
    "a crashed worker": (request_line("proofs.check", fault(CRASH)), request_codes.INTERNAL),
    "a core fault": (request_line("proofs.check", fault(DIVIDE)), request_codes.INTERNAL),
    "an unprintable core fault": (request_line("proofs.check", fault(UNPRINTABLE)), request_codes.INTERNAL),
    "details that are not JSON": (request_line("proofs.check", fault(BAD_DETAILS)), request_codes.INTERNAL),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_LINES))
def test_stdio_answers_a_hostile_line_typed_and_keeps_serving(stdio: Stdio, case: str) -> None:
    line, expected = HOSTILE_LINES[case]
    reply, deadline = stdio.exchange(line)
    if (
        expected == request_codes.TIMEOUT and "result" in reply
    ):  # a fast machine hits the resource limit first
        assert [result["status"] for result in reply["result"]["results"]] == ["unknown"], reply
        reply = {"error": {"data": {"code": expected}, "message": ""}}
    assert error_code(reply) == expected, reply
    assert len(reply["error"]["message"]) < 600  # the input is never echoed whole
    stdio.ping_within(deadline)
    log = stdio.close()
    assert "Traceback" not in log
    internal = [entry for entry in log.splitlines() if "[request.internal]" in entry]
    assert len(internal) == (1 if expected == request_codes.INTERNAL else 0), log
    assert all(entry.startswith("planner: internal error [request.internal] ") for entry in internal)


class Http(Served):
    """`planner serve --http` on a free loopback port, the short limits, faults injected."""

    def __init__(self, env: dict[str, str]) -> None:
        limits = ("--timeout", str(TIMEOUT), "--read-timeout", str(READ_TIMEOUT))
        super().__init__("--workers", "2", *limits, env=env)
        self.ping_within(time.monotonic() + 30)
        self.baseline_kb = tree_rss_kb(self.process.pid)

    def ping_within(self, deadline: float) -> None:
        status, reply = self.post(request_line("planner.version", {}))
        assert (status, reply["result"]["protocol"]) == (200, "1")
        assert time.monotonic() <= deadline + PING_SLACK

    def close(self) -> str:
        assert tree_rss_kb(self.process.pid) - self.baseline_kb <= RSS_GROWTH_LIMIT_KB
        return super().close()


@pytest.fixture(scope="module")
def web(faulty_env: dict[str, str]) -> Iterator[Http]:
    service = Http(faulty_env)
    yield service
    if service.process.poll() is None:
        service.process.kill()
        service.process.wait()


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_http_gets_a_4xx_with_a_json_error(web: Http, case: str) -> None:
    data, expected = MALFORMED[case]
    started = time.monotonic()
    if case == "a body shorter than its Content-Length":
        with web.connect() as connection:  # the client says it is done sending
            connection.sendall(data)
            connection.shutdown(socket.SHUT_WR)
            status, reply = read_reply(connection)
    else:
        status, reply = web.raw(data)
    assert status == expected
    assert reply["error"]["data"]["code"] in (request_codes.BAD_HTTP, request_codes.TOO_LARGE)
    web.ping_within(started + READ_TIMEOUT)


FAILED_CALLS: dict[str, tuple[bytes, str]] = {
    "not JSON": (b"{", request_codes.PARSE_ERROR),
    "an unknown method": (request_line("no.such", {}), request_codes.UNKNOWN_METHOD),
    "4 MB of escaped quotes": (b'"' + b'\\"' * (2 * 1024 * 1024 - 1), request_codes.PARSE_ERROR),
    "a hung core": (request_line("proofs.check", fault(HANG)), request_codes.TIMEOUT),
    "a core fault": (request_line("proofs.check", fault(DIVIDE)), request_codes.INTERNAL),
}


@pytest.mark.parametrize("case", sorted(FAILED_CALLS))
def test_a_failed_json_rpc_call_is_200_with_the_error(web: Http, case: str) -> None:
    body, expected = FAILED_CALLS[case]
    deadline = time.monotonic() + TIMEOUT
    status, reply = web.post(body)
    assert status == 200
    assert reply["error"]["data"]["code"] == expected
    web.ping_within(deadline)


def _stalls(web: Http, start: bytes, trickle: bytes) -> tuple[int, Any]:
    """A client that sends `start`, then one byte of `trickle` every 0.3 s; the reply it gets."""
    with web.connect() as connection:
        connection.sendall(start)
        for byte in trickle:
            time.sleep(0.3)
            try:
                connection.sendall(bytes([byte]))
            except OSError:
                break
        return read_reply(connection)


@pytest.mark.parametrize(
    ("start", "trickle"),
    [
        (b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{", b""),
        (b"POST / HTTP/1.1\r\n", b"Content-Length: 2\r\nX-Slow: " + b"z" * 20),
        (b"POST / HT", b"TP/1.1" * 10),
    ],
    ids=["stalled body", "trickled headers", "trickled request line"],
)
def test_a_stalled_client_never_delays_another(web: Http, start: bytes, trickle: bytes) -> None:
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        stalled = pool.submit(_stalls, web, start, trickle)
        time.sleep(0.2)
        web.ping_within(started - READ_TIMEOUT + 0.3)  # answered at once, while the other client stalls
        status, reply = stalled.result(timeout=30)
    assert (status, reply["error"]["data"]["code"]) == (408, request_codes.TIMEOUT)
    assert time.monotonic() - started <= READ_TIMEOUT + PING_SLACK + 0.6


def test_a_connection_reset_mid_request_leaves_no_trace(web: Http) -> None:
    started = time.monotonic()
    with web.connect() as connection:
        connection.sendall(b"POST / HTTP/1.1\r\nContent-Length: 50\r\n\r\n{")
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    web.ping_within(started)


def test_a_hung_request_does_not_hold_other_connections(web: Http) -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        hung = pool.submit(web.post, request_line("proofs.check", fault(HANG)))
        time.sleep(0.2)
        web.ping_within(time.monotonic() - PING_SLACK + 0.5)
        status, reply = hung.result(timeout=30)
    assert (status, reply["error"]["data"]["code"]) == (200, request_codes.TIMEOUT)


def test_zz_http_service_logged_only_typed_lines_and_stayed_small(web: Http) -> None:
    """Last in the file: the module's server, after every case above."""
    log = web.close()
    assert "Traceback" not in log
    *lines, stopped = log.splitlines()
    assert stopped.startswith("planner: error: [request.cancelled] stopped by SIGINT")  # Ctrl-C's own line
    assert lines and all(line.startswith("planner: internal error [request.internal] ") for line in lines), (
        log
    )
    assert len(lines) == 1  # the core fault among the failed calls
