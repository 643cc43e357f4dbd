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
    """`read_input` decoded as UTF-8; other bytes are a typed error naming the first bad byte."""
    data = read_input(path, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(request_codes.UNREADABLE, f"{path} is not UTF-8 text (byte {exc.start})") from None


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
