"""`PlannerClient` over in-process pipes: results, typed errors, timeouts, late and bad replies.

The oracle for every exchange is the in-process dispatcher (`planner.service.methods.answer`):
over the pipes the client must return its result, or raise its error with the same code.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner import request_codes
from planner.errors import RequestError
from planner.limits import Limits
from planner.service.client import PlannerClient, ServiceError
from planner.service.methods import METHODS, answer
from planner.service.stdio import serve_stdio
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "json"
LIMITS = Limits(max_bytes=64 * 1024, time_budget=None)


def pipe() -> tuple[IO[bytes], IO[bytes]]:
    read_end, write_end = os.pipe()
    return open(read_end, "rb", buffering=0), open(write_end, "wb")


@pytest.fixture(scope="module")
def client() -> Iterator[PlannerClient]:
    """A client connected to `serve_stdio` running on a thread of this process."""
    requests_in, requests_out = pipe()
    replies_in, replies_out = pipe()
    serving = threading.Thread(target=serve_stdio, args=(requests_in, replies_out, LIMITS), daemon=True)
    serving.start()
    connected = PlannerClient.connect(replies_in, requests_out, timeout=30.0)
    yield connected
    assert connected.close() is None
    serving.join(timeout=30.0)
    assert not serving.is_alive()  # EOF on the requests pipe ended the service


class FakeService:
    """The far end of a client's pipes, written by hand: replies the service would never send."""

    def __init__(self, timeout: float = 0.2) -> None:
        self.requests, requests_out = pipe()
        replies_in, self.replies = pipe()
        self.client = PlannerClient.connect(replies_in, requests_out, timeout=timeout)

    def reply(self, *lines: Any) -> None:
        text = b"".join(
            (line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines
        )
        self.replies.write(text)
        self.replies.flush()


def example(name: str) -> dict[str, Any]:
    params: dict[str, Any] = json.loads((EXAMPLES / name).read_text())["params"]
    return params


def test_call_returns_the_result(client: PlannerClient) -> None:
    assert client.call("planner.version")["methods"] == sorted(METHODS)
    statuses = [r["status"] for r in client.call("proofs.check", example("proofs-check.json"))["results"]]
    assert statuses == ["proven", "proven"]


def test_error_reply_is_raised_with_its_typed_code(client: PlannerClient) -> None:
    with pytest.raises(ServiceError) as refused:
        client.call("proofs.check", {"expr": "n", "bogus": 1})
    assert refused.value.code == "request.unknown_field"
    assert refused.value.number == -32602
    assert refused.value.data["code"] == "request.unknown_field"
    assert str(refused.value).startswith("[request.unknown_field] ")


def test_pipelined_requests_get_their_own_results(client: PlannerClient) -> None:
    ids = [client.send("planner.version"), client.send("proofs.check", example("proofs-check-refuted.json"))]
    assert ids[1] == ids[0] + 1
    assert "methods" in client.result(ids[0])
    assert [r["status"] for r in client.result(ids[1])["results"]] == ["refuted", "proven"]


method_names = st.sampled_from([*sorted(METHODS), "no.such"])
json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
examples = st.sampled_from(sorted(path.name for path in EXAMPLES.glob("*.json")))


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A bundled example, as it is or with one field replaced, or a random method and params."""
    if draw(st.booleans()):
        document = json.loads((EXAMPLES / draw(examples)).read_text())
        params = dict(document["params"])
        if draw(st.booleans()):
            params[draw(st.sampled_from([*sorted(params), "extra"]))] = draw(json_values)
        return document["method"], params
    return draw(method_names), draw(st.dictionaries(st.text(max_size=6), json_values, max_size=3))


@given(requests())
def test_call_over_pipes_agrees_with_the_in_process_dispatcher(
    client: PlannerClient, request: tuple[str, dict[str, Any]]
) -> None:
    method, params = request
    expected = answer(method, params, LIMITS.time_budget)
    if isinstance(expected, RequestError):
        with pytest.raises(ServiceError) as refused:
            client.call(method, params)
        assert (refused.value.code, refused.value.message) == (expected.code, expected.message)
    else:
        assert client.call(method, params) == expected


def test_no_reply_within_the_timeout_is_typed_and_the_late_reply_is_dropped() -> None:
    fake = FakeService()
    with pytest.raises(ServiceError) as silent:
        fake.client.call("planner.version")
    assert silent.value.code == request_codes.NO_REPLY
    second = fake.client.send("planner.version")
    fake.reply({"jsonrpc": "2.0", "id": 1, "result": {"late": True}})
    fake.reply({"jsonrpc": "2.0", "id": second, "result": {"on_time": True}})
    assert fake.client.result(second) == {"on_time": True}


@pytest.mark.parametrize(
    "reply",
    [
        b"not json",
        {"jsonrpc": "2.0", "id": 99, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "result": [1]},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no data"}},
        [{"jsonrpc": "2.0", "id": 1, "result": {}}],
    ],
)
def test_a_reply_out_of_protocol_is_bad_reply(reply: Any) -> None:
    fake = FakeService()
    fake.reply(reply)
    with pytest.raises(ServiceError) as bad:
        fake.client.call("planner.version")
    assert bad.value.code == request_codes.BAD_REPLY
    assert bad.value.number is None


def test_an_error_with_a_null_id_answers_the_request_in_flight() -> None:
    fake = FakeService()
    fake.reply(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": "m", "data": {"code": "x.y"}}}
    )
    with pytest.raises(ServiceError) as fault:
        fake.client.call("planner.version")
    assert (fault.value.code, fault.value.number, fault.value.message) == ("x.y", -32603, "m")


def test_a_service_that_closes_its_output_is_gone() -> None:
    fake = FakeService()
    fake.replies.close()
    with pytest.raises(ServiceError) as gone:
        fake.client.call("planner.version")
    assert gone.value.code == request_codes.SERVICE_GONE


def test_a_closed_client_refuses_to_send_or_receive() -> None:
    fake = FakeService()
    fake.client.close()
    for action in (lambda: fake.client.send("planner.version"), fake.client.receive):
        with pytest.raises(ServiceError) as closed:
            action()
        assert closed.value.code == request_codes.SERVICE_GONE


def test_a_message_with_a_newline_is_refused_before_writing() -> None:
    fake = FakeService()
    with pytest.raises(ValueError, match="one line"):
        fake.client.send_raw(b'{"a":\n1}')


def test_a_service_that_exits_at_once_is_gone_and_reaped() -> None:
    client = PlannerClient(command=[sys.executable, "-c", "pass"], timeout=30.0)
    with pytest.raises(ServiceError) as gone:
        client.call("planner.version")
    assert gone.value.code == request_codes.SERVICE_GONE
    assert "exit status 0" in gone.value.message
    assert client.close() == 0


def test_a_command_that_cannot_start_is_gone(tmp_path: Path) -> None:
    with pytest.raises(ServiceError) as gone:
        PlannerClient(command=[str(tmp_path / "absent")])
    assert gone.value.code == request_codes.SERVICE_GONE
    assert "cannot start" in gone.value.message


def test_a_service_that_ignores_eof_is_terminated_on_close() -> None:
    client = PlannerClient(command=[sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert client.close() == -signal.SIGTERM  # terminated once the timeout ran out


def test_connect_needs_a_pipe_with_a_file_descriptor() -> None:
    with pytest.raises(ValueError, match="file descriptor"):
        PlannerClient.connect(io.BytesIO(), io.BytesIO())
