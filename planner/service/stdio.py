"""`planner serve`: JSON-RPC 2.0, one message per line on stdin, one reply per line on stdout.

A line longer than the byte limit is skipped without being held in memory, and answered
with `request.too_large`; the service keeps serving. Each message's deadline starts when
its line has been read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from planner.limits import Limits, too_large
from planner.service.jsonrpc import Runner, error_reply, handle_message
from planner.service.methods import answer

_DRAIN_CHUNK = 1 << 16


def _drain_line(stream: BinaryIO) -> None:
    """Skip the rest of an oversized line."""
    while True:
        chunk = stream.readline(_DRAIN_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def read_messages(stream: BinaryIO, max_bytes: int) -> Iterator[bytes | None]:
    """Yield each non-blank line without its newline; None for a line above `max_bytes`."""
    while True:
        line = stream.readline(max_bytes + 2)  # room for "\r\n"
        if not line:
            return
        if not line.endswith(b"\n") and len(line) == max_bytes + 2:
            _drain_line(stream)
            yield None
            continue
        body = line.rstrip(b"\r\n")
        if len(body) > max_bytes:
            yield None
        elif body.strip():
            yield body


def serve_stdio(stdin: BinaryIO, stdout: BinaryIO, limits: Limits, run: Runner = answer) -> None:
    """Serve until stdin closes; `run` answers each request (the CLI passes a worker pool's)."""
    for body in read_messages(stdin, limits.max_bytes):
        reply = (
            error_reply(too_large(limits.max_bytes))
            if body is None
            else handle_message(body, limits, run=run)
        )
        if reply is not None:
            stdout.write(reply.encode("ascii") + b"\n")
            stdout.flush()
