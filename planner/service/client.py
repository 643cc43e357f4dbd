"""A Python client for `planner serve`: JSON-RPC 2.0, one message per line, over a pair of pipes.

For compiler passes written in Python that plan many functions against one long-lived
service (docs/design/protocol.md). `PlannerClient()` starts `planner serve` as a subprocess;
`PlannerClient.connect(replies, requests)` speaks over pipes someone else set up. A JSON-RPC
error reply is raised as `ServiceError` with the service's `request.*` code; a service that
exits, stays silent past the timeout or answers out of protocol is a `ServiceError` too,
with a client-side code (`request.service_gone`, `request.no_reply`, `request.bad_reply`).

Replies are read from the pipe's file descriptor with a poll, so a hung service costs the
caller `timeout` seconds, never a hang, and no reader thread is needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Any

from planner import request_codes

JsonObject = dict[str, Any]
DEFAULT_TIMEOUT = 60.0  # seconds to wait for one reply (and for the service to exit on close)
_READ_CHUNK = 1 << 16


class ServiceError(Exception):
    """A request the service refused (`code` is its `request.*` code) or a failed exchange.

    `data` is the JSON-RPC error's `data` member (code, message, details); `number` is the
    JSON-RPC `error.code`, None for failures the client detected itself.
    """

    def __init__(
        self, code: str, message: str, data: JsonObject | None = None, *, number: int | None = None
    ) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.data: JsonObject = data if data is not None else {"code": code, "message": message}
        self.number = number


def serve_command(*serve_args: str) -> list[str]:
    """`planner serve` run by this interpreter, so the client needs no `planner` on PATH."""
    return [sys.executable, "-m", "planner.cli", "serve", *serve_args]


def _error_from(error: object) -> ServiceError:
    """The JSON-RPC `error` member as a ServiceError; a malformed one is `request.bad_reply`."""
    if isinstance(error, dict):
        data, number = error.get("data"), error.get("code")
        if isinstance(data, dict) and isinstance(data.get("code"), str) and isinstance(number, int):
            return ServiceError(data["code"], str(error.get("message", "")), data, number=number)
    return ServiceError(request_codes.BAD_REPLY, f"malformed JSON-RPC error member: {error!r:.200}")


class _LineReader:
    """Whole lines from a pipe's file descriptor, waiting at most `timeout` seconds for each."""

    def __init__(self, stream: IO[bytes]) -> None:
        try:
            self._fd = stream.fileno()
        except (OSError, ValueError):
            raise ValueError("the replies stream must be an open pipe with a file descriptor") from None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)
        self._buffer = bytearray()
        self._searched = 0  # bytes of the buffer known to hold no newline
        self._ended = False

    def _fill(self, deadline: float | None) -> None:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._selector.select(wait):
            raise ServiceError(
                request_codes.NO_REPLY, "no reply within the client's timeout; raise `timeout=`"
            )
        chunk = os.read(self._fd, _READ_CHUNK)
        self._buffer += chunk
        self._ended = not chunk

    def line(self, timeout: float | None) -> bytes | None:
        """The next line without its newline; None once the writer has closed its end."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (end := self._buffer.find(b"\n", self._searched)) < 0:
            if self._ended:
                return None
            self._searched = len(self._buffer)
            self._fill(deadline)
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._searched = 0
        return line

    def close(self) -> None:
        self._selector.close()


class PlannerClient:
    """One connection to `planner serve`; a context manager that shuts the service down on exit.

    Usage: `with PlannerClient("--timeout", "5") as planner: planner.call("layout.plan", params)`.
    """

    def __init__(
        self,
        *serve_args: str,
        command: Sequence[str] | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        stderr: int | IO[bytes] | None = None,
    ) -> None:
        """Start `command` (default: `planner serve *serve_args`); its stderr goes to `stderr`."""
        argv = list(command) if command is not None else serve_command(*serve_args)
        try:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        except OSError as exc:
            raise ServiceError(
                request_codes.SERVICE_GONE, f"cannot start {argv[0]}: {exc.strerror or exc}"
            ) from None
        assert process.stdin is not None and process.stdout is not None
        self._attach(process.stdout, process.stdin, timeout, process)

    @classmethod
    def connect(
        cls, replies: IO[bytes], requests: IO[bytes], *, timeout: float | None = DEFAULT_TIMEOUT
    ) -> PlannerClient:
        """Speak to a service already running: read its `replies` pipe, write its `requests` pipe.

        The client owns both streams from now on (it reads the replies' file descriptor
        directly) and closes them on `close()`.
        """
        client = cls.__new__(cls)
        client._attach(replies, requests, timeout, None)
        return client

    def _attach(
        self,
        replies: IO[bytes],
        requests: IO[bytes],
        timeout: float | None,
        process: subprocess.Popen[bytes] | None,
    ) -> None:
        self.process = process
        self.timeout = timeout
        self._replies = replies
        self._reader = _LineReader(replies)
        self._requests = requests
        self._next_id = 1
        self._abandoned: set[int] = set()  # ids whose caller gave up waiting: late replies are dropped
        self._closed = False

    def __enter__(self) -> PlannerClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def _gone(self, what: str) -> ServiceError:
        status = "" if self.process is None else f" (exit status {_status(self.process)})"
        return ServiceError(request_codes.SERVICE_GONE, f"the service {what}{status}; see its stderr")

    def send_raw(self, *messages: bytes) -> None:
        """Write framed messages as they are (one line each), in one write; for tests and tools."""
        if any(b"\n" in message for message in messages):
            raise ValueError("a message must be one line: JSON-RPC over stdio frames messages by newline")
        if self._closed:
            raise self._gone("connection is closed")
        try:
            self._requests.write(b"".join(message + b"\n" for message in messages))
            self._requests.flush()
        except BrokenPipeError:
            raise self._gone("is not reading requests") from None

    def send(self, method: str, params: JsonObject | None = None) -> int:
        """Send one request without waiting; returns its id for `result()` (pipelining)."""
        request_id = self._next_id
        self._next_id += 1
        envelope = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
        self.send_raw(json.dumps(envelope, separators=(",", ":"), ensure_ascii=True).encode("ascii"))
        return request_id

    def receive(self) -> Any:
        """The next reply as JSON, whatever it is (a response, a batch, an error with id null)."""
        if self._closed:
            raise self._gone("connection is closed")
        line = self._reader.line(self.timeout)
        if line is None:
            raise self._gone("closed its output")
        try:
            return json.loads(line)
        except ValueError:
            raise ServiceError(
                request_codes.BAD_REPLY, f"the service sent a line that is not JSON: {line!r:.200}"
            ) from None

    def _late(self, reply: Any) -> bool:
        """A reply to a request whose caller already gave up waiting (dropped, once)."""
        request_id = reply.get("id") if isinstance(reply, dict) else None
        if isinstance(request_id, int) and request_id in self._abandoned:
            self._abandoned.discard(request_id)
            return True
        return False

    def _next_reply(self, request_id: int) -> Any:
        while True:
            try:
                reply = self.receive()
            except ServiceError as error:
                if error.code == request_codes.NO_REPLY:
                    self._abandoned.add(request_id)
                raise
            if not self._late(reply):
                return reply

    def result(self, request_id: int) -> JsonObject:
        """Wait for the reply to `request_id`: its result, or its error raised as ServiceError."""
        reply = self._next_reply(request_id)
        if isinstance(reply, dict) and reply.get("id") is None and "error" in reply:
            raise _error_from(reply["error"])  # in-order replies: an error the service could not tie to an id
        if not isinstance(reply, dict) or reply.get("id") != request_id:
            raise ServiceError(
                request_codes.BAD_REPLY, f"expected the reply to request {request_id}, got {reply!r:.200}"
            )
        if "error" in reply:
            raise _error_from(reply["error"])
        result = reply.get("result")
        if not isinstance(result, dict):
            raise ServiceError(
                request_codes.BAD_REPLY, f"a result must be a JSON object, got {result!r:.200}"
            )
        return result

    def call(self, method: str, params: JsonObject | None = None) -> JsonObject:
        """Answer one request: the method's result, or ServiceError with the service's typed code."""
        return self.result(self.send(method, params))

    def close(self) -> int | None:
        """End the session: close the request pipe (the service exits on EOF) and reap the service.

        Returns the service's exit status (None when connected to pipes); a service that
        does not exit within the timeout is terminated, then killed.
        """
        if not self._closed:
            self._closed = True
            for stream in (self._requests, self._replies):
                with contextlib.suppress(BrokenPipeError):  # unflushed bytes for a service that left
                    stream.close()
            self._reader.close()
        return None if self.process is None else _reap(self.process, self.timeout)


def _status(process: subprocess.Popen[bytes]) -> int | None:
    """The exit status of a service that just closed a pipe (it may take a moment to exit)."""
    try:
        return process.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        return None


def _reap(process: subprocess.Popen[bytes], timeout: float | None) -> int:
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.terminate()
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()
