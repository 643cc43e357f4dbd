"""A real `planner serve` subprocess over pipes: every method, a burst, and fuzzed input.

The server must answer every message (or stay silent for notifications), type every
error with a `request.*` code, keep serving, and keep its memory bounded.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.service.methods import METHODS

PLANNER = str(Path(sys.executable).with_name("planner"))
MAX_BYTES = 64 * 1024
RSS_GROWTH_LIMIT_KB = 50 * 1024
REPLY_TIMEOUT = 60.0

PROOF = {
    "expr": "n0",
    "bindings": [
        {"name": "nb", "kind": "spmd", "extent": 4},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
    ],
}
LAYOUT = {
    "target": "a2a3",
    "tensors": [{"name": "w", "shape": [256, 512], "dtype": "INT8", "layout": "NZ"}],
    "bindings": [
        {"name": "nb", "kind": "spmd", "extent": 2},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
        {"name": "k0", "kind": "for", "start": 512, "stop": 4096, "step": 512},
    ],
    "ops": [
        {
            "id": "l0",
            "op": "tile.load",
            "source": "w",
            "offsets": ["n0", "k0"],
            "shapes": [256, 512],
            "target_memory": "Mat",
        }
    ],
}
LAYOUT_REFUSED = {**LAYOUT, "bindings": [{"name": "n0", "kind": "param"}, {"name": "k0", "kind": "param"}]}
KERNEL = {
    "dfbs": [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "f32"}],
    "ops": [
        {
            "id": f"add{i}",
            "op": "tile_add",
            "operands": [{"dfb": 0}, {"dfb": 1}],
            "result_dtype": "f32",
            "same_tile_coords": True,
        }
        for i in range(10)
    ],
}
VALID_PARAMS: dict[str, dict[str, Any]] = {
    "planner.version": {},
    "proofs.check": PROOF,
    "layout.plan": LAYOUT,
    "kernelcfg.resolve": KERNEL,
}


def available(reference: str) -> bool:
    from planner.contract import RequestError
    from planner.service.methods import load

    try:
        load(reference)
    except RequestError:
        return False
    return True


class Server:
    """`planner serve` with a reader thread, so a hung server fails the test instead of hanging it."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [PLANNER, "serve", "--max-bytes", str(MAX_BYTES), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.replies: queue.Queue[bytes] = queue.Queue()
        self.baseline_kb = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.replies.put(line)

    def send(self, *lines: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(line + b"\n" for line in lines))
        self.process.stdin.flush()

    def reply(self) -> Any:
        return json.loads(self.replies.get(timeout=REPLY_TIMEOUT))

    def call(self, method: str, params: Any, id: Any = 1) -> Any:
        self.send(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode())
        return self.reply()

    def rss_kb(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=REPLY_TIMEOUT)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    for method, params in sorted(VALID_PARAMS.items()):  # warm up: the cores' imports are not growth
        running.call(method, params)
    running.baseline_kb = running.rss_kb()
    yield running
    assert running.close() == 0


def assert_well_formed(reply: Any) -> None:
    """A JSON-RPC 2.0 response: a result, or an error typed with a request.* code."""
    assert reply["jsonrpc"] == "2.0"
    assert "id" in reply
    assert ("result" in reply) != ("error" in reply)
    if "error" in reply:
        assert isinstance(reply["error"]["code"], int)
        assert reply["error"]["data"]["code"].startswith("request.")
        assert reply["error"]["message"]


def test_version_over_pipes(server: Server) -> None:
    assert server.call("planner.version", {})["result"]["methods"] == sorted(METHODS)


def test_proofs_check_over_pipes(server: Server) -> None:
    statuses = [r["status"] for r in server.call("proofs.check", PROOF)["result"]["results"]]
    assert statuses == ["proven", "proven"]


@pytest.mark.skipif(not available("planner.layout:plan"), reason="layout core not installed")
def test_layout_plan_over_pipes(server: Server) -> None:
    result = server.call("layout.plan", LAYOUT)["result"]
    assert result["ok"] is True
    assert result["ops"][0]["offsets"] == [0, "k0 // 32", "n0 // 16", 0, 0]
    refused = server.call("layout.plan", LAYOUT_REFUSED)["result"]
    assert refused["ok"] is False
    assert refused["diagnostics"][0]["code"].startswith("nz.offset_unprovable")


@pytest.mark.skipif(not available("planner.kernelcfg:resolve"), reason="kernel-config core not installed")
def test_kernelcfg_resolve_over_pipes(server: Server) -> None:
    result = server.call("kernelcfg.resolve", KERNEL)["result"]
    assert result["ok"] is True
    assert result["plan"]["dst_width"] == 32


@pytest.mark.skipif(not available("planner.adapters.pypto:plan_text"), reason="PyPTO adapter not installed")
def test_pypto_plan_over_pipes(server: Server) -> None:
    reply = server.call("pypto.plan", {"text": "this is not a program", "filename": "x.py"})
    assert_well_formed(reply)
    assert reply["error"]["data"]["code"] == "request.bad_input"


@pytest.mark.skipif(
    not available("planner.adapters.ttlang:plan_text"), reason="TT-Lang adapter not installed"
)
def test_ttlang_plan_over_pipes(server: Server) -> None:
    reply = server.call("ttlang.plan", {"text": "func.func @k( {", "filename": "x.mlir"})
    assert_well_formed(reply)
    assert reply["error"]["data"]["code"] == "request.bad_input"


def _mixed(index: int) -> tuple[str, Any]:
    """A deterministic mix of valid and invalid requests for every installed method."""
    method = sorted(VALID_PARAMS)[index % len(VALID_PARAMS)]
    params = VALID_PARAMS[method] if index % 3 else {"unknown": index}
    return method, params


def test_burst_of_1000_mixed_requests_keeps_order_ids_and_memory(server: Server) -> None:
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}).encode()
        for i, (m, p) in (enumerate(map(_mixed, range(1000))))
    ]
    server.send(*lines[:100])
    warm = [server.reply() for _ in range(100)]
    before = server.rss_kb()
    writer = threading.Thread(target=server.send, args=tuple(lines))
    writer.start()
    replies = [server.reply() for _ in lines]
    writer.join()
    assert server.rss_kb() - before <= RSS_GROWTH_LIMIT_KB
    assert [r["id"] for r in replies] == list(range(1000))
    for reply in replies:
        assert_well_formed(reply)
    assert replies[:100] == warm  # the same request gets the same answer
    assert all("error" in r for r in replies[::3])


NAMES = [*sorted(METHODS), "", "nope", "proofs", "layout.plan.extra", "PLANNER.VERSION"]
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@st.composite
def near_valid(draw: st.DrawFn) -> Any:
    """A valid request with one field dropped, retyped or added."""
    method = draw(st.sampled_from(sorted(VALID_PARAMS)))
    params = dict(VALID_PARAMS[method])
    if params and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(params)))
        if draw(st.booleans()):
            del params[key]
        else:
            params[key] = draw(json_values)
    else:
        params[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
    return {"jsonrpc": "2.0", "id": draw(st.integers()), "method": method, "params": params}


envelopes = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0", 2]), "method": st.sampled_from(NAMES) | json_values},
    optional={"id": json_values, "params": json_values},
)
fuzzed_messages = st.one_of(
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")),
    json_values.map(lambda v: json.dumps(v).encode()),
    envelopes.map(lambda v: json.dumps(v).encode()),
    near_valid().map(lambda v: json.dumps(v).encode()),
    st.lists(envelopes | near_valid(), max_size=5).map(lambda v: json.dumps(v).encode()),
    st.integers(min_value=65, max_value=5000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=MAX_BYTES, max_value=4 * MAX_BYTES).map(lambda n: b'"' + b"x" * n + b'"'),
)
SENTINEL = json.dumps({"jsonrpc": "2.0", "id": "sentinel", "method": "planner.version"}).encode()


def exchange(server: Server, messages: list[bytes]) -> None:
    """Send each message followed by a sentinel; every reply before the sentinel's must be well formed."""
    server.send(*(line for message in messages for line in (message, SENTINEL)))
    for _ in messages:
        while True:
            reply = server.reply()
            if isinstance(reply, dict) and reply.get("id") == "sentinel":
                break
            for item in reply if isinstance(reply, list) else [reply]:
                assert_well_formed(item)
    assert server.process.poll() is None


@settings(max_examples=100)  # 2,000 messages; the soak profile's count would run for hours
@given(st.lists(fuzzed_messages, min_size=20, max_size=20))
def test_fuzzed_requests_never_crash_the_server(server: Server, messages: list[bytes]) -> None:
    exchange(server, messages)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE") != "soak", reason="10,000 messages: make soak")
@settings(max_examples=100)  # 10,000 messages
@given(st.lists(fuzzed_messages, min_size=100, max_size=100))
def test_fuzzed_requests_soak(server: Server, messages: list[bytes]) -> None:
    before = server.rss_kb()
    exchange(server, messages)
    assert server.rss_kb() - before <= RSS_GROWTH_LIMIT_KB


def test_memory_stays_bounded_after_all_traffic(server: Server) -> None:
    """Runs last in file order: everything sent to this server grew its RSS by at most 50 MB."""
    exchange(server, [b"[" * 70 + b"]" * 70, b'"' + b"x" * (2 * MAX_BYTES) + b'"'] * 50)
    assert server.rss_kb() - server.baseline_kb <= RSS_GROWTH_LIMIT_KB


def test_http_face_serves_the_same_bodies() -> None:
    process = subprocess.Popen(
        [PLANNER, "serve", "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stderr is not None
        url = process.stderr.readline().decode().split(" on ")[1].strip()
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "proofs.check", "params": PROOF}).encode()
        with urllib.request.urlopen(
            urllib.request.Request(url, data=body), timeout=REPLY_TIMEOUT
        ) as response:
            http_reply = response.read()
        from planner.service.jsonrpc import handle_message
        from planner.service.limits import Limits

        assert http_reply.decode() == handle_message(body, Limits())
        bad = urllib.request.Request(url, data=b"{")
        with urllib.request.urlopen(bad, timeout=REPLY_TIMEOUT) as response:
            assert json.loads(response.read())["error"]["data"]["code"] == "request.parse_error"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(url), timeout=REPLY_TIMEOUT)
        assert refused.value.code == 405
        assert json.loads(refused.value.read())["error"]["data"]["code"] == "request.invalid_envelope"
        host, port = url.split("//")[1].rstrip("/").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=REPLY_TIMEOUT)
        connection.putrequest("POST", "/")
        connection.putheader("Content-Length", str(4 * 1024 * 1024 + 1))  # refused before the body is read
        connection.endheaders()
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["error"]["data"]["code"] == "request.too_large"
    finally:
        process.terminate()
        process.wait(timeout=REPLY_TIMEOUT)
