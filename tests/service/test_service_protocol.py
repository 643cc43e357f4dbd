"""JSON-RPC framing, limits and the method registry, exercised in-process."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner import request_codes
from planner.budget import check_deadline, deadline_after
from planner.errors import TOO_DEEP, RequestError
from planner.limits import Limits, check_depth, dump_json, parse_json
from planner.proofs.expr import MAX_EXPRESSION_DEPTH
from planner.service.jsonrpc import handle_message
from planner.service.methods import METHODS, Method, answer
from planner.service.stdio import read_messages, serve_stdio

LIMITS = Limits(max_bytes=4096, max_depth=16, max_batch=8, time_budget=5.0)
PROOF = {
    "expr": "n0",
    "bindings": [
        {"name": "nb", "kind": "spmd", "extent": 4},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
    ],
}


def rpc(message: Any, limits: Limits = LIMITS) -> Any:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    reply = handle_message(data, limits)
    return None if reply is None else json.loads(reply)


def request(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def error_code(reply: dict[str, Any]) -> str:
    code: str = reply["error"]["data"]["code"]
    return code


def test_version_lists_every_method() -> None:
    reply = rpc(request("planner.version"))
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"methods": sorted(METHODS), "protocol": "1", "version": "0.1.0"},
    }


def test_proofs_check_is_answered_with_a_result() -> None:
    reply = rpc(request("proofs.check", PROOF, id="p"))
    assert reply["id"] == "p"
    assert [r["status"] for r in reply["result"]["results"]] == ["proven", "proven"]


@pytest.mark.parametrize(
    ("message", "code", "number"),
    [
        (b"{not json", request_codes.PARSE_ERROR, -32700),
        (b"\xff\xfe", request_codes.PARSE_ERROR, -32700),
        (b'{"a": NaN}', request_codes.PARSE_ERROR, -32700),
        (b"[]", request_codes.EMPTY_BATCH, -32600),
        (b'"hello"', request_codes.INVALID_ENVELOPE, -32600),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "planner.version"}', request_codes.INVALID_ENVELOPE, -32600),
        (b'{"jsonrpc": "2.0", "id": 1}', request_codes.INVALID_ENVELOPE, -32600),
        (
            b'{"jsonrpc": "2.0", "id": [1], "method": "planner.version"}',
            request_codes.INVALID_ENVELOPE,
            -32600,
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "planner.version", "x": 0}',
            request_codes.INVALID_ENVELOPE,
            -32600,
        ),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "no.such"}', request_codes.UNKNOWN_METHOD, -32601),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "proofs.check", "params": [1]}',
            request_codes.INVALID_PARAMS,
            -32602,
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "proofs.check", "params": {}}',
            "request.missing_field",
            -32602,
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "planner.version", "params": {"a": 1}}',
            "request.unknown_field",
            -32602,
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "proofs.check", "params": {"expr": "a ** 2"}}',
            "request.bad_expression",
            -32602,
        ),
        (b"[" * 17 + b"]" * 17, TOO_DEEP, -32002),
        (b'{"a": "' + b"x" * 5000 + b'"}', request_codes.TOO_LARGE, -32001),
    ],
)
def test_bad_requests_get_typed_errors(message: bytes, code: str, number: int) -> None:
    reply = rpc(message)
    assert error_code(reply) == code
    assert reply["error"]["code"] == number
    assert reply["jsonrpc"] == "2.0"


def _negations(depth: int) -> str:
    """`n0` under `depth` unary minuses: one expression node per level."""
    return "-" * depth + "n0"


@pytest.mark.parametrize(
    "expr",
    [
        _negations(MAX_EXPRESSION_DEPTH + 1),
        "min(n0, " * (MAX_EXPRESSION_DEPTH + 1) + "n0" + ")" * (MAX_EXPRESSION_DEPTH + 1),
        "n0" + " + n0" * 800,  # a left-leaning chain 800 levels deep
    ],
)
def test_an_expression_beyond_the_depth_limit_is_too_deep(expr: str) -> None:
    reply = rpc(request("proofs.check", {**PROOF, "expr": expr}), Limits(max_bytes=1 << 16))
    assert error_code(reply) == TOO_DEEP
    assert reply["error"]["code"] == -32002
    assert f"{MAX_EXPRESSION_DEPTH}-level limit" in reply["error"]["message"]
    assert len(reply["error"]["message"]) < 600


def test_parentheses_beyond_the_parsers_limit_are_too_deep() -> None:
    expr = "(" * 201 + "n0" + ")" * 201
    reply = rpc(request("proofs.check", {**PROOF, "expr": expr}), Limits(max_bytes=1 << 16))
    assert error_code(reply) == TOO_DEEP
    assert "200 parentheses" in reply["error"]["message"]


def test_an_expression_at_the_depth_limit_is_checked() -> None:
    even = _negations(MAX_EXPRESSION_DEPTH if MAX_EXPRESSION_DEPTH % 2 == 0 else MAX_EXPRESSION_DEPTH - 1)
    parenthesised = "(" * 200 + even + ")" * 200  # parentheses alone add no level
    reply = rpc(request("proofs.check", {**PROOF, "expr": parenthesised}), Limits(max_bytes=1 << 16))
    assert [r["status"] for r in reply["result"]["results"]] == ["proven", "proven"]


def test_error_keeps_the_request_id() -> None:
    assert rpc(request("no.such", id="abc"))["id"] == "abc"


def test_notification_gets_no_reply() -> None:
    assert rpc({"jsonrpc": "2.0", "method": "planner.version"}) is None


def test_batch_answers_each_request_in_order_and_skips_notifications() -> None:
    batch = [
        request("planner.version", id=1),
        {"jsonrpc": "2.0", "method": "planner.version"},
        request("no.such", id=2),
        7,
    ]
    replies = rpc(batch)
    assert [r["id"] for r in replies] == [1, 2, None]
    assert "result" in replies[0]
    assert [error_code(r) for r in replies[1:]] == [
        request_codes.UNKNOWN_METHOD,
        request_codes.INVALID_ENVELOPE,
    ]


def test_batch_of_notifications_gets_no_reply() -> None:
    assert rpc([{"jsonrpc": "2.0", "method": "planner.version"}] * 2) is None


def test_batch_above_the_limit_is_refused() -> None:
    assert (
        error_code(rpc([request("planner.version", id=i) for i in range(9)])) == request_codes.BATCH_TOO_LARGE
    )


def test_replies_are_byte_identical_and_sorted() -> None:
    data = json.dumps(request("proofs.check", PROOF)).encode()
    first = handle_message(data, LIMITS)
    assert first is not None
    assert first == handle_message(data, LIMITS)
    assert first == dump_json(json.loads(first))


def register(monkeypatch: pytest.MonkeyPatch, name: str, handler: str) -> None:
    """Serve `name` (no params, a version-shaped answer) with `handler`, for this test only."""
    method = Method(
        name,
        "planner.service.protocol:VersionRequest",
        handler,
        "planner.service.protocol:VersionResponse",
        lambda result: True,
    )
    monkeypatch.setitem(METHODS, name, method)


def _spins_until_its_deadline(request: Any, deadline: float | None) -> Any:
    """A handler that works in small steps and checks its deadline between them, as the cores do."""
    while True:
        check_deadline(deadline)
        time.sleep(0.01)


def test_a_handler_past_its_deadline_answers_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    register(monkeypatch, "test.slow", f"{__name__}:_spins_until_its_deadline")
    started = time.monotonic()
    outcome = answer("test.slow", {}, deadline_after(0.2))
    assert isinstance(outcome, RequestError)
    assert outcome.code == request_codes.TIMEOUT
    assert time.monotonic() - started < 1


def test_a_batch_keeps_answers_given_before_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    register(monkeypatch, "test.slow", f"{__name__}:_spins_until_its_deadline")
    batch = [request("planner.version", id=1), request("test.slow", id=2), request("planner.version", id=3)]
    replies = rpc(batch, Limits(time_budget=0.2))
    assert [reply["id"] for reply in replies] == [1, 2, 3]
    assert replies[0]["result"]["protocol"] == "1"
    assert [error_code(reply) for reply in replies[1:]] == [request_codes.TIMEOUT, request_codes.TIMEOUT]


def test_deadlines_never_touch_z3_global_parameters() -> None:
    import z3

    before = z3.get_param("timeout")
    reply = rpc(request("proofs.check", {**PROOF, "goals": ["multiple_of"], "factor": 16}))
    assert reply["result"]["results"][0]["status"] == "proven"
    assert z3.get_param("timeout") == before


def test_handler_returning_the_wrong_type_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    register(monkeypatch, "test.broken", "builtins:repr")
    outcome = answer("test.broken", {}, None)
    assert isinstance(outcome, RequestError)
    assert outcome.code == request_codes.INTERNAL


def test_missing_core_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    register(monkeypatch, "test.absent", "planner.no_such_module:run")
    reply = rpc(request("test.absent"))
    assert error_code(reply) == request_codes.UNAVAILABLE
    assert reply["error"]["code"] == -32005


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab[]{}"\\ ', max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"k', max_size=3), inner, max_size=3)
    ),
    max_leaves=30,
)


@given(json_values, st.integers(min_value=0, max_value=8))
def test_depth_check_agrees_with_the_nesting_of_the_parsed_value(value: Any, limit: int) -> None:
    text = json.dumps(value)
    if _depth(value) > limit:
        with pytest.raises(RequestError) as caught:
            check_depth(text, limit)
        assert caught.value.code == TOO_DEEP
    else:
        check_depth(text, limit)
        assert parse_json(text.encode(), Limits(max_depth=limit)) == value


def test_read_messages_skips_blank_lines_and_flags_oversized_ones() -> None:
    stream = io.BytesIO(b'{"a":1}\r\n\n' + b"x" * 50 + b"\n" + b"y" * 10 + b"\n" + b"z" * 11 + b"\n")
    assert list(read_messages(stream, 10)) == [b'{"a":1}', None, b"y" * 10, None]


def test_serve_stdio_answers_each_line_and_survives_bad_ones() -> None:
    lines = [
        json.dumps(request("planner.version", id=1)),
        "garbage",
        "x" * 5000,
        json.dumps({"jsonrpc": "2.0", "method": "planner.version"}),
        json.dumps(request("no.such", id=2)),
    ]
    out = io.BytesIO()
    serve_stdio(io.BytesIO(("\n".join(lines) + "\n").encode()), out, LIMITS)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert ["result" in r for r in replies] == [True, False, False, False]
    assert [error_code(r) for r in replies[1:]] == [
        request_codes.PARSE_ERROR,
        request_codes.TOO_LARGE,
        request_codes.UNKNOWN_METHOD,
    ]


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


def _faulty_core(request: Any) -> Any:
    raise _Unprintable


def _non_json_details(request: Any) -> Any:
    raise RequestError("request.x", "details that are not JSON", {1, 2})


@pytest.mark.parametrize("handler", ["_faulty_core", "_non_json_details"])
def test_a_core_fault_is_internal_and_the_stream_keeps_being_served(
    monkeypatch: pytest.MonkeyPatch, handler: str
) -> None:
    register(monkeypatch, "test.faulty", f"{__name__}:{handler}")
    out = io.BytesIO()
    lines = [json.dumps(request("test.faulty", id=1)), json.dumps(request("planner.version", id=2))]
    serve_stdio(io.BytesIO(("\n".join(lines) + "\n").encode()), out, LIMITS)
    fault, version = (json.loads(line) for line in out.getvalue().splitlines())
    assert (error_code(fault), fault["error"]["code"]) == (request_codes.INTERNAL, -32603)
    assert fault["error"]["message"].startswith("internal error (")
    assert version["id"] == 2 and "result" in version
