"""TT-Lang IR in the forms upstream's frontend and tests write (docs/design/kernel-config.md section 10).

Other dialects' attributes and ops pass through; the TTL ops beyond the section-10 minimum
(`ttl.iter_index`, `ttl.tile_row_normalization_block`, the older tile-op spelling without
`into dst[...]`, `ttl.compute` with empty `ins()`) read, reach the request and print back;
malformed files are typed parse errors with a location.
"""

from __future__ import annotations

import pytest

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import build_requests, plan_text
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from tests.adapters.ttlang.kernel_text import CB, TENSOR, TILE, kernel


def only_request(text: str) -> KernelcfgResolveRequest:
    (request,) = build_requests(text)
    return request


def printed(text: str) -> str:
    return str(parse_chunk(Chunk(text, 0, 1), "k.mlir").module)


# ---------------------------------------------------------------------------------------------
# Other dialects pass through


def test_a_foreign_function_attribute_is_kept_and_the_kernel_plans() -> None:
    exp = f"    %e = ttl.tile_exp %y into dst[%c0] : {TILE} -> {TILE}\n"
    text = kernel(exp, func_attrs="ttl.kernel_thread = #ttkernel.thread<compute>")
    outcome = plan_text(text)
    assert outcome.ok
    assert (
        "attributes {dst_full_sync_en = false, fp32_dest_acc_en = true, "
        "ttl.kernel_thread = #ttkernel.thread<compute>, ttl.unpack_to_dest_fp32 = array<i32: 1>}"
    ) in outcome.text
    assert "#ttkernel.thread<compute>" in printed(text)


DEVICE = (
    "  ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, "
    "l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), meshShape = , chipIds = [0]>\n"
)


def test_a_device_op_reads_and_prints_back_its_body_unchanged() -> None:
    text = kernel("", prelude=DEVICE)
    assert DEVICE.strip() in printed(text)
    assert plan_text(text).ok
    assert printed(printed(text)) == printed(text)


def test_foreign_generic_ops_and_attributes_print_back() -> None:
    body = (
        '    %n = "ttkernel.my_x"() {dims = #ttkernel.reduce_dim<reduce_dim_row>} : () -> index\n'
        '    "ttkernel.noc_barrier"(%n) : (index) -> ()\n'
    )
    once = printed(kernel(body))
    assert '"ttkernel.noc_barrier"(%n) : (index) -> ()' in once
    assert "#ttkernel.reduce_dim<reduce_dim_row>" in once
    assert printed(once) == once


def test_a_foreign_op_in_generic_form_handling_tiles_is_still_refused() -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(kernel(f'    %m = "ttkernel.mystery"(%x) : ({TILE}) -> {TILE}\n'))
    assert (caught.value.code, caught.value.line, caught.value.column) == ("adapter.unknown_tile_op", 11, 10)


# ---------------------------------------------------------------------------------------------
# TTL ops beyond the minimum


def test_iter_index_reads_and_prints_in_upstream_syntax() -> None:
    body = "    %i = ttl.iter_index 0 : index\n    %j = ttl.iter_index 1 : index\n"
    once = printed(kernel(body))
    assert "%i = ttl.iter_index 0 : index" in once and "%j = ttl.iter_index 1 : index" in once
    assert only_request(kernel(body)).ops == []


def test_compute_with_empty_ins_reads_and_prints_back() -> None:
    body = (
        f"    %r = ttl.compute ins() outs(%a1 : {TENSOR})\n"
        '        {iterator_types = ["parallel", "parallel"]} {\n'
        f"    ^bb0(%out: {TILE}):\n"
        f"      %f = ttl.tile_fill 1.000000e+00 : f32 into dst[%c0] : {TILE}\n"
        "      ttl.yield\n"
        f"    }} -> {TENSOR}\n"
    )
    once = printed(kernel(body))
    assert "ttl.compute ins() outs(%a1 : " in once
    assert printed(once) == once
    assert [op.op for op in only_request(kernel(body)).ops] == ["tile_fill"]
    assert printed(kernel(body.replace("ins()", "ins( : )"))) == once


def normalization(has_gamma: bool, gamma: str = "%y") -> str:
    return (
        f"    %n = ttl.tile_row_normalization_block %x, {gamma}, %x scale = 3.255208e-04 "
        f"epsilon = 1.000000e-05 has_gamma = {str(has_gamma).lower()} num_tiles = 3 into dst[%c0]\n"
        f"        {{ttl.dst_placeholder}} : {TILE}, {TILE}, {TILE} -> {TILE}\n"
    )


def test_row_normalization_block_reads_and_reaches_the_request_with_its_slots() -> None:
    (op,) = only_request(kernel(normalization(True))).ops
    assert (op.op, op.attrs) == ("tile_row_normalization_block", {"tiles": 3, "gamma": "true"})
    assert [operand.model_dump() for operand in op.operands] == [{"dfb": 0}, {"dfb": 1}, {"dfb": 0}]
    once = printed(kernel(normalization(True)))
    assert "epsilon = 1.000000e-05 has_gamma = true num_tiles = 3 into dst[%c0] {ttl.dst_placeholder}" in once
    assert printed(once) == once


def test_row_normalization_reads_gamma_from_a_buffer_only_when_it_has_one() -> None:
    produced = f"    %g = ttl.tile_exp %y into dst[%c0] : {TILE} -> {TILE}\n"
    without = plan_text(kernel(produced + normalization(False, "%g")))
    assert without.ok
    refused = plan_text(kernel(produced + normalization(True, "%g")), filename="k.mlir")
    assert not refused.ok
    assert refused.diagnostics == [
        "k.mlir:12:10: error: 'ttl.tile_row_normalization_block' op operand 1 must resolve to a "
        "dataflow buffer for the selected strategy"
    ]


@pytest.mark.parametrize("mnemonic", ["tile_add", "tile_sub", "tile_mul"])
def test_the_older_tile_op_spelling_gives_the_same_request_and_plan(mnemonic: str) -> None:
    newer = kernel(f"    %s = ttl.{mnemonic} %x, %x into dst[%c0] : {TILE}, {TILE} -> {TILE}\n")
    older = kernel(f"    %s = ttl.{mnemonic} %x, %x : {TILE}\n")
    assert only_request(older).ops == only_request(newer).ops
    planned = plan_text(older).text
    strategy = "{ttl.tile_execution_strategy = #ttl.tile_execution_strategy<fpu>}"
    assert f"%s = ttl.{mnemonic} %x, %x {strategy} : {TILE}" in planned
    assert f"ttl.{mnemonic} %x, %x : {TILE}" in printed(older)


def test_the_older_unary_spelling_reads_and_prints_as_written() -> None:
    text = kernel(f"    %e = ttl.tile_exp %y : {TILE}\n")
    assert f"%e = ttl.tile_exp %y : {TILE}" in printed(text)
    assert [operand.model_dump() for operand in only_request(text).ops[0].operands] == [{"dfb": 1}]


def test_tile_floor_is_a_unary_dst_op() -> None:
    planned = plan_text(kernel(f"    %e = ttl.tile_floor %y into dst[%c0] : {TILE} -> {TILE}\n"))
    assert planned.ok and "ttl.unpack_to_dest_fp32 = array<i32: 1>" in planned.text


# ---------------------------------------------------------------------------------------------
# A buffer without a finalized index (section 3)


def test_a_buffer_argument_has_no_finalized_index_and_is_refused() -> None:
    body = (
        f"    %ac = ttl.attach_cb %t, %cb : ({TENSOR}, {CB}) -> {TENSOR}\n"
        f"    %z = tensor.extract %ac[%c0, %c0] : {TENSOR}\n"
        f"    %e = ttl.tile_exp %z into dst[%c0] : {TILE} -> {TILE}\n"
    )
    text = kernel(body, args=f", %cb: {CB}")
    assert only_request(text).ops[0].operands[0].model_dump() == {"dfb_unfinalized": "%cb"}
    outcome = plan_text(text, filename="k.mlir")
    assert outcome.report["functions"][0]["response"]["conflict"]["code"] == "kcfg.dfb_index_unfinalized"
    assert outcome.diagnostics == [
        "k.mlir:13:10: error: 'ttl.tile_exp' op uses a dataflow buffer without a finalized index"
    ]


def test_a_tile_with_no_buffer_keeps_its_section_3_reading() -> None:
    body = (
        f"    %g = ttl.tile_exp %y into dst[%c0] : {TILE} -> {TILE}\n"
        f"    %e = ttl.tile_exp %g into dst[%c0] : {TILE} -> {TILE}\n"
    )
    assert only_request(kernel(body)).ops[1].operands[0].model_dump() == {"value": "g"}


# ---------------------------------------------------------------------------------------------
# Bad files: adapter.parse_error with a location


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("\x00\x01garbage", 1, 1),
        ("module {\n  func.func @f() {\n    return\n  }\n", 5, 1),
        ("module {\n  %c = arith.constant 99999999999999999999999 : i32\n}\n", 2, 3),
        ('module {\n  "x.y"() {v = array<i32: 99999999999999999999>} : () -> ()\n}\n', 2, 27),
        ("module attributes {a = " + "[" * 500 + "]" * 500 + "} {\n}\n", 1, 151),
        ("module {\n" + "  scf.execute_region {\n" * 200 + "}\n", 129, 22),
    ],
)
def test_malformed_files_are_parse_errors_with_a_location(text: str, line: int, column: int) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text)
    error = caught.value
    assert (error.code, error.line, error.column) == ("adapter.parse_error", line, column)


def test_a_leading_byte_order_mark_is_accepted_and_kept() -> None:
    text = kernel(f"    %e = ttl.tile_exp %y into dst[%c0] : {TILE} -> {TILE}\n")
    outcome = plan_text("\ufeff" + text)
    assert outcome.ok and outcome.text == "\ufeff" + plan_text(text).text


PROTOCOL = f"""\
    %cbw = ttl.cb_wait %b0 : <[1, 1], {TILE}, 2> -> {TENSOR}
    ttl.cb_pop %b0 : <[1, 1], {TILE}, 2>
    ttl.cb_push %b1 : {CB}
    %new = ttl.create_cb() {{buffer_factor = 2 : i64, shape = [1, 1]}} : !ttl.cb<[1, 1], f32, 2>
    %xf = ttl.copy %t, %new : ({TENSOR}, !ttl.cb<[1, 1], f32, 2>) -> !ttl.transfer_handle<read>
    ttl.wait %xf : !ttl.transfer_handle<read>
    %slot = ttl.acquire_dst
    ttl.require_dst %x : {TILE}
    ttl.release_dst %slot
    %sum = ttl.add %t, %u : {TENSOR}, {TENSOR} -> {TENSOR}
    %ex = ttl.exp %t : {TENSOR} -> {TENSOR}
"""


def test_buffer_protocol_movement_and_tensor_ops_pass_through() -> None:
    text = kernel(PROTOCOL + f"    %e = ttl.tile_exp %y into dst[%c0] : {TILE} -> {TILE}\n")
    once = printed(text)
    assert f"ttl.cb_pop %b0 : <[1, 1], {TILE}, 2>" in once
    assert f"ttl.cb_push %b1 : <[1, 1], {TILE}, 2>" in once
    assert "ttl.wait %xf : !ttl.transfer_handle<read>" in once
    assert "%slot = ttl.acquire_dst\n" in once and "ttl.release_dst %slot\n" in once
    assert f"%sum = ttl.add %t, %u : {TENSOR}, {TENSOR} -> {TENSOR}" in once
    assert printed(once) == once
    assert [op.op for op in only_request(text).ops] == ["tile_exp"]
    assert plan_text(text).ok
