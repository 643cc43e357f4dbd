"""Reading one HTTP/1.1 request off a connection, with the limits of the standard library's server.

The request line and each header line may be at most `MAX_LINE` bytes (414 and 431 past
it, like `http.server`), a request carries at most `MAX_HEADERS` header lines and
`MAX_LINE` bytes of them in all (431: thousands of connections may be reading a head), the
body needs one Content-Length of ASCII digits (411 when missing or chunked, 400 when
malformed) and at most `max_bytes` of it are read (413). Each refusal is an `HttpRefusal`
that the server answers with a JSON-RPC error body and then closes the connection, since
what follows a refused request cannot be framed. The caller bounds the time the reading
takes; here only the bytes are bounded.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass

from planner import request_codes
from planner.errors import RequestError, excerpt
from planner.limits import too_large

MAX_LINE = 65536  # bytes in the request line or one header line
MAX_HEADERS = 100
READ_LIMIT = MAX_LINE + 2  # the stream's buffer: one line and its CRLF
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")
_VERSION = re.compile(r"HTTP/([0-9]+)\.([0-9]+)")


class HttpRefusal(Exception):
    """A request refused at the HTTP level: the status and the typed error its body carries."""

    def __init__(self, status: int, error: RequestError) -> None:
        super().__init__(error.message)
        self.status = status
        self.error = error


def refusal(status: int, message: str) -> HttpRefusal:
    return HttpRefusal(status, RequestError(request_codes.BAD_HTTP, message))


@dataclass(frozen=True, slots=True)
class Head:
    """A request line and its headers (names lower-cased, values stripped, in order)."""

    method: str
    version: tuple[int, int]
    headers: tuple[tuple[str, str], ...]

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]

    @property
    def expects_continue(self) -> bool:
        """An HTTP/1.1 client that waits for `100 Continue` before it sends the body (curl does)."""
        return self.version >= (1, 1) and [value.lower() for value in self.values("expect")] == [
            "100-continue"
        ]

    @property
    def keep_alive(self) -> bool:
        """HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 only when asked to keep it."""
        tokens = {token.strip().lower() for value in self.values("connection") for token in value.split(",")}
        if self.version >= (1, 1):
            return "close" not in tokens
        return "keep-alive" in tokens


async def _line(reader: asyncio.StreamReader, too_long: HttpRefusal) -> bytes:
    """One CRLF- (or LF-) terminated line without its end; `too_long` past `MAX_LINE` bytes."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise too_long from None
    except asyncio.IncompleteReadError:
        raise refusal(400, "the connection ended inside the request head") from None
    if len(line) > MAX_LINE + 2:
        raise too_long
    return line.rstrip(b"\r\n")


def _request_line(line: bytes) -> tuple[str, tuple[int, int]]:
    words = line.decode("latin-1").split()
    if len(words) != 3:
        raise refusal(400, f"a bad request line: {excerpt(repr(line))}")
    method, _, version_text = words
    version = _VERSION.fullmatch(version_text)
    if version is None:
        raise refusal(400, f"a bad HTTP version: {excerpt(repr(version_text))}")
    number = (int(version[1]), int(version[2]))
    if number[0] != 1:
        raise refusal(505, f"HTTP/{number[0]} is not served: speak HTTP/1.1")
    return method, number


async def read_head(reader: asyncio.StreamReader, first: bytes) -> Head:
    """The request line (whose first byte the caller already read as `first`) and the headers."""
    line = first + await _line(reader, refusal(414, f"the request line is longer than {MAX_LINE} bytes"))
    method, version = _request_line(line)
    header_too_long = refusal(431, f"a header line is longer than {MAX_LINE} bytes")
    headers: list[tuple[str, str]] = []
    size = 0
    while True:
        raw = await _line(reader, header_too_long)
        if not raw:
            return Head(method, version, tuple(headers))
        if len(headers) == MAX_HEADERS:
            raise refusal(431, f"a request carries at most {MAX_HEADERS} header lines")
        size += len(raw)
        if size > MAX_LINE:
            raise refusal(431, f"a request carries at most {MAX_LINE} bytes of headers")
        name, colon, value = raw.decode("latin-1").partition(":")
        if not colon or not name or name != name.strip():
            raise refusal(400, f"a bad header line: {excerpt(repr(raw))}")
        headers.append((name.lower(), value.strip()))


def content_length(head: Head, max_bytes: int) -> int:
    """The body's declared length, checked against `max_bytes` before a byte of it is read."""
    if head.values("transfer-encoding"):
        raise refusal(411, "chunked bodies are not read: send a Content-Length")
    values = head.values("content-length")
    if len(set(values)) != 1 or not _CONTENT_LENGTH.fullmatch(values[0]):
        raise refusal(411 if not values else 400, "a POST body needs one Content-Length of ASCII digits")
    length = int(values[0])
    if length > max_bytes:
        raise HttpRefusal(413, too_large(max_bytes))
    return length


async def read_body(reader: asyncio.StreamReader, length: int, hold: Callable[[int], None]) -> bytes:
    """`length` bytes of body; `hold` is told of each piece as it arrives (and may refuse it)."""
    pieces: list[bytes] = []
    remaining = length
    while remaining:
        piece = await reader.read(min(remaining, MAX_LINE))
        if not piece:
            raise refusal(400, "the body ended before its Content-Length")
        hold(len(piece))
        pieces.append(piece)
        remaining -= len(piece)
    return b"".join(pieces)
