"""The independent enumeration oracle on docs/design/kernel-config.md 9, and where it caught the resolver."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType
from typing import Any

from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.testing.oracles import kernel_enum, kernel_enum_needs
from planner.testing.oracles.kernel_enum import Refusal, enum_oracle, refusal


def kernel(*ops: dict[str, Any], dfbs: dict[int, str], **request: Any) -> KernelcfgResolveRequest:
    table = [{"index": i, "dtype": d} for i, d in sorted(dfbs.items())]
    return KernelcfgResolveRequest.model_validate({**request, "dfbs": table, "ops": list(ops)})


def read(op_id: str, mnemonic: str, *dfbs: int, **extra: Any) -> dict[str, Any]:
    return {"id": op_id, "op": mnemonic, "operands": [{"dfb": d} for d in dfbs], **extra}


F32 = {0: "f32", 1: "f32"}
ADD = read("add", "tile_add", 0, 1, result_dtype="f32", same_tile_coords=True)
EXP1 = read("exp", "tile_exp", 1, result_dtype="f32")


def test_the_oracle_settles_section_9_rows_for_given_strategies() -> None:
    oracle = enum_oracle(kernel(ADD, dfbs=F32))
    assert oracle is not None
    assert oracle.settled({"add": "fpu"}) == (32, [], "double_buffered")
    assert oracle.settled({"add": "sfpu"}) == (32, [0, 1], "double_buffered")
    shared = enum_oracle(kernel(EXP1, ADD, dfbs=F32))
    assert shared is not None and shared.settled({"add": "fpu"}) is None  # DFB 1 needs two modes
    assert shared.settled({"add": "sfpu"}) == (32, [0, 1], "double_buffered")
    bf16 = enum_oracle(kernel(read("s", "tile_store", 0), dfbs={0: "bf16"}, policy={"dst_full_sync": True}))
    assert bf16 is not None and bf16.settled({}) == (16, [], "full")


def test_the_oracle_refuses_an_unpack_conflict_and_a_bf16_broadcast_next_to_f32_on_wormhole() -> None:
    bcast = read("b", "tile_bcast", 1, attrs={"kind": "row"})
    unpack = enum_oracle(kernel(EXP1, bcast, dfbs=F32))
    assert unpack is not None and not unpack.satisfiable()
    narrow = read("b", "tile_bcast", 2, attrs={"kind": "col"})
    dfbs = {0: "f32", 1: "f32", 2: "bf16"}
    wormhole = enum_oracle(kernel(EXP1, narrow, dfbs=dfbs, arch="wormhole_b0"))
    assert wormhole is not None and not wormhole.satisfiable()
    anywhere = enum_oracle(kernel(EXP1, narrow, dfbs=dfbs))
    assert anywhere is not None and anywhere.settled({}) == (32, [1], "double_buffered")


def test_the_first_out_of_range_dfb_in_walk_order_is_reported() -> None:
    """A strategy-dependent op before a fixed one: the resolver once reported fixed ops first."""
    request = kernel(
        read("add", "tile_add", 40, 40, result_dtype="f32", same_tile_coords=True),
        read("exp", "tile_exp", 33, result_dtype="f32"),
        dfbs={40: "f32", 33: "f32"},
    )
    assert refusal(request) == Refusal("kcfg.dfb_index_out_of_range", "add", 0)
    conflict = resolve(request).conflict
    assert conflict is not None
    assert (conflict.code, conflict.op, conflict.operand) == ("kcfg.dfb_index_out_of_range", "add", 0)


def _planner_imports(module: ModuleType) -> set[str]:
    tree = ast.parse(Path(str(module.__file__)).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    return {name for name in imported if name.split(".")[0] == "planner"}


def test_the_oracle_imports_only_the_protocol_models_and_the_target_tables() -> None:
    tables = {"planner.kernelcfg.protocol", "planner.targets.tenstorrent"}
    assert _planner_imports(kernel_enum_needs) == tables
    assert _planner_imports(kernel_enum) == tables | {kernel_enum_needs.__name__}
