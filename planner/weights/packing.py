"""`planner layout pack` / `unpack`: NZ host packing of a `.npy` array or of named `.safetensors` tensors.

A packed `.npy` holds the blocked array. In a `.safetensors` file each packed tensor gets
its blocked shape, keeps its dtype, and the file's metadata records its logical shape under
`nz.logical_shape.<name>`, so `unpack` needs no `--shape` and a tensor is never packed twice.
The output goes through `planner.outputs` (beside its final path, renamed into place), and it may
never be the input: a failed or mistaken run leaves the input as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from tokenize import TokenError
from typing import Any, BinaryIO

import numpy as np

from planner import request_codes
from planner.errors import RequestError, excerpt
from planner.layout.host import NzGeometry, dtype_name, nz_geometry, pack, unpack
from planner.limits import MAX_NUMBER_DIGITS
from planner.outputs import check_output, open_output
from planner.targets.ascend import ASCEND_DTYPES
from planner.weights import safetensors as st

# The PyPTO dtype a safetensors dtype names (c0 follows from it); others need --dtype.
PYPTO_DTYPE = {
    "BOOL": "BOOL", "U8": "UINT8", "I8": "INT8", "F8_E5M2": "FP8E5M2", "F8_E4M3": "FP8E4M3",
    "I16": "INT16", "U16": "UINT16", "F16": "FP16", "BF16": "BF16",
    "I32": "INT32", "U32": "UINT32", "F32": "FP32", "I64": "INT64", "U64": "UINT64",
}  # fmt: skip
SHAPE_KEY = "nz.logical_shape."
OUTPUT_OPTION = "-o"
_NPY_MAGIC = b"\x93NUMPY"
_NPY_HEADER_LIMIT = 65536  # numpy itself reads headers of at most 10,000 bytes unless told otherwise
_LONG_NUMBER = re.compile(rf"\d{{{MAX_NUMBER_DIGITS + 1}}}")
_BRACKETS = re.compile(r"[][(){}]")


@dataclass(frozen=True, slots=True)
class Packed:
    """One tensor moved between logical and NZ order: the line `planner layout` prints for it."""

    name: str
    geometry: NzGeometry

    def describe(self, packing: bool) -> str:
        logical, blocked = list(self.geometry.logical), list(self.geometry.blocked)
        before, after = (logical, blocked) if packing else (blocked, logical)
        done = "packed" if packing else "unpacked"
        return f"{self.name}: {before} -> {after} ({self.geometry.dtype}, NZ {done})"


def parse_shape(text: str) -> tuple[int, ...]:
    """`R,C` or `B,R,C` (brackets and spaces allowed) as a shape."""
    try:
        shape = tuple(int(part) for part in text.strip().strip("[]").split(","))
    except ValueError:
        shape = ()
    if not shape or any(extent < 0 for extent in shape):
        raise RequestError(
            request_codes.INVALID_PARAMS,
            f"--shape expects extents like 4096,4096, got {excerpt(text)!r}",
        )
    return shape


def _distinct(source: Path, target: Path) -> None:
    """The output is neither the input (by path, or device and inode) nor in a missing directory."""
    check_output(str(target), [str(source)], OUTPUT_OPTION)


def pack_npy(source: Path, target: Path, dtype: str) -> list[Packed]:
    _distinct(source, target)
    array = _load_npy(source)
    packed = pack(array, dtype, name=source.name)
    _save_npy(target, packed)
    return [Packed(source.name, nz_geometry(array.shape, dtype, source.name))]


def unpack_npy(source: Path, target: Path, dtype: str, shape: Sequence[int]) -> list[Packed]:
    _distinct(source, target)
    _save_npy(target, unpack(_load_npy(source), shape, dtype, name=source.name))
    return [Packed(source.name, nz_geometry(shape, dtype, source.name))]


def _load_npy(path: Path) -> np.ndarray[Any, Any]:
    """The array in an `.npy` file; never unpickles (object arrays are refused, not executed)."""
    try:
        with path.open("rb") as stream:
            if stream.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                raise RequestError(request_codes.BAD_INPUT, f"{path} is not an .npy file (no .npy header)")
            _check_npy_header(path, stream)
            stream.seek(0)
            return np.lib.format.read_array(stream, allow_pickle=False)
    except OSError as exc:
        raise RequestError(request_codes.UNREADABLE, f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, EOFError, SyntaxError, TokenError) as exc:
        raise _not_npy(path, str(exc)) from None


def _not_npy(path: Path, why: str) -> RequestError:
    return RequestError(request_codes.BAD_INPUT, f"{path} is not a readable .npy array ({excerpt(why)})")


def _check_npy_header(path: Path, stream: BinaryIO) -> None:
    """Refuse a header numpy's reader would choke on: a number too long to convert, unbalanced brackets.

    Read after the magic: a version, the header's length (2 bytes in version 1, else 4), the header.
    """
    version = stream.read(2)
    width = 2 if version[:1] == b"\x01" else 4
    length = int.from_bytes(stream.read(width), "little")
    header = stream.read(min(length, _NPY_HEADER_LIMIT)).decode("latin-1")
    if _LONG_NUMBER.search(header) is not None:
        raise _not_npy(path, f"its header holds a number longer than {MAX_NUMBER_DIGITS} digits")
    depth = 0
    for bracket in _BRACKETS.findall(header):
        depth += 1 if bracket in "([{" else -1
        if depth < 0:
            break
    if depth != 0:
        raise _not_npy(path, "its header's brackets do not balance")


def _save_npy(path: Path, array: np.ndarray[Any, Any]) -> None:
    """`np.save`'s bytes, written in one pass, so a FIFO or a device can take them too (numpy asks
    a real file for its position)."""
    contiguous = np.ascontiguousarray(array)
    with open_output(str(path), OUTPUT_OPTION) as out:
        np.lib.format.write_array_header_1_0(out, np.lib.format.header_data_from_array_1_0(contiguous))
        out.write(contiguous.data)


def pack_safetensors(source: Path, target: Path, names: Sequence[str], dtype: str | None) -> list[Packed]:
    """Pack the named tensors; their dtype comes from the file unless `dtype` overrides it."""
    _distinct(source, target)
    header = st.read_header(source)
    metadata = dict(header.metadata)
    changes: dict[str, st.Change] = {}
    done: list[Packed] = []
    for name in dict.fromkeys(names):
        entry = header.entry(name)
        if SHAPE_KEY + name in metadata:
            raise RequestError(
                request_codes.INVALID_PARAMS,
                f"tensor {excerpt(name)!r} is already NZ packed (see its metadata)",
            )
        geometry = nz_geometry(entry.shape, _element_dtype(entry, dtype), name)
        changes[name] = st.Change(geometry.blocked, _packer(geometry, name))
        metadata[SHAPE_KEY + name] = json.dumps(list(entry.shape))
        done.append(Packed(name, geometry))
    st.rewrite(source, target, header, changes, metadata, OUTPUT_OPTION)
    return done


def unpack_safetensors(
    source: Path, target: Path, names: Sequence[str], dtype: str | None, shape: Sequence[int] | None
) -> list[Packed]:
    """Unpack the named tensors to the logical shape recorded by `pack` (or `shape`, for one tensor)."""
    _distinct(source, target)
    unique = list(dict.fromkeys(names))
    if shape is not None and len(unique) != 1:
        raise RequestError(
            request_codes.INVALID_PARAMS, "--shape names one tensor's shape; unpack one tensor with it"
        )
    header = st.read_header(source)
    metadata = dict(header.metadata)
    changes: dict[str, st.Change] = {}
    done: list[Packed] = []
    for name in unique:
        entry = header.entry(name)
        recorded = metadata.pop(SHAPE_KEY + name, None)
        logical = shape if shape is not None else _recorded_shape(name, recorded)
        geometry = nz_geometry(logical, _element_dtype(entry, dtype), name)
        changes[name] = st.Change(geometry.logical, _unpacker(geometry, entry.shape, name))
        done.append(Packed(name, geometry))
    st.rewrite(source, target, header, changes, metadata, OUTPUT_OPTION)
    return done


def _recorded_shape(name: str, recorded: str | None) -> tuple[int, ...]:
    if recorded is None:
        raise RequestError(
            request_codes.INVALID_PARAMS,
            f"tensor {excerpt(name)!r} has no recorded logical shape; give it with --shape R,C",
        )
    return parse_shape(recorded)


def _element_dtype(entry: st.TensorEntry, dtype: str | None) -> str:
    """The PyPTO dtype to pack `entry` as: `dtype` if given (same element width), else the file's own."""
    width = st.ELEMENT_BYTES.get(entry.dtype)
    tensor = f"tensor {excerpt(entry.name)!r} is {excerpt(entry.dtype)}"
    if dtype is None:
        if entry.dtype not in PYPTO_DTYPE:
            raise RequestError(
                request_codes.INVALID_PARAMS,
                f"{tensor}; name its PyPTO dtype with --dtype",
            )
        return PYPTO_DTYPE[entry.dtype]
    name = dtype_name(dtype)
    if width is None or ASCEND_DTYPES[name].bits != 8 * width:
        raise RequestError(
            request_codes.INVALID_PARAMS,
            f"{tensor} ({width or '?'}-byte elements); --dtype {name} has "
            f"{ASCEND_DTYPES[name].bits}-bit elements",
        )
    return name


def _words(geometry: NzGeometry) -> np.dtype[Any]:
    return np.dtype(f"<u{geometry.itemsize}")


def _packer(geometry: NzGeometry, name: str) -> Callable[[bytes], bytes]:
    def transform(data: bytes) -> bytes:
        logical = np.frombuffer(data, _words(geometry)).reshape(geometry.logical)
        return pack(logical, geometry.dtype, name=name).tobytes()

    return transform


def _unpacker(geometry: NzGeometry, stored: tuple[int, ...], name: str) -> Callable[[bytes], bytes]:
    def transform(data: bytes) -> bytes:
        blocked = np.frombuffer(data, _words(geometry)).reshape(stored)
        return unpack(blocked, geometry.logical, geometry.dtype, name=name).tobytes()

    return transform
