"""The adapter's answer for each bundled example equals `kernelcfg.resolve` on the kernel written by hand.

Each hand-written request lists only what matters (non-tile operands on untouched routes are
left out), so agreement shows the adapter reads the IR the way a person reads the kernel.
"""

from __future__ import annotations

from typing import Any

import pytest

from planner.adapters.ttlang import plan_text
from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "ttlang"


def _op(
    op_id: str, mnemonic: str, *operands: dict[str, Any], result: str | None, **extra: Any
) -> dict[str, Any]:
    return {"id": op_id, "op": mnemonic, "operands": list(operands), "result_dtype": result, **extra}


def _dfbs(dtype: str, *indices: int) -> list[dict[str, Any]]:
    return [{"index": index, "dtype": dtype} for index in indices]


D0, D1, D2, D3, D16 = ({"dfb": i} for i in (0, 1, 2, 3, 16))


def _v(op_id: str) -> dict[str, str]:
    return {"value": op_id}


HAND_WRITTEN: dict[str, list[dict[str, Any]]] = {
    "debug_locations.mlir": [  # upstream's printer renamed the values: op ids are its result numbers
        {
            "dfbs": _dfbs("bf16", 0, 1),
            "ops": [_op("4", "tile_add", D0, D1, result="bf16", same_tile_coords=True)],  # both at [0, 0]
        },
        {
            "dfbs": _dfbs("f32", 1),
            "ops": [
                _op("2", "tile_exp", D1, result="f32"),
                _op("3", "tile_bcast", D1, result="f32", attrs={"kind": "row"}),
            ],
        },
    ],
    "compute_mixed_args.mlir": [
        {
            "policy": {"fp32_dest_acc": True, "fpu_binary": True},
            "dfbs": _dfbs("f32", 0, 1),
            "ops": [
                _op("e", "tile_exp", D0, result="f32"),
                _op("s", "tile_add", D0, D1, result="f32"),  # input and output block args: not the same tile
                _op("tile_store#2", "tile_store", _v("e"), result=None),
            ],
        }
    ],
    "direct_blackhole.mlir": [
        {
            "arch": "blackhole",
            "policy": {"unpack_to_dest_fp32": [0]},
            "dfbs": _dfbs("bf16", 0),
            "ops": [
                _op("bc", "tile_bcast", D0, D0, result="bf16", attrs={"kind": "col"}),
                _op("cp", "copy_tile", D0, result="bf16"),
                _op("ab", "tile_abs", D0, result="bf16"),
            ],
        }
    ],
    "f32_unpack.mlir": [
        {
            "policy": {"dst_full_sync": True},
            "dfbs": _dfbs("f32", 0, 2, 3),
            "ops": [
                _op("ex", "tile_exp", D0, result="f32"),
                _op("ey", "tile_log", D2, result="f32"),
                _op("s", "tile_add", _v("ex"), _v("ey"), result="f32"),
                _op("tr", "tile_transpose", D3, result="f32"),
            ],
        }
    ],
    "fpu_sfpu_mix.mlir": [
        {
            "arch": "wormhole_b0",
            "dfbs": _dfbs("bf16", 0, 1),
            "ops": [
                _op("sum", "tile_add", D0, D1, result="bf16", same_tile_coords=True),
                _op("prod", "tile_mul", _v("sum"), D1, result="bf16"),
                _op("top", "tile_max", _v("prod"), _v("sum"), result="bf16"),
                _op("tile_store#3", "tile_store", _v("top"), result=None),
            ],
        }
    ],
    "reduce_preference.mlir": [
        {
            "dfbs": _dfbs("bf16", 0, 1, 2, 16),
            "ops": [
                _op("red", "tile_reduce", D0, D1, D16, result="bf16", attrs={"dim": "col"}),
                _op("mm", "tile_matmul_block", D0, D2, result="bf16"),
                _op("both", "tile_add", _v("red"), _v("mm"), result="bf16"),
                _op("tile_store#3", "tile_store", _v("both"), result=None),
            ],
        }
    ],
    "split_modules.mlir": [
        {
            "arch": "blackhole",
            "dfbs": _dfbs("bf16", 0, 1),
            "ops": [_op("r", "tile_reduce", D0, D1, D0, result="bf16", attrs={"dim": "row"})],
        },
        {"policy": {"fp32_dest_acc": True, "dst_full_sync": True}},
        {"ops": [_op("f", "tile_fill", result="si32")]},
        {
            "dfbs": _dfbs("f16", 5),
            "ops": [
                _op(
                    "d",
                    "tile_add",
                    {"dfb": 5},
                    {"dfb": 5},
                    result="f16",
                    same_tile_coords=True,
                    explicit_strategy="sfpu",
                ),
                _op("n", "tile_neg", _v("d"), result="f16"),
            ],
        },
    ],
    "system_desc.mlir": [
        {
            "system_desc": {"chip_archs": ["wormhole_b0", "wormhole_b0"], "device_chip_ids": [1]},
            "dfbs": _dfbs("bf16", 0, 1),
            "ops": [_op("r", "tile_reduce", D0, D1, D0, result="bf16", attrs={"dim": "col"})],
        }
    ],
    "unpack_conflict.mlir": [
        {
            "dfbs": _dfbs("f32", 1),
            "ops": [
                _op("e", "tile_exp", D1, result="f32"),
                _op("row", "tile_bcast", D1, result="f32", attrs={"kind": "row"}),
            ],
        }
    ],
}


def test_every_example_has_a_hand_written_kernel() -> None:
    assert sorted(HAND_WRITTEN) == sorted(path.name for path in EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_adapter_agrees_with_resolve_on_the_hand_written_kernel(name: str) -> None:
    outcome = plan_text((EXAMPLES / name).read_text(), filename=name)
    functions = outcome.report["functions"]
    assert len(functions) == len(HAND_WRITTEN[name])
    for function, hand_written in zip(functions, HAND_WRITTEN[name], strict=True):
        expected = resolve(KernelcfgResolveRequest.model_validate(hand_written)).model_dump(mode="json")
        assert function["response"] == expected
    assert outcome.ok == all(function["response"]["ok"] for function in functions)


EXPECTED_CONFIGURATION = {
    "compute_mixed_args.mlir": [({"s": "sfpu"}, 32, "double_buffered", [0, 1])],
    "direct_blackhole.mlir": [({}, 16, "double_buffered", [0])],
    "f32_unpack.mlir": [({"s": "sfpu"}, 32, "full", [0, 2])],
    "fpu_sfpu_mix.mlir": [({"sum": "fpu", "prod": "sfpu"}, 16, "double_buffered", [])],
    "reduce_preference.mlir": [({"both": "sfpu"}, 32, "double_buffered", [])],
    "split_modules.mlir": [
        ({}, 16, "double_buffered", []),
        ({}, 32, "full", []),
        ({}, 32, "double_buffered", []),
        ({"d": "sfpu"}, 16, "double_buffered", []),
    ],
    "system_desc.mlir": [({}, 16, "double_buffered", [])],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_CONFIGURATION))
def test_example_configurations(name: str) -> None:
    """The documented outcome of each example (docs/design/kernel-config.md section 9 rows they follow)."""
    functions = plan_text((EXAMPLES / name).read_text()).report["functions"]
    plans = [f["response"]["plan"] for f in functions]
    assert [(p["strategies"], p["dst_width"], p["dst_sync"], p["unpack_to_dest_fp32"]) for p in plans] == (
        EXPECTED_CONFIGURATION[name]
    )
