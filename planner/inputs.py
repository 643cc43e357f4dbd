"""A request read from a JSON file: a JSON-RPC envelope, `{"method", "params"}`, or bare params.

Bare params name their method by a field only that method's request has (checked in this
order), so a file saved from any of the protocol examples can be replayed as it is.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from planner import request_codes
from planner.errors import RequestError
from planner.limits import Limits, parse_json, too_large

_METHOD_BY_FIELD: tuple[tuple[str, str], ...] = (
    ("dfbs", "kernelcfg.resolve"),
    ("policy", "kernelcfg.resolve"),
    ("arch", "kernelcfg.resolve"),
    ("tensors", "layout.plan"),
    ("index_bits", "layout.plan"),
    ("expr", "proofs.check"),
)


_ENVELOPE_MEMBERS = frozenset({"jsonrpc", "id", "method", "params"})


@dataclass(frozen=True, slots=True)
class FileRequest:
    method: str
    params: dict[str, Any]


def read_input(path: str, max_bytes: int | None) -> bytes:
    """A file's bytes (`-`: stdin), at most `max_bytes` (None: all); an unreadable or larger file is
    a typed error.

    Only `max_bytes + 1` bytes are ever read, so an endless input (`/dev/zero`) is refused quickly.
    """
    wanted = -1 if max_bytes is None else max_bytes + 1
    try:
        if path == "-":
            data = sys.stdin.buffer.read(wanted)
        else:
            with open(path, "rb") as stream:
                data = stream.read(wanted)
    except OSError as exc:
        raise RequestError(request_codes.UNREADABLE, f"cannot read {path}: {exc.strerror or exc}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise too_large(max_bytes)
    return data


def read_text(path: str, max_bytes: int | None) -> str:
    """`read_input` decoded as `decode_source` decodes it."""
    return decode_source(path, read_input(path, max_bytes))


def _first_two_lines(data: bytes) -> bytes:
    """Where PEP 263 looks for a declaration."""
    end = data.find(b"\n", data.find(b"\n") + 1)
    return data if end < 0 else data[: end + 1]


def _declared_encoding(head: bytes) -> str:
    """The encoding a PEP 263 declaration in `head` names, as Python finds it
    (`tokenize.detect_encoding`); UTF-8 when there is none. A byte-order mark is UTF-8 too, kept in
    the text, so offsets stay the input's. A declaration Python refuses is a `SyntaxError`."""
    if b"coding" not in head:
        return "utf-8"
    import tokenize

    lines = iter([*head.splitlines(keepends=True), b""])
    try:
        encoding, _ = tokenize.detect_encoding(lines.__next__)
    except SyntaxError as exc:
        if "invalid or missing" in str(exc.msg):  # a first line that is not UTF-8, no declaration
            return "utf-8"
        raise
    return "utf-8" if encoding in ("utf-8", "utf-8-sig") else encoding


def source_text(data: bytes) -> str:
    """Text as Python reads a source file: in the encoding its PEP 263 declaration names
    (`# -*- coding: latin-1 -*-`), else UTF-8. A `ValueError` says why bytes do not read so."""
    try:
        encoding = _declared_encoding(_first_two_lines(data))
    except SyntaxError as exc:  # an unknown codec, or one that contradicts a byte-order mark
        raise ValueError(f"declares an encoding Python refuses ({exc.msg})") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        named = "UTF-8" if encoding == "utf-8" else f"{encoding} (as it declares)"
        raise ValueError(f"is not {named} text (byte {exc.start})") from None


def decode_source(path: str, data: bytes) -> str:
    """`source_text`, its refusal a typed error naming the file."""
    try:
        return source_text(data)
    except ValueError as exc:
        raise RequestError(request_codes.UNREADABLE, f"{path} {exc}") from None


def encode_like_source(text: str) -> bytes:
    """Text written back as a source file: in the encoding its own PEP 263 declaration names,
    else UTF-8, so a file read by `decode_source` keeps its encoding."""
    end = text.find("\n", text.find("\n") + 1)
    head = (text if end < 0 else text[: end + 1]).encode("utf-8", errors="replace")
    try:
        encoding = _declared_encoding(head)
    except SyntaxError:  # refused on reading already; a text that never was a file is UTF-8
        encoding = "utf-8"
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise RequestError(
            request_codes.UNWRITABLE,
            f"the text has {exc.object[exc.start : exc.end]!r}, which its declared {encoding} cannot hold",
        ) from None


def is_json_request(source: str, text: str) -> bool:
    """A request file rather than IR: named `.json`, or text that opens a JSON object."""
    return source.endswith(".json") or text.lstrip().startswith("{")


def _bare_method(params: dict[str, Any]) -> str:
    for field, method in _METHOD_BY_FIELD:
        if field in params:
            return method
    raise RequestError(
        request_codes.INVALID_ENVELOPE,
        'cannot tell which method this JSON is for; wrap it as {"method": ..., "params": ...}',
    )


def _envelope(document: dict[str, Any]) -> FileRequest | None:
    """`{"method", "params"}` (JSON-RPC's `jsonrpc` and `id` may ride along); None for bare params."""
    if not isinstance(document.get("method"), str) or not set(document) <= _ENVELOPE_MEMBERS:
        return None
    params = document.get("params", {})
    if not isinstance(params, dict):
        raise RequestError(request_codes.INVALID_PARAMS, "params must be a JSON object")
    return FileRequest(document["method"], params)


def _document(data: bytes, limits: Limits) -> dict[str, Any]:
    document = parse_json(data, limits)
    if not isinstance(document, dict):
        raise RequestError(request_codes.INVALID_ENVELOPE, "a request file must hold one JSON object")
    return document


def read_request(data: bytes, limits: Limits) -> FileRequest:
    """Parse a JSON request file within the limits; bare params name their method by their fields."""
    document = _document(data, limits)
    return _envelope(document) or FileRequest(_bare_method(document), document)


def read_params(data: bytes, limits: Limits, method: str) -> dict[str, Any]:
    """`planner call METHOD FILE`: the file holds the params, or an envelope for that same method."""
    document = _document(data, limits)
    wrapped = _envelope(document)
    if wrapped is None:
        return document
    if wrapped.method != method:
        raise RequestError(
            request_codes.INVALID_PARAMS, f"the file is a {wrapped.method} request, not {method}"
        )
    return wrapped.params
