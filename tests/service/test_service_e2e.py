"""A real `planner serve` subprocess over pipes: every method, a burst, fuzzed input, faults.

The server must answer every message (or stay silent for notifications), type every
error with a `request.*` code, keep serving after a core fault, keep its memory bounded,
and exit 0 on EOF or when its reader goes away. Spoken to through `PlannerClient`.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner import request_codes
from planner.errors import TOO_DEEP
from planner.service.client import PlannerClient, ServiceError
from planner.service.methods import METHODS
from tests.service.messages import HARD, KERNEL, LAYOUT, LAYOUT_REFUSED, PROOF, VALID_PARAMS, chain

PLANNER = str(Path(sys.executable).with_name("planner"))
MAX_BYTES = 64 * 1024
RSS_GROWTH_LIMIT_KB = 50 * 1024
REPLY_TIMEOUT = 60.0


def available(reference: str) -> bool:
    from planner.errors import RequestError
    from planner.service.methods import load

    try:
        load(reference)
    except RequestError:
        return False
    return True


def rss_kb(client: PlannerClient) -> int:
    assert client.process is not None
    status = Path(f"/proc/{client.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


@dataclass(frozen=True)
class Served:
    """The module's one server, and its RSS once every core was imported (imports are not growth)."""

    client: PlannerClient
    baseline_kb: int


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    client = PlannerClient("--max-bytes", str(MAX_BYTES), timeout=REPLY_TIMEOUT, stderr=subprocess.DEVNULL)
    for method, params in sorted(VALID_PARAMS.items()):
        client.call(method, params)
    yield Served(client, rss_kb(client))
    assert client.close() == 0


@pytest.fixture(scope="module")
def server(served: Served) -> PlannerClient:
    return served.client


def assert_well_formed(reply: Any) -> None:
    """A JSON-RPC 2.0 response: a result, or an error typed with a request.* code."""
    assert reply["jsonrpc"] == "2.0"
    assert "id" in reply
    assert ("result" in reply) != ("error" in reply)
    if "error" in reply:
        assert isinstance(reply["error"]["code"], int)
        assert reply["error"]["data"]["code"].startswith("request.")
        assert reply["error"]["message"]


def test_version_over_pipes(server: PlannerClient) -> None:
    assert server.call("planner.version")["methods"] == sorted(METHODS)


def test_proofs_check_over_pipes(server: PlannerClient) -> None:
    statuses = [r["status"] for r in server.call("proofs.check", PROOF)["results"]]
    assert statuses == ["proven", "proven"]


@pytest.mark.skipif(not available("planner.layout:plan"), reason="layout core not installed")
def test_layout_plan_over_pipes(server: PlannerClient) -> None:
    result = server.call("layout.plan", LAYOUT)
    assert result["ok"] is True
    assert result["ops"][0]["offsets"] == [0, "k0 // 32", "n0 // 16", 0, 0]
    refused = server.call("layout.plan", LAYOUT_REFUSED)
    assert refused["ok"] is False
    assert refused["diagnostics"][0]["code"].startswith("nz.offset_unprovable")


@pytest.mark.skipif(not available("planner.kernelcfg:resolve"), reason="kernel-config core not installed")
def test_kernelcfg_resolve_over_pipes(server: PlannerClient) -> None:
    result = server.call("kernelcfg.resolve", KERNEL)
    assert result["ok"] is True
    assert result["plan"]["dst_width"] == 32


@pytest.mark.skipif(not available("planner.adapters.pypto:plan_text"), reason="PyPTO adapter not installed")
def test_pypto_plan_over_pipes(server: PlannerClient) -> None:
    with pytest.raises(ServiceError) as refused:
        server.call("pypto.plan", {"text": "this is not a program", "filename": "x.py"})
    assert (refused.value.code, refused.value.number) == (request_codes.BAD_INPUT, -32004)
    assert refused.value.data["details"]["code"].startswith("adapter.")


@pytest.mark.skipif(
    not available("planner.adapters.ttlang:plan_text"), reason="TT-Lang adapter not installed"
)
def test_ttlang_plan_over_pipes(server: PlannerClient) -> None:
    with pytest.raises(ServiceError) as refused:
        server.call("ttlang.plan", {"text": "func.func @k( {", "filename": "x.mlir"})
    assert refused.value.code == request_codes.BAD_INPUT
    assert refused.value.data["details"]["code"].startswith("adapter.")


def _mixed(index: int) -> tuple[str, Any]:
    """A deterministic mix of valid and invalid requests for every installed method."""
    method = sorted(VALID_PARAMS)[index % len(VALID_PARAMS)]
    params = VALID_PARAMS[method] if index % 3 else {"unknown": index}
    return method, params


def test_burst_of_1000_mixed_requests_keeps_order_ids_and_memory(server: PlannerClient) -> None:
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}).encode()
        for i, (m, p) in (enumerate(map(_mixed, range(1000))))
    ]
    server.send_raw(*lines[:100])
    warm = [server.receive() for _ in range(100)]
    before = rss_kb(server)
    writer = threading.Thread(target=server.send_raw, args=tuple(lines))
    writer.start()
    replies = [server.receive() for _ in lines]
    writer.join()
    assert rss_kb(server) - before <= RSS_GROWTH_LIMIT_KB
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
    if len(params) > 0 and draw(st.booleans()):
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


def exchange(server: PlannerClient, messages: list[bytes]) -> None:
    """Send each message followed by a sentinel; every reply before the sentinel's must be well formed."""
    server.send_raw(*(line for message in messages for line in (message, SENTINEL)))
    for _ in messages:
        while True:
            reply = server.receive()
            if isinstance(reply, dict) and reply.get("id") == "sentinel":
                break
            for item in reply if isinstance(reply, list) else [reply]:
                assert_well_formed(item)
    assert server.process is not None and server.process.poll() is None


@settings(max_examples=100)  # 2,000 messages; the soak profile's count would run for hours
@given(st.lists(fuzzed_messages, min_size=20, max_size=20))
def test_fuzzed_requests_never_crash_the_server(server: PlannerClient, messages: list[bytes]) -> None:
    exchange(server, messages)


# The soak's own server: room for a 10,000-binding chain, a deadline short enough for hard requests.
SOAK_MAX_BYTES = 1024 * 1024
SOAK_TIMEOUT = 4.0  # a 10,000-binding chain takes about 0.7 s alone, longer on shared cores
Check = Callable[[Any], None]  # raises AssertionError when a reply breaks its class's promise


def request_line(method: object, params: object, request_id: str = "h") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()


def fails_with(code: str) -> Check:
    def check(reply: Any) -> None:
        assert reply["error"]["data"]["code"] == code, str(reply)[:300]
        assert len(reply["error"]["message"]) < 600  # the input is never echoed whole

    return check


def answered(reply: Any) -> None:
    assert "result" in reply, str(reply)[:300]


def proven(reply: Any) -> None:
    assert [entry["status"] for entry in reply["result"]["results"]] == ["proven"], str(reply)[:300]


def ended_by_the_deadline(reply: Any) -> None:
    """A hard request: `request.timeout`, or `unknown` when the solver's resource limit ends it first."""
    if "result" in reply:
        assert {entry["status"] for entry in reply["result"]["results"]} == {"unknown"}, reply
    else:
        fails_with(request_codes.TIMEOUT)(reply)


def binding_chain(length: int) -> dict[str, Any]:
    """The hostile tests' chain of `length` assignments, with the one goal it is proven for."""
    return {**chain(length), "goals": ["multiple_of"]}


def deep_expression(kind: str, depth: int) -> str:
    return {
        "negation": "-" * depth + "x",
        "parentheses": "(" * depth + "x" + ")" * depth,
        "min": "min(x, " * depth + "x" + ")" * depth,
        "sum": "x" + " + x" * depth,
    }[kind]


def expression_request(expr: str) -> dict[str, Any]:
    return {"expr": expr, "bindings": [{"name": "x", "kind": "param", "min": 0, "max": 64}]}


GOOD_MEMBERS: list[tuple[dict[str, Any], Check]] = [
    (json.loads(request_line(method, params, f"good-{method}")), answered)
    for method, params in sorted(VALID_PARAMS.items())
]
HARD_MEMBER = (
    json.loads(request_line("proofs.check", {"expr": HARD, "bindings": [], "goals": ["non_negative"]})),
    ended_by_the_deadline,
)


@st.composite
def mixed_batches(draw: st.DrawFn) -> tuple[bytes, Check]:
    """Good requests, maybe one refused by a depth limit, maybe a hard one last that uses up the
    deadline: every member answered before the deadline keeps its own answer."""
    members = draw(st.lists(st.sampled_from(GOOD_MEMBERS), min_size=1, max_size=6))
    if draw(st.booleans()):
        deep = json.loads(request_line("proofs.check", expression_request(deep_expression("negation", 100))))
        members.append((deep, fails_with(TOO_DEEP)))
    if draw(st.sampled_from([False] * 19 + [True])):  # one batch in twenty waits out the deadline
        members.append(HARD_MEMBER)
    messages = [{**message, "id": index} for index, (message, _) in enumerate(members)]

    def check(replies: Any) -> None:
        assert [reply["id"] for reply in replies] == list(range(len(members)))
        for reply, (_, member_check) in zip(replies, members, strict=True):
            assert_well_formed(reply)
            member_check(reply)

    return json.dumps(messages).encode(), check


hostile_messages: st.SearchStrategy[tuple[bytes, Check]] = st.one_of(
    st.integers(65, 5000).map(lambda n: (b"[" * n + b"]" * n, fails_with(TOO_DEEP))),
    st.integers(1, SOAK_MAX_BYTES // 2 - 1).map(
        lambda n: (b'"' + b'\\"' * n, fails_with(request_codes.PARSE_ERROR))  # escaped quotes, never closed
    ),
    st.integers(5000, 100_000).map(
        lambda n: (request_line("proofs.check", {"expr": '\\"' * n}), fails_with("request.bad_expression"))
    ),
    st.integers(SOAK_MAX_BYTES + 1, 2 * SOAK_MAX_BYTES).map(
        lambda n: (b" " * n, fails_with(request_codes.TOO_LARGE))
    ),
    st.sampled_from(["1e400", "-1e400", "1e309", "123e999999"]).map(
        lambda bad: (
            b'{"jsonrpc":"2.0","id":' + bad.encode() + b',"method":"planner.version"}',
            fails_with(request_codes.PARSE_ERROR),
        )
    ),
    st.integers(1000, SOAK_MAX_BYTES - 100).map(
        lambda n: (request_line("m" * n, {}), fails_with(request_codes.UNKNOWN_METHOD))
    ),
    st.binary(min_size=1, max_size=64).map(
        lambda junk: (
            b'{"jsonrpc":"2.0","id":1,"method":"\xff' + junk.replace(b"\n", b" ") + b'"}',
            fails_with(request_codes.PARSE_ERROR),
        )
    ),
    st.sampled_from([198, 199, 500, 2000, 10_000]).map(
        lambda n: (request_line("proofs.check", binding_chain(n)), proven)
    ),
    st.one_of(  # deeper than the limits, within the 4,096 characters of an expression
        st.tuples(st.sampled_from(["negation", "min", "sum"]), st.integers(65, 500)),
        st.tuples(st.just("parentheses"), st.integers(201, 2000)),  # alone, they add no level
    ).map(
        lambda deep: (
            request_line("proofs.check", expression_request(deep_expression(*deep))),
            fails_with(TOO_DEEP),
        )
    ),
    mixed_batches(),
)


def exchange_checked(server: PlannerClient, messages: list[tuple[bytes, Check | None]]) -> None:
    """`exchange`, and each hostile message's reply meets its class's promise.

    Megabytes of requests are written from a thread while the replies are read, so neither
    side's pipe fills while the other waits.
    """
    lines = [line for message, _ in messages for line in (message, SENTINEL)]
    writer = threading.Thread(target=server.send_raw, args=tuple(lines), daemon=True)
    writer.start()
    for _, check in messages:
        replies = []
        while True:
            reply = server.receive()
            if isinstance(reply, dict) and reply.get("id") == "sentinel":
                break
            replies.append(reply)
        for reply in replies:
            for item in reply if isinstance(reply, list) else [reply]:
                assert_well_formed(item)
        if check is not None:
            assert len(replies) == 1, replies
            check(replies[0])
    writer.join()
    assert server.process is not None and server.process.poll() is None


@pytest.fixture(scope="module")
def soak_server() -> Iterator[PlannerClient]:
    client = PlannerClient(
        "--max-bytes", str(SOAK_MAX_BYTES), "--timeout", str(SOAK_TIMEOUT), timeout=REPLY_TIMEOUT
    )
    for method, params in sorted(VALID_PARAMS.items()):
        client.call(method, params)
    yield client
    assert client.close() == 0


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE") != "soak", reason="10,000 messages: make soak")
@settings(max_examples=100)  # 10,000 messages
@given(
    st.lists(
        fuzzed_messages.map(lambda message: (message, None)) | hostile_messages, min_size=100, max_size=100
    )
)
def test_fuzzed_and_hostile_requests_soak(
    soak_server: PlannerClient, messages: list[tuple[bytes, Check | None]]
) -> None:
    """Fuzzed messages mixed with every hostile class: typed answers, the service alive, memory bounded."""
    before = rss_kb(soak_server)
    exchange_checked(soak_server, messages)
    assert rss_kb(soak_server) - before <= RSS_GROWTH_LIMIT_KB


def test_memory_stays_bounded_after_all_traffic(served: Served) -> None:
    """Runs after the other users of the module's server: all its traffic grew RSS by at most 50 MB."""
    exchange(served.client, [b"[" * 70 + b"]" * 70, b'"' + b"x" * (2 * MAX_BYTES) + b'"'] * 50)
    assert rss_kb(served.client) - served.baseline_kb <= RSS_GROWTH_LIMIT_KB


def test_eof_mid_message_answers_it_and_exits_0() -> None:
    client = PlannerClient(timeout=REPLY_TIMEOUT, stderr=subprocess.PIPE)
    assert client.process is not None and client.process.stdin is not None
    client.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "planner.version"}).encode())
    client.process.stdin.close()  # no newline: the last line ends at EOF
    assert client.receive()["id"] == 5
    with pytest.raises(ServiceError) as gone:
        client.receive()
    assert gone.value.code == request_codes.SERVICE_GONE
    assert client.close() == 0


def test_closed_stdout_ends_the_service_with_exit_0_and_no_traceback() -> None:
    client = PlannerClient(timeout=REPLY_TIMEOUT, stderr=subprocess.PIPE)
    assert client.process is not None and client.process.stdout is not None
    client.process.stdout.close()  # the reader goes away: every reply now meets EPIPE
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "proofs.check", "params": PROOF}).encode()
    client.send_raw(*[request] * 50)  # one write, done before the service can answer and leave
    assert client.close() == 0
    assert client.process.stderr is not None
    assert client.process.stderr.read() == b""


@contextmanager
def http_service(*serve_args: str) -> Iterator[str]:
    """`planner serve --http ...`; yields the URL it announces."""
    process = subprocess.Popen(
        [PLANNER, "serve", *serve_args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stderr is not None
        yield process.stderr.readline().decode().split(" on ")[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=REPLY_TIMEOUT)


def post(url: str, body: bytes) -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=REPLY_TIMEOUT) as response:
        return response.read()


def test_http_face_serves_the_same_bodies() -> None:
    with http_service("--http", "127.0.0.1:0") as url:
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "proofs.check", "params": PROOF}).encode()
        from planner.limits import Limits
        from planner.service.jsonrpc import handle_message

        assert post(url, body).decode() == handle_message(body, Limits())
        assert json.loads(post(url, b"{"))["error"]["data"]["code"] == "request.parse_error"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(url), timeout=REPLY_TIMEOUT)
        assert refused.value.code == 405
        assert json.loads(refused.value.read())["error"]["data"]["code"] == "request.bad_http"
        host, port = url.split("//")[1].rstrip("/").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=REPLY_TIMEOUT)
        connection.putrequest("POST", "/")
        connection.putheader("Content-Length", str(4 * 1024 * 1024 + 1))  # refused before the body is read
        connection.endheaders()
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["error"]["data"]["code"] == "request.too_large"


def test_http_face_binds_every_interface_only_when_allowed() -> None:
    with http_service("--http", "0.0.0.0:0", "--allow-remote") as url:
        assert url.startswith("http://0.0.0.0:")
        local = url.replace("0.0.0.0", "127.0.0.1")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "planner.version"}).encode()
        assert json.loads(post(local, body))["result"]["methods"] == sorted(METHODS)
    refused = subprocess.run([PLANNER, "serve", "--http", "0.0.0.0:0"], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "[request.not_loopback]" in refused.stderr
    assert "--allow-remote" in refused.stderr
