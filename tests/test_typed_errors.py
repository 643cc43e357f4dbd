"""Bad input gets a typed, bounded error on every path: no traceback, no `request.internal`, no echo
of more than `ECHO_LIMIT` characters of the input, every message template filled."""

from __future__ import annotations

import copy
import json
import re
import struct
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.budget import deadline_after
from planner.cli import main
from planner.errors import ECHO_LIMIT, RequestError
from planner.service.methods import METHODS, answer
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
TYPED_CODE = re.compile(r"^request\.[a-z_]+$")
NPY_HEAD = "{'descr': '<i1', 'fortran_order': False, 'shape': "
FOR_LOOP = {"name": "i", "kind": "for", "start": 0, "stop": 100, "step": 1}


def _answer(method: str, params: Any) -> dict[str, Any] | RequestError:
    return answer(method, params, deadline_after(10))


def _proofs(*bindings: dict[str, Any], expr: Any = "i * 16") -> dict[str, Any]:
    return {"expr": expr, "bindings": list(bindings)}


@pytest.mark.parametrize(
    ("start", "stop", "step", "fate"),
    [
        (0, 100, 0, "with step 0 this loop never ends"),
        (100, 0, "0", "with step 0 this loop never runs"),
        ("n", 100, 0, "with step 0 the loop never ends (start < stop) or never runs"),
    ],
)
def test_a_for_binding_with_a_literal_step_of_zero_is_invalid_and_says_what_the_loop_does(
    start: Any, stop: Any, step: Any, fate: str
) -> None:
    loop = {**FOR_LOOP, "start": start, "stop": stop, "step": step}
    for method, params in (
        ("proofs.check", _proofs({"name": "n", "kind": "param"}, loop)),
        ("layout.plan", {"tensors": [], "bindings": [{"name": "n", "kind": "param"}, loop]}),
    ):
        error = _answer(method, params)
        assert isinstance(error, RequestError) and error.code == "request.invalid"
        assert error.details[0]["field"] == "bindings.1.for.step"
        assert fate in error.message


@pytest.mark.parametrize(("start", "stop", "step"), [(5, 5, 1), (0, 768, -256), (768, 0, 256), (3, 3, "-1")])
def test_a_loop_that_runs_no_iteration_is_a_request_whose_answer_says_it_never_runs(
    start: int, stop: int, step: int | str
) -> None:
    result = _answer("proofs.check", _proofs({**FOR_LOOP, "start": start, "stop": stop, "step": step}))
    assert not isinstance(result, RequestError)
    assert {item["status"] for item in result["results"]} == {"proven"}
    assert result["empty_loops"] == ["i"]


@pytest.mark.parametrize(
    "params",
    [
        _proofs({**FOR_LOOP, "step": "0x" + "f" * 4000}),
        _proofs(FOR_LOOP, expr="i + 0x" + "f" * 4000),
        _proofs(FOR_LOOP, expr="i ** 0x" + "f" * 4000),
    ],
    ids=["step", "expression", "unsupported-operator"],
)
def test_an_int_literal_past_the_int_string_limit_is_a_typed_bounded_error(params: dict[str, Any]) -> None:
    error = _answer("proofs.check", params)
    assert isinstance(error, RequestError) and error.code == "request.bad_expression"
    assert len(error.message) < 3 * ECHO_LIMIT


def test_a_json_integer_is_refused_by_its_length_before_conversion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        request = Path(folder) / "r.json"
        request.write_text('{"expr": "i", "factor": ' + "9" * 5000 + "}")
        assert main(["call", "proofs.check", str(request)]) == 2
    err = capsys.readouterr().err
    assert "[request.parse_error]" in err and "100-digit limit" in err


def test_unknown_dtype_fills_its_template() -> None:
    tensor = {"name": "t", "shape": [16, 16], "dtype": "FOO", "layout": "NZ"}
    error = _answer("layout.plan", {"tensors": [tensor]})
    assert isinstance(error, RequestError) and error.code == "request.unknown_dtype"
    assert "unknown dtype 'FOO'; expected one of BF16, " in error.message
    assert "{" not in error.message


def test_a_megabyte_unknown_field_name_comes_back_as_a_short_error() -> None:
    error = _answer("proofs.check", {"expr": "1", "x" * 1_000_000: 1})
    assert isinstance(error, RequestError) and error.code == "request.unknown_field"
    assert len(json.dumps(error.to_json())) < 4 * ECHO_LIMIT + 400
    assert "x" * ECHO_LIMIT + "..." in error.message


def _safetensors(header: bytes) -> bytes:
    return struct.pack("<Q", len(header)) + header


def _npy(header: str) -> bytes:
    text = header.encode("latin-1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text


@pytest.mark.parametrize(
    ("name", "blob", "message"),
    [
        ("deep.safetensors", _safetensors(b"[" * 200_000 + b"]" * 200_000), "nests deeper"),
        (
            "wide.safetensors",
            _safetensors(b'{"w": {"dtype": "I8", "shape": [' + b"9" * 5000 + b"]}}"),
            "digit",
        ),
        ("paren.npy", _npy(NPY_HEAD + "((4, 4), }"), "do not balance"),
        ("long.npy", _npy(NPY_HEAD + "(" + "9" * 5000 + ",), }"), "digits"),
    ],
)
def test_a_hostile_weight_file_header_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, blob: bytes, message: str
) -> None:
    source = tmp_path / name
    source.write_bytes(blob)
    pick = ["--tensors", "w"] if name.endswith(".safetensors") else ["--dtype", "INT8"]
    assert main(["layout", "pack", str(source), *pick, "-o", str(tmp_path / f"out-{name}")]) == 2
    err = capsys.readouterr().err
    assert "[request.bad_input]" in err and message in err
    assert len(err) < 3 * ECHO_LIMIT + len(str(source))


# --- fuzz: every service method and every CLI command answers with a type -------------------------

_HOSTILE = st.sampled_from(
    [0, -1, 2**64, 10**150, -(10**150), 1.5, True, None, "", "x" * 300, "0x" + "f" * 4000, "max(", "{",
     "é\x00", "i // 0", [], {}, [[[[]]]], {"kind": "for"}, "9" * 4500]
)  # fmt: skip


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value, the root's members first."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    changed = copy.deepcopy(value)
    holder = changed
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = new
    return changed


def _example_params(method: str) -> dict[str, Any]:
    stem = {"layout.suggest": "pypto-plan"}.get(method, method.replace(".", "-"))
    document: dict[str, Any] = json.loads((EXAMPLES / "json" / f"{stem}.json").read_text())
    params: dict[str, Any] = document.get("params", document)
    return params


@st.composite
def _hostile_request(draw: st.DrawFn) -> tuple[str, Any]:
    method = draw(st.sampled_from(sorted(METHODS)))
    params: Any = _example_params(method)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(params)
        if not paths or (draw(st.booleans()) and isinstance(params, dict)):
            params = {**params, draw(st.sampled_from(["x" * 300, "bits", "extra"])): draw(_HOSTILE)}
        else:
            params = _replaced(params, draw(st.sampled_from(paths)), draw(_HOSTILE))
    return method, params


def _assert_typed(error: RequestError) -> None:
    assert TYPED_CODE.match(error.code), error.code
    assert error.code != "request.internal", error.message
    assert len(error.message) < 20 * ECHO_LIMIT


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_hostile_request())
def test_every_method_answers_hostile_params_with_a_response_or_a_typed_error(
    request: tuple[str, Any],
) -> None:
    outcome = _answer(*request)
    if isinstance(outcome, RequestError):
        _assert_typed(outcome)
    else:
        assert isinstance(outcome, dict)


_FILES: dict[str, bytes] = {
    "empty.py": b"",
    "binary.mlir": b"\xff\xfe\x00garbage",
    "broken.py": b"import pypto.language as pl\n@pl.program\nclass P(\n",
    "broken.mlir": b"func.func @f() {\n  %x = ttl.tile_add %a, %b :",
    "request.json": b'{"method": "proofs.check", "params": {"expr": "0x' + b"f" * 4000 + b'"}}',
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "bad.npy": _npy(NPY_HEAD + "((4, 4), }"),
    "bad.safetensors": _safetensors(b"{" * 50_000),
    "planned.py": (EXAMPLES / "pypto" / "nz_matmul_spmd.py").read_bytes(),
    "conflict.mlir": (EXAMPLES / "ttlang" / "unpack_conflict.mlir").read_bytes(),
}
_COMMANDS = [
    ["plan", "{f}"],
    ["plan", "{f}", "-o", "{out}", "--report", "{f}"],
    ["suggest", "{f}", "--json"],
    ["explain", "{f}"],
    ["explain-conflict", "{f}", "--json", "--graph", "{out}.dot"],
    ["call", "proofs.check", "{f}", "--json"],
    ["call", "kernelcfg.resolve", "{f}"],
    ["batch", "{f}", "{dir}", "-o", "{out}"],
    ["layout", "pack", "{f}", "--dtype", "INT8", "-o", "{out}"],
    ["layout", "pack", "{f}", "--tensors", "w", "-o", "{dir}"],
    ["layout", "unpack", "{f}", "--shape", "9" * 300, "--dtype", "INT4", "-o", "{out}"],
    ["layout", "show", "[" + "9" * 500 + ", 16] FP16"],
    ["layout", "show", "[16, 16] {name}"],
    ["opt", "{f}", "-p", "ttl-set-compute-kernel-config", "-o", "{f}"],
    ["opt", "{f}", "-p", "ttl-set-compute-kernel-config", "-o", "{dir}/missing/x.mlir"],
]


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(_COMMANDS), st.sampled_from(sorted(_FILES)))
def test_every_command_answers_hostile_input_with_an_exit_code_and_a_typed_line(
    capsys: pytest.CaptureFixture[str], command: list[str], name: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / name
        source.write_bytes(_FILES[name])
        argv = [arg.format(f=source, out=Path(folder) / "out", dir=folder, name="x" * 300) for arg in command]
        if argv[0] == "opt":
            exit_code = opt_main([*argv[1:], "--timeout", "60"])
        else:
            exit_code = main([*argv, "--timeout", "60"])
        out, err = capsys.readouterr()
        assert source.read_bytes() == _FILES[name]  # no input is ever written
        lines = (Path(folder) / "out").read_text() if argv[0] == "batch" and not err else ""
    assert exit_code in (0, 1, 2)
    assert "Traceback" not in err and "request.internal" not in err + out + lines
    if lines:  # batch: each file's typed error is on its own line
        errors = [json.loads(line)["error"] for line in lines.splitlines()]
        assert all(TYPED_CODE.match(error["code"]) for error in errors if error is not None)
    elif exit_code == 2:
        assert re.search(r"error: \[[a-z_.]+\]", err), err
    assert all(len(line) < 30 * ECHO_LIMIT for line in err.splitlines())


def test_a_5000_digit_mlir_constant_is_a_parse_error_at_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = tmp_path / "k.mlir"
    kernel.write_text(
        "func.func @f() {\n  %c = arith.constant " + "9" * 5000 + " : index\n  func.return\n}\n"
    )
    assert main(["plan", str(kernel)]) == 2
    err = capsys.readouterr().err
    assert err == f"{kernel}:2:23: error: [adapter.parse_error] integer literal longer than 100 digits\n"
    assert opt_main([str(kernel), "-p", "ttl-set-compute-kernel-config"]) == 2
    assert capsys.readouterr().err == err
