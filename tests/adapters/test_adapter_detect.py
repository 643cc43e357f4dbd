"""Adapter detection by extension/content, and request files in their three shapes."""

from __future__ import annotations

import json

import pytest

from planner import request_codes
from planner.adapters import UNKNOWN_FORMAT, AdapterInputError, detect_adapter
from planner.errors import RequestError
from planner.inputs import read_params, read_request
from planner.limits import Limits


@pytest.mark.parametrize(
    ("filename", "text", "adapter"),
    [
        ("k.mlir", "# pypto.program: X", "ttlang"),  # the extension wins
        ("p.py", "func.func @k()", "pypto"),
        ("P.PY", "", "pypto"),
        ("-", "# pypto.program: NzMatmul\nimport pypto.language as pl\n", "pypto"),
        ("in.txt", "module {\n  func.func @k() {\n  }\n}\n", "ttlang"),
        ("in", "%b = ttl.bind_cb {cb_index = 0}", "ttlang"),
    ],
)
def test_detect_adapter(filename: str, text: str, adapter: str) -> None:
    assert detect_adapter(filename, text) == adapter


def test_unknown_format_names_both_accepted_forms() -> None:
    with pytest.raises(AdapterInputError) as caught:
        detect_adapter("notes.txt", "hello")
    assert caught.value.code == UNKNOWN_FORMAT
    assert "PyPTO program" in caught.value.message
    assert "TT-Lang MLIR" in caught.value.message


PROOF = {"expr": "n", "bindings": [{"name": "n", "kind": "param"}]}


@pytest.mark.parametrize(
    ("document", "method"),
    [
        ({"method": "proofs.check", "params": PROOF}, "proofs.check"),
        ({"jsonrpc": "2.0", "id": 3, "method": "planner.version"}, "planner.version"),
        (PROOF, "proofs.check"),
        ({"tensors": []}, "layout.plan"),
        ({"dfbs": [], "ops": []}, "kernelcfg.resolve"),
        ({"arch": None}, "kernelcfg.resolve"),
    ],
)
def test_read_request_finds_the_method(document: dict[str, object], method: str) -> None:
    assert read_request(json.dumps(document).encode(), Limits()).method == method


@pytest.mark.parametrize(
    ("document", "code"),
    [
        ([1, 2], request_codes.INVALID_ENVELOPE),
        ({"ops": []}, request_codes.INVALID_ENVELOPE),
        ({"method": "proofs.check", "params": [1]}, request_codes.INVALID_PARAMS),
    ],
)
def test_read_request_refuses_what_it_cannot_place(document: object, code: str) -> None:
    with pytest.raises(RequestError) as caught:
        read_request(json.dumps(document).encode(), Limits())
    assert caught.value.code == code


def test_read_params_unwraps_only_the_named_method() -> None:
    wrapped = json.dumps({"method": "proofs.check", "params": PROOF}).encode()
    assert read_params(wrapped, Limits(), "proofs.check") == PROOF
    assert read_params(json.dumps(PROOF).encode(), Limits(), "proofs.check") == PROOF
    with pytest.raises(RequestError) as caught:
        read_params(wrapped, Limits(), "layout.plan")
    assert caught.value.code == request_codes.INVALID_PARAMS
