"""`planner layout pack` / `unpack`: .npy files, named .safetensors tensors (BF16 included), typed errors."""

from __future__ import annotations

import json
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.cli import main
from planner.testing.oracles.nz_bytes import pack_nz, unpack_nz
from tests.support.hypothesis_budget import lowered

Tensors = dict[str, tuple[str, list[int], bytes]]


def write_safetensors(path: Path, tensors: Tensors, metadata: dict[str, str] | None = None) -> None:
    """The format by hand: u64 little-endian header length, JSON header, raw bytes in header order."""
    header: dict[str, Any] = {"__metadata__": metadata} if metadata else {}
    data, offset = b"", 0
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        data, offset = data + raw, offset + len(raw)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def read_safetensors(path: Path) -> tuple[Tensors, dict[str, str]]:
    blob = path.read_bytes()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + length])
    metadata = header.pop("__metadata__", {})
    data = blob[8 + length :]
    tensors = {
        name: (entry["dtype"], entry["shape"], data[entry["data_offsets"][0] : entry["data_offsets"][1]])
        for name, entry in header.items()
    }
    return tensors, metadata


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def words(shape: tuple[int, ...], dtype: type[np.generic], seed: int = 0) -> np.ndarray[Any, Any]:
    width = np.dtype(dtype).itemsize
    raw = np.random.default_rng(seed).integers(0, 256, size=int(np.prod(shape)) * width, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def test_npy_pack_writes_the_blocked_array_and_unpack_restores_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logical = words((2, 64, 96), np.int8)
    np.save(tmp_path / "w.npy", logical)
    code, out, _ = run(
        capsys, "layout", "pack", str(tmp_path / "w.npy"), "--dtype", "INT8", "-o", str(tmp_path / "p.npy")
    )
    assert (code, out) == (0, "w.npy: [2, 64, 96] -> [2, 3, 4, 16, 32] (INT8, NZ packed)\n")
    packed = np.load(tmp_path / "p.npy")
    assert packed.shape == (2, 3, 4, 16, 32) and packed.tobytes() == pack_nz(logical)
    code, out, _ = run(
        capsys, "layout", "unpack", str(tmp_path / "p.npy"), "--shape", "2,64,96", "--dtype", "INT8",
        "-o", str(tmp_path / "u.npy"),
    )  # fmt: skip
    assert code == 0
    np.testing.assert_array_equal(np.load(tmp_path / "u.npy"), logical)


def test_safetensors_pack_converts_only_the_named_tensors_and_every_dtype_survives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bf16 = words((32, 48), np.uint16, 1)
    int8 = words((4, 16, 64), np.int8, 2)
    original: Tensors = {
        "wq": ("BF16", [32, 48], bf16.tobytes()),
        "norm": ("F32", [7], words((7,), np.float32, 3).tobytes()),
        "wk": ("I8", [4, 16, 64], int8.tobytes()),
        "scale": ("F8_E4M3", [3], b"\x01\x02\x03"),
        "packed4": ("F4", [5], b"\xab\xcd\xef"),  # a dtype this planner does not know: copied as is
    }
    write_safetensors(tmp_path / "model.safetensors", original, {"format": "pt"})
    before = (tmp_path / "model.safetensors").read_bytes()
    code, out, _ = run(
        capsys, "layout", "pack", str(tmp_path / "model.safetensors"), "--tensors", "wq,wk",
        "-o", str(tmp_path / "nz.safetensors"),
    )  # fmt: skip
    assert code == 0
    assert out.splitlines() == [
        "wq: [32, 48] -> [1, 3, 2, 16, 16] (BF16, NZ packed)",
        "wk: [4, 16, 64] -> [4, 2, 1, 16, 32] (INT8, NZ packed)",
    ]
    assert (tmp_path / "model.safetensors").read_bytes() == before
    packed, metadata = read_safetensors(tmp_path / "nz.safetensors")
    assert packed["wq"] == ("BF16", [1, 3, 2, 16, 16], pack_nz(bf16))
    assert packed["wk"] == ("I8", [4, 2, 1, 16, 32], pack_nz(int8))
    assert {name: packed[name] for name in ("norm", "scale", "packed4")} == {
        name: original[name] for name in ("norm", "scale", "packed4")
    }
    assert metadata == {
        "format": "pt",
        "nz.logical_shape.wk": "[4, 16, 64]",
        "nz.logical_shape.wq": "[32, 48]",
    }
    np.testing.assert_array_equal(unpack_nz(packed["wq"][2], np.uint16, (32, 48)), bf16)

    code, _, err = run(
        capsys,
        "layout",
        "pack",
        str(tmp_path / "nz.safetensors"),
        "--tensors",
        "wq",
        "-o",
        str(tmp_path / "x"),
    )
    assert code == 2 and "[request.invalid_params] tensor 'wq' is already NZ packed" in err
    code, _, _ = run(
        capsys, "layout", "unpack", str(tmp_path / "nz.safetensors"), "--tensors", "wk,wq",
        "-o", str(tmp_path / "back.safetensors"),
    )  # fmt: skip
    assert code == 0
    assert read_safetensors(tmp_path / "back.safetensors") == (original, {"format": "pt"})


def test_dtype_override_must_keep_the_element_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_safetensors(tmp_path / "m.safetensors", {"w": ("U16", [16, 16], bytes(512))})
    source, target = str(tmp_path / "m.safetensors"), str(tmp_path / "o.safetensors")
    code, _, _ = run(capsys, "layout", "pack", source, "--tensors", "w", "--dtype", "BF16", "-o", target)
    assert code == 0
    code, _, err = run(capsys, "layout", "pack", source, "--tensors", "w", "--dtype", "INT8", "-o", target)
    assert (
        code == 2
        and "[request.invalid_params] tensor 'w' is U16 (2-byte elements); --dtype INT8 has 8-bit" in err
    )


def _file(header: bytes, data: bytes = b"") -> bytes:
    return struct.pack("<Q", len(header)) + header + data


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (_file(b"not json"), "the header is not JSON"),
        (_file(b"[1, 2]"), "the header is not a JSON object"),
        (
            _file(b'{"w": {"dtype": "I8", "shape": [4], "data_offsets": [0, 5]}}', bytes(5)),
            "5 bytes for [4] I8",
        ),
        (
            _file(b'{"w": {"dtype": "I8", "shape": [4], "data_offsets": [0, 4]}}', bytes(9)),
            "cover 4 data bytes",
        ),
        (_file(b'{"w": {"dtype": "I8", "shape": [4]}}'), "needs a dtype, a shape and data_offsets"),
        (_file(b'{"__metadata__": {"a": 1}}'), "__metadata__ must map strings to strings"),
        (struct.pack("<Q", 1000) + b"{}", "header length 1000 does not fit the file (10 bytes)"),
    ],
)
def test_corrupt_safetensors_are_bad_input_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blob: bytes, message: str
) -> None:
    (tmp_path / "bad.safetensors").write_bytes(blob)
    bad, out = str(tmp_path / "bad.safetensors"), str(tmp_path / "o")
    code, _, err = run(capsys, "layout", "pack", bad, "--tensors", "w", "-o", out)
    assert code == 2 and "[request.bad_input]" in err and message in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.safetensors"]


@pytest.mark.parametrize(
    ("argv", "code_text"),
    [
        (["pack", "{w}", "--dtype", "INT8", "-o", "{w}"], "[request.output_is_input] -o"),
        (["pack", "{w}", "--dtype", "NOPE", "-o", "{o}"], "[request.unknown_dtype]"),
        (["pack", "{w}", "--dtype", "FP16", "-o", "{o}"], "[request.invalid] w.npy holds int8 elements"),
        (["pack", "{w}", "-o", "{o}"], "[request.invalid_params] name the PyPTO dtype with --dtype"),
        (["pack", "{v}", "--dtype", "INT8", "-o", "{o}"], "[nz.rank_below_2]"),
        (["pack", "{t}", "--dtype", "INT8", "-o", "{o}"], "t.npy is not an .npy file (no .npy header)"),
        (["pack", "{m}", "--dtype", "INT8", "-o", "{o}"], "[request.unreadable]"),
        (["unpack", "{w}", "--dtype", "INT8", "-o", "{o}"], "needs its logical shape: --shape R,C"),
        (["unpack", "{w}", "--shape", "x", "--dtype", "INT8", "-o", "{o}"], "--shape expects extents"),
        (
            ["unpack", "{w}", "--shape", "32,64", "--dtype", "INT8", "-o", "{o}"],
            "blocked shape [1, 2, 2, 16, 32]",
        ),
    ],
)
def test_bad_input_exits_2_with_a_typed_error_and_keeps_the_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code_text: str
) -> None:
    np.save(tmp_path / "w.npy", words((32, 64), np.int8))
    np.save(tmp_path / "v.npy", words((64,), np.int8))
    (tmp_path / "t.npy").write_text("text")
    before = (tmp_path / "w.npy").read_bytes()
    names = {key: str(tmp_path / f"{key}.npy") for key in ("w", "v", "t", "m", "o")}
    code, _, err = run(capsys, "layout", *(arg.format(**names) for arg in argv))
    assert code == 2 and code_text in err
    assert (tmp_path / "w.npy").read_bytes() == before
    assert not (tmp_path / "o.npy").exists()


PACKABLE = {"I8": (np.int8, 32), "U8": (np.uint8, 32), "F8_E4M3": (np.uint8, 32), "BF16": (np.uint16, 16),
            "F16": (np.float16, 16), "I16": (np.int16, 16), "F32": (np.float32, 8), "I32": (np.int32, 8),
            "I64": (np.int64, 4), "U64": (np.uint64, 4)}  # fmt: skip


@st.composite
def safetensors_contents(draw: st.DrawFn) -> tuple[Tensors, list[str]]:
    """Named tensors of packable dtypes and NZ-aligned shapes (rank 2-4), and the ones to pack."""
    tensors: Tensors = {}
    for index in range(draw(st.integers(1, 4))):
        dtype = draw(st.sampled_from(sorted(PACKABLE)))
        words, c0 = PACKABLE[dtype]
        leading = draw(st.lists(st.integers(1, 3), max_size=2))
        shape = (*leading, 16 * draw(st.integers(1, 3)), c0 * draw(st.integers(1, 3)))
        tensors[f"t{index}"] = (dtype, list(shape), words_of(shape, words, draw(st.integers(0, 2**16))))
    chosen = draw(st.lists(st.sampled_from(sorted(tensors)), min_size=1, unique=True))
    return tensors, chosen


def words_of(shape: tuple[int, ...], dtype: type[np.generic], seed: int) -> bytes:
    return words(shape, dtype, seed).tobytes()


@settings(max_examples=lowered(25))
@given(safetensors_contents())
def test_packing_named_tensors_and_unpacking_them_restores_every_tensor(
    case: tuple[Tensors, list[str]],
) -> None:
    tensors, chosen = case
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        write_safetensors(root / "m.safetensors", tensors)
        assert main(["layout", "pack", str(root / "m.safetensors"), "--tensors", ",".join(chosen),
                     "-o", str(root / "p.safetensors")]) == 0  # fmt: skip
        packed, metadata = read_safetensors(root / "p.safetensors")
        for name, (dtype, shape, raw) in tensors.items():
            words_type = PACKABLE[dtype][0]
            expected = pack_nz(np.frombuffer(raw, words_type).reshape(shape)) if name in chosen else raw
            assert packed[name][0] == dtype and packed[name][2] == expected
        assert sorted(metadata) == sorted(f"nz.logical_shape.{name}" for name in chosen)
        assert main(["layout", "unpack", str(root / "p.safetensors"), "--tensors", ",".join(chosen),
                     "-o", str(root / "u.safetensors")]) == 0  # fmt: skip
        assert read_safetensors(root / "u.safetensors") == (tensors, {})
