"""The HTTP face holds many connections: keep-alive clients, idle sockets, per-address caps, idle
timeouts, and a `planner.version` ping that never queues behind the workers.

Each test talks to a real `planner serve --http` over loopback. Clients from 127.0.0.2 and
up stand for other hosts: the service counts connections per client address.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from planner import request_codes
from planner.service.http import BODY_BUDGET
from planner.service.workers import WorkerPool
from tests.service.http_service import VERSION, Served, http_service, read_reply
from tests.service.messages import HARD, request_line

DEADLINE = 5.0
PROMPT = 2.0  # a ping is answered well within this while every worker is busy up to DEADLINE
IDLE = 1.0
MAX_BYTES = 1000
HARD_PROOF = {"expr": HARD, "bindings": [], "goals": ["non_negative"]}


@pytest.fixture(scope="module")
def busy_farm() -> Iterator[Served]:
    """Default connection limits, two workers, a 5 s deadline."""
    with http_service("--workers", "2", "--timeout", str(DEADLINE)) as served:
        yield served


@pytest.fixture(scope="module")
def capped() -> Iterator[Served]:
    """At most 3 connections from one address, 1,000-byte messages (so bodies of 64,000 bytes in all
    are held at once), and a connection idle for 1 s is closed."""
    with http_service(
        "--workers",
        "1",
        "--max-per-address",
        "3",
        "--idle-timeout",
        str(IDLE),
        "--read-timeout",
        "5",
        "--max-bytes",
        str(MAX_BYTES),
    ) as served:
        yield served


def version_status(connection: socket.socket) -> tuple[int, str]:
    """POST a version ping on an open connection; the status and the protocol (or error code)."""
    head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {len(VERSION)}\r\n\r\n".encode()
    connection.sendall(head + VERSION)
    status, reply = read_reply(connection)
    return status, reply["result"]["protocol"] if "result" in reply else reply["error"]["data"]["code"]


def test_a_hundred_keep_alive_clients_all_get_answers(busy_farm: Served) -> None:
    clients = [busy_farm.client() for _ in range(100)]
    try:
        statuses = []
        for _ in range(3):  # every client keeps its connection open between its requests
            for client in clients:
                client.request("POST", "/", VERSION, {"Content-Type": "application/json"})
                response = client.getresponse()
                statuses.append((response.status, json.loads(response.read())["result"]["protocol"]))
        assert statuses == [(200, "1")] * 300
    finally:
        for client in clients:
            client.close()


def test_a_thousand_idle_sockets_do_not_deny_a_new_client(busy_farm: Served) -> None:
    with contextlib.ExitStack() as stack:
        idle = [stack.enter_context(busy_farm.connect(f"127.0.0.{2 + n % 4}")) for n in range(1000)]
        time.sleep(0.2)  # the service has accepted them all
        assert busy_farm.post(VERSION)[0] == 200
        with busy_farm.connect() as newcomer:
            assert version_status(newcomer) == (200, "1")
        assert version_status(idle[-1]) == (200, "1")  # the idle ones were held, not dropped


def test_a_version_ping_does_not_queue_behind_requests_that_run_to_their_deadline(busy_farm: Served) -> None:
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        slow = [pool.submit(busy_farm.post, request_line("proofs.check", HARD_PROOF)) for _ in range(4)]
        time.sleep(0.5)  # two run in the workers, two wait for one
        assert not any(future.done() for future in slow)
        started = time.monotonic()
        status, reply = busy_farm.post(VERSION)
        assert (status, reply["result"]["protocol"]) == (200, "1")
        assert time.monotonic() - started < PROMPT
        for future in slow:
            status, reply = future.result(timeout=30)
            assert status == 200
            if "result" in reply:  # a fast machine hits the resource limit first: still not proven
                assert [result["status"] for result in reply["result"]["results"]] == ["unknown"]
            else:
                assert reply["error"]["data"]["code"] == request_codes.TIMEOUT


@pytest.mark.parametrize("inline", [True, False], ids=["stdio pool", "http pool"])
def test_the_pool_answers_a_version_ping_while_its_worker_is_busy(inline: bool) -> None:
    with WorkerPool(1, inline=inline) as pool, concurrent.futures.ThreadPoolExecutor(1) as caller:
        busy = caller.submit(pool.run, "proofs.check", HARD_PROOF, time.monotonic() + DEADLINE)
        time.sleep(0.5)
        assert not busy.done()
        started = time.monotonic()
        reply = pool.run("planner.version", {}, time.monotonic() + DEADLINE)
        assert time.monotonic() - started < PROMPT
        assert isinstance(reply, dict) and reply["protocol"] == "1"
        busy.result(timeout=30)


def test_the_per_address_cap_answers_503_busy_with_a_json_rpc_body(capped: Served) -> None:
    with contextlib.ExitStack() as stack:
        held = [stack.enter_context(capped.connect("127.0.0.2")) for _ in range(3)]
        time.sleep(0.2)
        status, reply = capped.post(VERSION, source="127.0.0.2")
        assert status == 503
        assert reply["jsonrpc"] == "2.0" and reply["id"] is None
        assert reply["error"]["data"]["code"] == request_codes.BUSY
        assert "127.0.0.2" in reply["error"]["message"]
        assert capped.post(VERSION, source="127.0.0.3")[0] == 200  # another address is not held back
        assert version_status(held[0]) == (200, "1")


def test_the_idle_timeout_closes_an_idle_connection(capped: Served) -> None:
    with capped.connect(timeout=10) as connection:
        for _ in range(4):  # requests IDLE / 2 apart keep it open past IDLE in all
            assert version_status(connection) == (200, "1")
            time.sleep(IDLE / 2)
        started = time.monotonic()
        assert connection.recv(1) == b""  # closed by the service, without a reply
        assert IDLE / 2 - 0.1 <= time.monotonic() - started <= IDLE + 2.0
    with capped.connect(timeout=10) as silent:  # a connection that never sends is closed the same way
        started = time.monotonic()
        assert silent.recv(1) == b""
        assert IDLE - 0.1 <= time.monotonic() - started <= IDLE + 2.0


def test_bodies_past_the_shared_budget_answer_503_busy_until_one_is_done(capped: Served) -> None:
    declared = f"POST / HTTP/1.1\r\nContent-Length: {MAX_BYTES}\r\n\r\n".encode()
    padded = VERSION + b" " * (200 - len(VERSION))  # more than the 64 bytes the holders leave
    with contextlib.ExitStack() as stack:
        holders = [stack.enter_context(capped.connect(f"127.0.1.{1 + n}")) for n in range(BODY_BUDGET)]
        for holder in holders:  # each sends all of its body but the last byte, then stalls
            holder.sendall(declared + b" " * (MAX_BYTES - 1))
        time.sleep(0.5)
        status, reply = capped.post(padded, source="127.0.0.7")
        assert (status, reply["error"]["data"]["code"]) == (503, request_codes.BUSY)
        holders[0].sendall(b" ")  # one body is whole and answered: its share is free again
        assert read_reply(holders[0])[1]["error"]["data"]["code"] == request_codes.PARSE_ERROR
        assert capped.post(padded, source="127.0.0.7")[0] == 200


def test_a_client_that_expects_100_continue_gets_it_before_sending_the_body(capped: Served) -> None:
    with capped.connect() as connection:
        head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {len(VERSION)}\r\nExpect: 100-continue\r\n"
        connection.sendall(head.encode() + b"\r\n")
        interim = b""
        while not interim.endswith(b"\r\n\r\n"):
            interim += connection.recv(1)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        connection.sendall(VERSION)
        status, reply = read_reply(connection)
        assert (status, reply["result"]["protocol"]) == (200, "1")


@pytest.mark.parametrize(
    "flag", ["--max-connections", "--max-per-address", "--idle-timeout", "--read-timeout"]
)
def test_a_connection_setting_that_is_not_positive_is_refused_typed(flag: str) -> None:
    command = [sys.executable, "-m", "planner.cli", "serve", "--http", "127.0.0.1:0", flag, "0"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert f"planner serve: error: argument {flag}: 0 is outside " in refused.stderr  # a usage error
    assert "Traceback" not in refused.stderr
