"""The `.safetensors` file format, read and written through its bytes so every dtype survives.

Layout: an 8-byte little-endian header length N, N bytes of a JSON object (tensor name ->
`{"dtype", "shape", "data_offsets": [begin, end]}`, plus an optional `"__metadata__"` map of
strings), then the data buffer; offsets are relative to the buffer's start. Tensors are never
decoded: a tensor is an element width and its bytes, so BF16, FP8 or dtypes this module has
never heard of are copied bit for bit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from math import prod
from pathlib import Path
from typing import Any, BinaryIO

from planner import request_codes
from planner.errors import RequestError, excerpt
from planner.limits import bounded_int
from planner.outputs import open_output

METADATA = "__metadata__"
_LENGTH_BYTES = 8
_MAX_HEADER_BYTES = 100 * 1024 * 1024  # the format's own limit on the JSON header
_COPY_CHUNK = 16 * 1024 * 1024

# Bytes per element of each safetensors dtype; dtypes missing here (sub-byte ones) are copied unchecked.
ELEMENT_BYTES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8, "C64": 8,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class TensorEntry:
    """One header entry: where its bytes lie in the data buffer."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"dtype": self.dtype, "shape": list(self.shape), "data_offsets": [self.begin, self.end]}


@dataclass(frozen=True, slots=True)
class Header:
    """A parsed header: entries in data order, the metadata map, and where the data buffer starts."""

    tensors: tuple[TensorEntry, ...]
    metadata: dict[str, str]
    data_start: int

    def entry(self, name: str) -> TensorEntry:
        for tensor in self.tensors:
            if tensor.name == name:
                return tensor
        known = ", ".join(tensor.name for tensor in self.tensors) or "none"
        raise RequestError(
            request_codes.INVALID_PARAMS,
            f"no tensor named {_quoted(name)} in the file (tensors: {excerpt(known)})",
        )


def _quoted(name: str) -> str:
    """A tensor name as an error quotes it: at most `ECHO_LIMIT` characters of it."""
    return repr(excerpt(name))


def _corrupt(path: Path, why: str) -> RequestError:
    return RequestError(request_codes.BAD_INPUT, f"{path} is not a valid .safetensors file: {why}")


def read_header(path: Path) -> Header:
    """Parse and check the header: every entry well formed, offsets tiling the data buffer exactly."""
    try:
        size = path.stat().st_size
        with path.open("rb") as stream:
            length = int.from_bytes(stream.read(_LENGTH_BYTES), "little")
            if size < _LENGTH_BYTES or length > min(_MAX_HEADER_BYTES, size - _LENGTH_BYTES):
                raise _corrupt(path, f"the header length {length} does not fit the file ({size} bytes)")
            document = json.loads(stream.read(length).decode("utf-8"), parse_int=bounded_int)
    except OSError as exc:
        raise RequestError(request_codes.UNREADABLE, f"cannot read {path}: {exc.strerror or exc}") from None
    except RecursionError:
        raise _corrupt(path, "the header nests deeper than the JSON reader's recursion limit") from None
    except ValueError as exc:  # not UTF-8, not JSON, or a number past the digit limit
        raise _corrupt(path, f"the header is not JSON ({excerpt(str(exc))})") from None
    if not isinstance(document, dict):
        raise _corrupt(path, "the header is not a JSON object")
    metadata = document.pop(METADATA, None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise _corrupt(path, f"{METADATA} must map strings to strings")
    entries = sorted((_entry(path, name, value) for name, value in document.items()), key=lambda e: e.begin)
    data_start = _LENGTH_BYTES + length
    _check_tiling(path, entries, size - data_start)
    return Header(tuple(entries), dict(metadata), data_start)


def _entry(path: Path, name: str, value: Any) -> TensorEntry:
    fields = value if isinstance(value, dict) else {}
    dtype, shape, offsets = fields.get("dtype"), fields.get("shape"), fields.get("data_offsets")
    if (
        not isinstance(dtype, str)
        or not isinstance(shape, list)
        or not all(isinstance(extent, int) and extent >= 0 for extent in shape)
        or not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(isinstance(offset, int) for offset in offsets)
        or not 0 <= offsets[0] <= offsets[1]
    ):
        raise _corrupt(path, f"tensor {_quoted(name)} needs a dtype, a shape and data_offsets [begin, end]")
    entry = TensorEntry(name, dtype, tuple(shape), offsets[0], offsets[1])
    width = ELEMENT_BYTES.get(dtype)
    if width is not None and prod(entry.shape) * width != entry.end - entry.begin:
        raise _corrupt(
            path,
            f"tensor {_quoted(name)} has {entry.end - entry.begin} bytes for "
            f"{excerpt(str(list(shape)))} {excerpt(dtype)}",
        )
    return entry


def _check_tiling(path: Path, entries: list[TensorEntry], data_bytes: int) -> None:
    position = 0
    for entry in entries:
        if entry.begin != position:
            raise _corrupt(
                path, f"tensor {_quoted(entry.name)} starts at byte {entry.begin}, expected {position}"
            )
        position = entry.end
    if position != data_bytes:
        raise _corrupt(path, f"the tensors cover {position} data bytes, the file holds {data_bytes}")


def encode_header(tensors: tuple[TensorEntry, ...], metadata: dict[str, str]) -> bytes:
    """Length prefix and JSON header, padded with spaces to a multiple of 8 as the format recommends."""
    document: dict[str, Any] = {METADATA: dict(sorted(metadata.items()))} if metadata else {}
    document.update({tensor.name: tensor.to_json() for tensor in tensors})
    text = json.dumps(document, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % _LENGTH_BYTES)
    return len(text).to_bytes(_LENGTH_BYTES, "little") + text


@dataclass(frozen=True, slots=True)
class Change:
    """A tensor's new shape, and how its bytes become the new bytes (same count)."""

    shape: tuple[int, ...]
    transform: Callable[[bytes], bytes]


def rewrite(
    source: Path,
    target: Path,
    header: Header,
    changes: dict[str, Change],
    metadata: dict[str, str],
    option: str,
) -> None:
    """Write `source` to `target` with the named tensors' shapes and bytes changed, one tensor at a time.

    Every other tensor is copied byte for byte; `target` appears only when complete.
    """
    entries = tuple(
        replace(entry, shape=changes[entry.name].shape) if entry.name in changes else entry
        for entry in header.tensors
    )
    with source.open("rb") as stream, open_output(str(target), option) as out:
        out.write(encode_header(entries, metadata))
        for entry in header.tensors:
            stream.seek(header.data_start + entry.begin)
            change = changes.get(entry.name)
            if change is None:
                _copy_bytes(stream, out, entry.end - entry.begin)
                continue
            data = change.transform(stream.read(entry.end - entry.begin))
            assert len(data) == entry.end - entry.begin, "a change keeps the tensor's byte count"
            out.write(data)


def _copy_bytes(stream: BinaryIO, out: BinaryIO, count: int) -> None:
    while count:
        chunk = stream.read(min(count, _COPY_CHUNK))
        if not chunk:
            raise RequestError(request_codes.BAD_INPUT, f"{stream.name} ended early")
        out.write(chunk)
        count -= len(chunk)
