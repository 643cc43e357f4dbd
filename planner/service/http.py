"""`planner serve --http HOST:PORT`: the same JSON-RPC bodies over HTTP POST, on one event loop.

An idle or slow connection costs a few kilobytes and no thread, so the service holds
thousands (`max_connections`, and at most `max_per_address` from one client address; past
either a connection gets 503 `request.busy`). A connection may sit idle between requests
for `idle_timeout` seconds and is then closed; once a request's first byte arrives, its
line, headers and body must arrive within `read_timeout` (408 otherwise). The requests run
on the worker pool through a few threads, so solving never blocks the loop; a message of
constant-time requests only (`planner.version`) is answered on the loop at once, never
behind a worker. The body bytes received and not yet answered are at most `BODY_BUDGET`
request sizes (`--max-bytes`) in all, and a head at most 64 KiB; a body that would pass
the budget gets 503 `request.busy`, so memory stays bounded however many clients send. Every
refusal at the HTTP level is a 4xx (503 when full) with a JSON-RPC error body; a
well-formed POST always gets 200 with the JSON-RPC reply, errors included.

The service has no authentication, so it binds only loopback addresses unless
`--allow-remote` says serving other hosts is meant.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import http
import ipaddress
import resource
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

from planner import request_codes
from planner.errors import RequestError, excerpt
from planner.limits import Limits
from planner.service.bounded import needs_worker
from planner.service.heap import hand_back_memory
from planner.service.http_request import (
    READ_LIMIT,
    Head,
    HttpRefusal,
    content_length,
    read_body,
    read_head,
    refusal,
)
from planner.service.jsonrpc import Runner, error_reply, handle_message

DEFAULT_HOST = "127.0.0.1"
DISPATCH_SPARE = 2  # dispatch threads beyond the workers: the next requests are parsed while others solve
BODY_BUDGET = 64  # request sizes (--max-bytes) of bodies held at once, across all connections
LINGER = 1.0  # seconds a refused connection's unread input is drained, so the client reads its answer
_BACKLOG = 1024
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_TRIM_FROM = 1 << 20  # bytes of body after which the freed memory is handed back to the system
_SPARE_FILES = 64  # descriptors beyond the connections: the workers' pipes, the listening socket


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """How long a client may take and how many connections the service holds (all positive)."""

    read_timeout: float = 10.0
    idle_timeout: float = 60.0
    max_connections: int = 4096
    max_per_address: int = 1024
    workers: int = 4  # the pool's size: requests handed to it at once are this plus DISPATCH_SPARE

    def __post_init__(self) -> None:
        for flag, value in (
            ("--read-timeout", self.read_timeout),
            ("--idle-timeout", self.idle_timeout),
            ("--max-connections", self.max_connections),
            ("--max-per-address", self.max_per_address),
        ):
            if not value > 0:
                raise RequestError(request_codes.INVALID_PARAMS, f"{flag} must be positive, got {value}")


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


def _response(status: int, body: bytes, head: Head | None, close: bool) -> bytes:
    lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}", "Server: tile-planner"]
    if status != 204:
        lines.append("Content-Type: application/json")
    lines.append(f"Content-Length: {len(body)}")
    if status == 405:
        lines.append("Allow: POST")
    if close:
        lines.append("Connection: close")
    elif head is not None and head.version < (1, 1):
        lines.append("Connection: keep-alive")
    return "\r\n".join(lines).encode("ascii") + b"\r\n\r\n" + body


def _method_refusal(head: Head) -> HttpRefusal:
    if head.method == "GET":
        return refusal(405, "POST a JSON-RPC 2.0 request")
    return refusal(405, f"method {excerpt(head.method)} is not served: POST JSON-RPC")


class _Service:
    """The connections of one server: their counts per address, and each one's requests in turn."""

    def __init__(self, limits: Limits, run: Runner, settings: HttpSettings, dispatch: ThreadPoolExecutor):
        self._limits = limits
        self._run = run
        self._settings = settings
        self._dispatch = dispatch
        self._open = 0
        self._body_bytes = 0
        self._per_address: collections.Counter[str] = collections.Counter()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = str(writer.get_extra_info("peername", ("?",))[0])
        try:
            busy = self._busy(peer)
            if busy is not None:
                await self._refuse(reader, writer, HttpRefusal(503, busy))
                return
            self._open += 1
            self._per_address[peer] += 1
            try:
                await self._serve(reader, writer)
            finally:
                self._open -= 1
                self._per_address[peer] -= 1
                if not self._per_address[peer]:
                    del self._per_address[peer]
        except OSError:  # the client reset or closed the connection: nobody to answer
            pass
        except Exception as exc:
            request_codes.internal_fault(exc)
        finally:
            _close(writer)

    def _busy(self, peer: str) -> RequestError | None:
        settings = self._settings
        if self._open >= settings.max_connections:
            message = f"the service holds {settings.max_connections} connections; retry shortly"
        elif self._per_address[peer] >= settings.max_per_address:
            message = (
                f"{peer} holds {settings.max_per_address} connections, the most one address may; "
                "reuse a connection or retry shortly"
            )
        else:
            return None
        return RequestError(request_codes.BUSY, message)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Requests one after another until the client closes, idles out, or sends one we refuse."""
        while True:
            try:
                async with asyncio.timeout(self._settings.idle_timeout):
                    first = await reader.read(1)
            except TimeoutError:
                return
            if not first:
                return
            try:
                if not await self._exchange(reader, writer, first):
                    return
            except HttpRefusal as refused:
                await self._refuse(reader, writer, refused)
                return

    async def _exchange(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes
    ) -> bool:
        """Read one request (its line, headers and body within the read timeout of `first` arriving)
        and answer it; whether the connection stays open. A refusal raises `HttpRefusal`."""
        until = asyncio.get_running_loop().time() + self._settings.read_timeout
        try:
            async with asyncio.timeout_at(until):
                head = await read_head(reader, first)
                if head.method != "POST":
                    raise _method_refusal(head)
                length = content_length(head, self._limits.max_bytes)
            with self._holding() as hold:
                started = time.monotonic()
                async with asyncio.timeout_at(until):
                    if head.expects_continue and not await self._send(writer, _CONTINUE):
                        return False
                    body = await read_body(reader, length, hold)
                budget = self._limits.time_budget
                reply = await self._answer(body, None if budget is None else started + budget)
                del body
            if length >= _TRIM_FROM:
                hand_back_memory()
        except TimeoutError:
            late = RequestError(request_codes.TIMEOUT, "the request did not arrive within the read timeout")
            raise HttpRefusal(408, late) from None
        close = not head.keep_alive
        status, payload = (204, b"") if reply is None else (200, reply.encode("ascii"))
        return await self._send(writer, _response(status, payload, head, close)) and not close

    @contextlib.contextmanager
    def _holding(self) -> Iterator[Callable[[int], None]]:
        """A body's bytes count against the shared budget from their arrival until it is answered."""
        budget = BODY_BUDGET * self._limits.max_bytes
        held = 0

        def hold(size: int) -> None:
            nonlocal held
            if self._body_bytes + size > budget:
                message = f"the service holds {budget} bytes of request bodies at once; retry shortly"
                raise HttpRefusal(503, RequestError(request_codes.BUSY, message))
            self._body_bytes += size
            held += size

        try:
            yield hold
        finally:
            self._body_bytes -= held

    async def _answer(self, body: bytes, deadline: float | None) -> str | None:
        """The JSON-RPC reply: on the loop when every request in it is constant-time, else via a worker."""
        answer = functools.partial(handle_message, body, self._limits, run=self._run, deadline=deadline)
        if not needs_worker(body, self._limits):
            return answer()
        return await asyncio.get_running_loop().run_in_executor(self._dispatch, answer)

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> bool:
        """Write a reply; a client that does not take it within the read timeout is cut off."""
        writer.write(data)
        try:
            async with asyncio.timeout(self._settings.read_timeout):
                await writer.drain()
        except (TimeoutError, OSError):
            writer.transport.abort()
            return False
        return True

    async def _refuse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, refused: HttpRefusal
    ) -> None:
        """Answer a refusal, then drain unread input for a moment: a reset must not eat the answer."""
        body = error_reply(refused.error).encode("ascii")
        if not await self._send(writer, _response(refused.status, body, None, close=True)):
            return
        with contextlib.suppress(OSError, TimeoutError):
            if writer.can_write_eof():
                writer.write_eof()
            async with asyncio.timeout(min(LINGER, self._settings.read_timeout)):
                while await reader.read(READ_LIMIT):
                    pass


def _close(writer: asyncio.StreamWriter) -> None:
    """Close at once: nothing is left to send, and a client that stopped reading holds nothing."""
    if writer.transport.get_write_buffer_size():
        writer.transport.abort()
    else:
        writer.close()


def _quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's own faults: a socket error (e.g. out of descriptors) stays quiet, any other is typed."""
    fault = context.get("exception")
    if fault is not None and not isinstance(fault, OSError):
        request_codes.internal_fault(fault)


def _room_for(connections: int) -> None:
    """Raise the open-file limit (soft, up to hard) so every allowed connection gets a descriptor."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + _SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(
            resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
        )


async def _serve_forever(address: tuple[str, int], service: _Service, announce: TextIO) -> None:
    asyncio.get_running_loop().set_exception_handler(_quiet)
    server = await asyncio.start_server(
        service.connection,
        address[0],
        address[1],
        family=socket.AF_INET,
        limit=READ_LIMIT,
        backlog=_BACKLOG,
        reuse_address=True,
    )
    host, port = server.sockets[0].getsockname()[:2]
    announce.write(f"planner: serving JSON-RPC on http://{host!s}:{port}/\n")
    announce.flush()
    async with server:
        await server.serve_forever()


def serve_http(
    address: tuple[str, int], limits: Limits, run: Runner, settings: HttpSettings, announce: TextIO
) -> None:
    """Serve until interrupted; the bound address (a port 0 request gets a free port) goes to `announce`."""
    _room_for(settings.max_connections)
    threads = max(settings.workers, 1) + DISPATCH_SPARE  # few threads: each keeps its stack and heap arena
    dispatch = ThreadPoolExecutor(threads, thread_name_prefix="planner-dispatch")
    try:
        asyncio.run(_serve_forever(address, _Service(limits, run, settings, dispatch), announce))
    finally:
        dispatch.shutdown(wait=False, cancel_futures=True)
