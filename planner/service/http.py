"""`planner serve --http HOST:PORT`: the same JSON-RPC bodies over HTTP POST.

The standard library's threading server, hardened: one thread per connection (at most
`MAX_CONNECTIONS`; more get 503), each connection's whole request (line, headers, body) must
arrive within the read timeout, headers are capped by `http.client`'s limits (64 KiB a
line, 100 lines) and the body by `--max-bytes`. Every refusal at the HTTP level is a 4xx
(503 when full) with a JSON-RPC error body; a well-formed POST always gets 200 with the
JSON-RPC reply, errors included. The requests themselves run on the worker pool, so a
stalled or slow client only ever holds its own thread.

The service has no authentication, so it binds only loopback addresses unless
`--allow-remote` says serving other hosts is meant.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from planner import request_codes
from planner.contract import RequestError
from planner.limits import Limits, too_large
from planner.service.jsonrpc import Runner, error_reply, handle_message

DEFAULT_HOST = "127.0.0.1"
MAX_CONNECTIONS = 64
_RECV_SLACK = 1.0  # seconds past the read timeout before a silent socket is dropped unanswered
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` or `PORT` (loopback)."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise RequestError(request_codes.INVALID_PARAMS, f"--http expects HOST:PORT or PORT, got {text!r}")
    return (host.strip("[]") or DEFAULT_HOST, int(port))


def _loopback(host: str) -> bool:
    """True when every IPv4 address `host` names is a loopback one (the server binds IPv4)."""
    try:
        found = socket.getaddrinfo(host, None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError as exc:
        raise RequestError(
            request_codes.INVALID_PARAMS, f"--http host {host!r} does not resolve: {exc}"
        ) from None
    return all(ipaddress.ip_address(entry[4][0]).is_loopback for entry in found)


def check_bind(address: tuple[str, int], allow_remote: bool) -> None:
    """Refuse a non-loopback bind unless it was asked for: anyone who reaches the port can plan."""
    host = address[0]
    if not allow_remote and not _loopback(host):
        raise RequestError(
            request_codes.NOT_LOOPBACK,
            f"--http {host} is not a loopback address and the service has no authentication; "
            f"bind {DEFAULT_HOST}, or pass --allow-remote to serve other hosts on purpose",
        )


def _error_body(code: str, message: str) -> bytes:
    return error_reply(RequestError(code, message)).encode("ascii")


class _Handler(BaseHTTPRequestHandler):
    """One connection. The server supplies `limits`, `run` and `read_timeout`."""

    server: PlannerHTTPServer
    server_version = "tile-planner"
    protocol_version = "HTTP/1.1"  # keep-alive: a client's next request reuses the connection

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # head and body: no 40 ms stall
        # A backstop for each recv; the read timer below normally ends a slow request first.
        self.connection.settimeout(self.server.read_timeout + _RECV_SLACK)

    def handle_one_request(self) -> None:
        """Read and answer one request; the read timeout covers line, headers and body together."""
        self._read_expired = False
        self._reading = True
        timer = threading.Timer(self.server.read_timeout, self._expire_read)
        timer.daemon = True
        timer.start()
        try:
            super().handle_one_request()
        except OSError:  # the client reset or closed the connection: nobody to answer
            self.close_connection = True
        finally:
            timer.cancel()

    def _expire_read(self) -> None:
        """The client did not send its request in time: end its input, so the read returns short."""
        if self._reading:
            self._read_expired = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RD)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's HTTP-level refusals, as JSON; an unsupported method is a 405."""
        self._reading = False
        self.close_connection = True
        if code == 501:
            self._send(
                405,
                request_codes.BAD_HTTP,
                f"method {request_codes.excerpt(self.command)} is not served: POST JSON-RPC",
            )
        else:
            self._send(code, request_codes.BAD_HTTP, message or self.responses.get(code, ("bad request",))[0])

    def _send(self, status: int, code: str, message: str) -> None:
        """A JSON error reply; once the read timer has cut the request short, always a 408."""
        if self._read_expired:
            status, code, message = (
                408,
                request_codes.TIMEOUT,
                "the request did not arrive within the read timeout",
            )
        self._reply(status, _error_body(code, message))

    def _reply(self, status: int, body: bytes) -> None:
        self.request_version = self.protocol_version  # never answer in HTTP/0.9's headerless form
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if status == 405:
                self.send_header("Allow", "POST")
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True

    def _content_length(self) -> int | None:
        """The body's declared length; None after replying to a missing or malformed one."""
        if self.headers.get("Transfer-Encoding") is not None:
            self._refuse(411, "chunked bodies are not read: send a Content-Length")
            return None
        values = self.headers.get_all("Content-Length") or []
        if len(set(values)) != 1 or not _CONTENT_LENGTH.fullmatch(values[0]):
            self._refuse(411 if not values else 400, "a POST body needs one Content-Length of ASCII digits")
            return None
        return int(values[0])

    def _refuse(self, status: int, message: str) -> None:
        self._reading = False
        self.close_connection = True
        self._send(status, request_codes.BAD_HTTP, message)

    def do_POST(self) -> None:
        started = time.monotonic()
        length = self._content_length()
        if length is None:
            return
        limits = self.server.limits
        if length > limits.max_bytes:
            self._reading = False
            self.close_connection = True
            self._reply(413, error_reply(too_large(limits.max_bytes)).encode("ascii"))
            return
        body = self.rfile.read(length)
        self._reading = False
        if len(body) < length:
            self.send_error(400, "the body ended before its Content-Length")
            return
        deadline = None if limits.time_budget is None else started + limits.time_budget
        reply = handle_message(body, limits, run=self.server.run, deadline=deadline)
        if reply is None:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._reply(200, reply.encode("ascii"))

    def do_GET(self) -> None:
        self._reading = False
        self._send(405, request_codes.BAD_HTTP, "POST a JSON-RPC 2.0 request")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: stdout and stderr belong to the caller."""


class PlannerHTTPServer(ThreadingHTTPServer):
    """A thread per connection, at most `MAX_CONNECTIONS` at once; connection faults stay quiet."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], limits: Limits, run: Runner, read_timeout: float) -> None:
        self.limits = limits
        self.run = run
        self.read_timeout = read_timeout
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self._turn_away(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def _turn_away(self, request: socket.socket) -> None:
        body = _error_body(
            request_codes.BUSY, f"the service holds {MAX_CONNECTIONS} connections; retry shortly"
        )
        head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        try:
            request.settimeout(self.read_timeout)
            request.sendall(head.encode("ascii") + body)
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A fault outside a request's answer: one typed log line, never a traceback on stderr."""
        import sys

        fault = sys.exc_info()[1]
        if fault is not None and not isinstance(fault, OSError):
            request_codes.internal_fault(fault)


def serve_http(
    address: tuple[str, int], limits: Limits, run: Runner, read_timeout: float, announce: TextIO
) -> None:
    """Serve until interrupted; the bound address (a port 0 request gets a free port) goes to `announce`."""
    with PlannerHTTPServer(address, limits, run, read_timeout) as server:
        host, port = server.server_address[:2]
        announce.write(f"planner: serving JSON-RPC on http://{host!s}:{port}/\n")
        announce.flush()
        server.serve_forever()
