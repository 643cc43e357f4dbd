"""TTL and TTKernel ops newer than TT-Lang 1.1.1, and older spellings of ops we model.

An op the resolver has no semantics for that changes a kernel's needs (the TopK tile ops,
`ttl.dfb_reconfiguration`, a `ttl.kernel` holding ops) refuses its function at the op, never a
silent plan; the older spellings of `copy_tile`, `tile_store` and the buffer protocol give the
request the current spelling gives; TTCore's `bfp_bf*` tiles plan as TT-Metal's `bfp*_b`; a tile of
a TTCore data type the relations do not know reads, and a kernel using it is a typed refusal.
"""

from __future__ import annotations

import pytest

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import build_requests, plan_text
from tests.adapters.ttlang.kernel_text import TENSOR, TILE, kernel

I32 = "    %n = arith.constant 3 : i32\n"


@pytest.mark.parametrize(
    ("line", "op"),
    [
        (
            "    ttl.tile_topk_local_sort dst[%c0] direction = %n end_phase = %n start_phase = %n"
            " : (index, i32, i32, i32) -> ()\n",
            "ttl.tile_topk_local_sort",
        ),
        (
            "    ttl.tile_topk_merge dst[%c0] iteration = %n k = %n : (index, i32, i32) -> ()\n",
            "ttl.tile_topk_merge",
        ),
        (
            "    ttl.tile_topk_rebuild dst[%c0] direction = %n iteration = %n k = %n logk = %n"
            " skip_second = %n : (index, i32, i32, i32, i32, i32) -> ()\n",
            "ttl.tile_topk_rebuild",
        ),
        ("    ttl.dfb_reconfiguration <0, participants[<kind = compute>]>\n", "ttl.dfb_reconfiguration"),
    ],
)
def test_an_op_without_semantics_that_changes_the_kernel_refuses_it_at_the_op(line: str, op: str) -> None:
    body = f"    %e = ttl.tile_exp %x into dst[%c0] : {TILE} -> {TILE}\n{I32}{line}"
    planned = plan_text(kernel(body))
    assert not planned.ok
    assert planned.diagnostics == [
        f"<input>:13:5: error: '{op}' op does not implement TileExecutionOpInterface"
    ]


def _threads(inside: str) -> str:
    return kernel(
        "    %r = ttl.kernel {grid = #ttcore.grid<1x1>, threads = [#ttl.thread<compute>]}\n"
        f"        ins() outs(%t : {TENSOR}) {{\n"
        "    ^bb0(%o: !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>):\n"
        f"{inside}"
        f"    }} : {TENSOR}\n"
    )


def test_a_kernel_op_is_refused_only_when_a_thread_holds_ops() -> None:
    assert plan_text(_threads("")).ok
    refused = plan_text(_threads("      %k = arith.constant 0 : index\n"))
    assert refused.diagnostics == [
        "<input>:11:10: error: 'ttl.kernel' op does not implement TileExecutionOpInterface"
    ]


def test_the_older_copy_tile_and_tile_store_give_the_current_request() -> None:
    view = f"    %v = ttl.cb_reserve %b1 : <[1, 1], {TILE}, 2> -> {TENSOR}\n"
    current = kernel(
        f"{view}    %k, %c = ttl.copy_tile %x[%c0] into dst[%c0] : {TILE} -> !ttl.dst, {TILE}\n"
        f"    ttl.tile_store %c, %v[%c0, %c0] from dst[%c0] : {TILE}, {TENSOR}\n"
    )
    older = kernel(
        f"{view}    %k, %c = ttl.copy_tile %x, %c0, %c0 : {TILE}, index, index -> !ttl.dst, {TILE}\n"
        f"    ttl.tile_store %c, %v[%c0, %c0] : {TILE}, {TENSOR}\n"
    )
    (newer_request,) = build_requests(current)
    (older_request,) = build_requests(older)
    assert [op.op for op in older_request.ops] == ["copy_tile", "tile_store"]
    copy_tile, tile_store = older_request.ops
    assert copy_tile == newer_request.ops[0]
    assert tile_store.operands[0] == newer_request.ops[1].operands[0]
    assert plan_text(older).ok


def test_a_tile_type_the_relations_do_not_know_reads_and_its_kernel_is_refused() -> None:
    text = kernel("").replace("f32>", "bfp_f4>")
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text)
    assert caught.value.code == "adapter.request_rejected"
    assert "unknown element type 'bfp_f4'" in caught.value.message


@pytest.mark.parametrize(
    ("ttcore", "relations"), [("bfp_bf8", "bfp8_b"), ("bfp_bf4", "bfp4_b"), ("bfp_bf2", "bfp2_b")]
)
def test_a_ttcore_bfloat_block_float_plans_as_its_tt_metal_format(ttcore: str, relations: str) -> None:
    spelled_by_ttcore = kernel("").replace("f32>", f"{ttcore}>")
    spelled_by_relations = kernel("").replace("f32>", f"{relations}>")
    assert build_requests(spelled_by_ttcore) == build_requests(spelled_by_relations)
    planned = plan_text(spelled_by_ttcore)
    assert planned.ok
    assert planned.text.replace(ttcore, relations) == plan_text(spelled_by_relations).text
