"""Whole TT-Lang modules (docs/design/kernel-config.md section 10): every TTL op family, the other
dialects' custom syntax and upstream's syntax variants read, print and read back identically; a
module mixing data-movement and compute functions plans with only the plan's attributes changed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import build_requests, plan_text
from planner.adapters.ttlang.dialects.raw_body import one_line
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from planner.adapters.ttlang.writing.mlir_printer import canonical_text

TILE = "!ttcore.tile<32x32, bf16>"
BLOCK = f"tensor<1x1x{TILE}>"
CB = f"!ttl.cb<[1, 1], {TILE}, 2>"
PIPE = "!ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>"
LAYOUT = "#ttl.layout<shape = [32, 32], element_type = !ttcore.tile<32x32, bf16>, buffer = L1, grid = [1, 1]>"


def printed(text: str) -> str:
    return canonical_text(parse_chunk(Chunk(text, 0, 1), "k.mlir").module)


def in_function(body: str, args: str = "") -> str:
    """`body` inside one function with index constants `%c0`, `%c1` and a buffer `%cb`."""
    return (
        f"func.func @f({args}) {{\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        f"  %cb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : {CB}\n"
        f"{body}"
        "  return\n}\n"
    )


def test_a_multi_line_alias_prints_as_one_line_at_every_use() -> None:
    text = (
        "#grid = #ttl.layout<shape = [32, 32],\n"
        "                    element_type = !ttcore.tile<32x32, bf16>,  // tiles\n"
        "                    buffer = L1, grid = [1, 1]>\n"
        + in_function(
            "  scf.execute_region {\n"
            f'    %s = "x.deep"(%t) : (tensor<1x1x{TILE}, #grid>) -> tensor<1x1x{TILE}, #grid>\n'
            "    scf.yield\n  }\n",
            args=f"%t: tensor<1x1x{TILE}, #grid>",
        )
    )
    once = printed(text)
    assert once.count(LAYOUT) == 3
    assert printed(once) == once


_PIECES = st.sampled_from(["a", "b = 1", "<", ">", "[", "]", "(", ")", ",", '"x y"', "!t.u<v>"])
_BREAKS = st.sampled_from([" ", "\n", "\n    ", "  \n  ", ""])


@given(st.lists(st.tuples(_PIECES, _BREAKS), max_size=12))
def test_one_line_bodies_keep_every_token_and_are_their_own_one_line(parts: list[tuple[str, str]]) -> None:
    body = "".join(piece + gap for piece, gap in parts)
    flat = one_line(body)
    assert "\n" not in flat
    assert flat.replace(" ", "") == body.replace(" ", "").replace("\n", "")
    assert one_line(flat) == flat


# ---------------------------------------------------------------------------------------------
# Op families in upstream's syntax: each line prints back exactly as written

FAMILIES = {
    "tensor_slice": (
        f"  %s = ttl.tensor_slice %t[%c0, %c1] : tensor<2x2x{TILE}, {LAYOUT}>\n"
        f"      -> tensor<1x1x{TILE}, {LAYOUT}>\n",
        f"%t: tensor<2x2x{TILE}, {LAYOUT}>",
    ),
    "raw_element": (
        f"  %v = ttl.raw_element_read %t[%c0, %c1] : {BLOCK} -> bf16\n"
        f"  ttl.raw_element_write %t[%c1, %c0], %v : {BLOCK}, bf16\n"
        f"  %i = ttl.read_index %t[%c0, %c0] : {BLOCK} -> index\n",
        f"%t: {BLOCK}",
    ),
    "pipes": (
        f"  %p = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0 : <src(0, 0) dst(1, 0) to(1, 0) net 0>\n"
        "  ttl.if_dst %p : <src(0, 0) dst(1, 0) to(1, 0) net 0> {\n"
        "    %y = ttl.core_y : index\n"
        "  }\n"
        f"  %x = ttl.pipe_transfer.create %p : {PIPE} -> !ttl.pipe_transfer\n"
        f"  %k = ttl.pipe_transfer.post %x, %cb : (!ttl.pipe_transfer, {CB}) -> !ttl.pipe_token<net 0>\n"
        "  ttl.pipe_transfer.wait %k : <net 0>\n"
        "  %a = ttl.is_active {pipe_net_id = 0 : i64}\n",
        "",
    ),
    "dst_control": (
        f"  ttl.init_sfpu(%cb, %cb) : <[1, 1], {TILE}, 2>, <[1, 1], {TILE}, 2>\n"
        "  ttl.tile_regs_acquire\n  ttl.tile_regs_commit\n  ttl.tile_regs_wait\n  ttl.tile_regs_release\n"
        f"  %id = ttl.get_dfb_id %cb : <[1, 1], {TILE}, 2>\n",
        "",
    ),
    "tensor_compute": (
        f"  %e = ttl.expm1 %t : {BLOCK} -> {BLOCK}\n"
        f"  %g = ttl.gt %t, %e : {BLOCK}, {BLOCK} -> {BLOCK}\n"
        f"  %m = ttl.mul_unary_const %t, 5.000000e-01 : {BLOCK} -> {BLOCK}\n"
        f"  %r = ttl.transpose %m : {BLOCK} -> {BLOCK}\n",
        f"%t: {BLOCK}",
    ),
    "accumulation_scope": (
        f"  ttl.accumulation_scope outs(%t : {BLOCK}) inits(%u : {BLOCK}) {{\n"
        f"  ^bb0(%acc: {BLOCK}):\n"
        f"    ttl.yield %acc : {BLOCK}\n"
        "  } initial_modes([init])\n",
        f"%t: {BLOCK}, %u: {BLOCK}",
    ),
    "tile_ops": (
        f"  %h = ttl.tile_ceil %x into dst[%c0] : {TILE} -> {TILE}\n"
        f"  %q = ttl.tile_mul_unary_const %h, 2.500000e-01 into dst[%c0] : {TILE} -> {TILE}\n"
        f"  %n = ttl.tile_accumulate %q, %h add into dst[%c0] : {TILE}, {TILE} -> {TILE}\n"
        f"  %w = ttl.tile_transpose %x, %x into dst[%c1] : ({TILE}, {TILE}) -> {TILE}\n"
        f"  %d = ttl.dst_index %w[%c1] : {TILE} -> {TILE}\n",
        f"%x: {TILE}",
    ),
    "ttkernel": (
        "  ttkernel.tile_regs_acquire() : () -> ()\n"
        f"  %k = ttkernel.get_compile_time_arg_val(0) : () -> !ttkernel.cb<1, {TILE}>\n"
        f"  ttkernel.pack_tile(%c0, %k, %c0, true) : (index, !ttkernel.cb<1, {TILE}>, index) -> ()\n"
        '  emitc.verbatim "// kept"\n'
        '  %o = emitc.literal "get_compile_time_arg_val(0)" : !emitc.opaque<"::tt::CB">\n'
        '  emitc.call_opaque "copy_tile_init"(%o) : (!emitc.opaque<"::tt::CB">) -> ()\n',
        "",
    ),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_op_family_prints_back_as_written(family: str) -> None:
    body, args = FAMILIES[family]
    once = printed(in_function(body, args))
    for line in body.replace("\n      ->", " ->").splitlines():
        assert "  " + line.strip() in once
    assert printed(once) == once


@pytest.mark.parametrize(
    ("written", "reads_as"),
    [
        (
            f"  %b = ttl.bind_cb {{cb_index = 3, block_count = 2}} {{ttl.compiler_allocated}}\n"
            f"      : <[1, 1], {TILE}, 2>\n",
            f"ttl.bind_cb{{cb_index = 3, block_count = 2}} {{ttl.compiler_allocated}} : <[1, 1], {TILE}, 2>",
        ),
        (
            f"  %s = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %t) -> {BLOCK} {{\n"
            f"    scf.yield %a : {BLOCK}\n  }}\n",
            f"iter_args(%a = %t) -> ({BLOCK}) {{",
        ),
        (
            f"  %r:2 = ttl.compute ins(%t : {BLOCK}) outs(%t, %t : {BLOCK}, {BLOCK}) {{\n"
            f"  ^bb0(%i: {TILE}, %o: {TILE}, %p: {TILE}):\n"
            f"    ttl.yield %i, %o : {TILE}, {TILE}\n"
            f"  }} -> ({BLOCK}, {BLOCK})\n",
            f"}} -> ({BLOCK}, {BLOCK})",
        ),
    ],
    ids=["bind_cb", "scf_for", "compute_results"],
)
def test_upstream_syntax_variants_read(written: str, reads_as: str) -> None:
    once = printed(in_function(written, f"%t: {BLOCK}"))
    assert reads_as in once
    assert printed(once) == once


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("  d2m.wait %c0 : index\n", "custom syntax of 'd2m.wait' is not known to this adapter"),
        ("  ttl.some_future_op %c0 : index\n", "custom syntax of 'ttl.some_future_op' is not known"),
        ("  ttkernel.noc_barrier %c0 : index\n", "custom syntax of 'ttkernel.noc_barrier' is not known"),
        ('  emitc.verbatim "a"\n  "x.y"() : () -> ()\n  emitc.include\n  "b.h"\n', "'emitc.include' is not"),
    ],
)
def test_unknown_custom_syntax_names_the_op_and_the_generic_form(body: str, message: str) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(in_function(body))
    assert caught.value.code == "adapter.parse_error"
    assert message in caught.value.message
    assert "which passes through unchanged" in caught.value.message
    assert "Expected 'into'" not in caught.value.message


def test_a_pipe_used_with_another_pipe_type_is_a_parse_error() -> None:
    body = (
        f"  %p = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0 : {PIPE}\n"
        "  ttl.if_src %p : <src(0, 0) dst(1, 0) to(1, 0) net 1> {\n  }\n"
    )
    with pytest.raises(AdapterInputError) as caught:
        plan_text(in_function(body))
    assert "operand is used with type !ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 1>" in caught.value.message


def test_an_undefined_ttl_op_without_tiles_passes_through() -> None:
    text = in_function('  %n = "ttl.future_counter"(%c0) : (index) -> index\n')
    outcome = plan_text(text)
    assert outcome.ok and '"ttl.future_counter"(%c0) : (index) -> index' in outcome.text
    assert build_requests(text)[0].ops == []


def test_a_newly_defined_tile_op_reaches_the_request_with_its_dst_operand() -> None:
    body = f"  %h = ttl.tile_sign %x into dst[%c0] : {TILE} -> {TILE}\n"
    (request,) = build_requests(in_function(body, f"%x: {TILE}"))
    assert [(op.op, [operand.model_dump() for operand in op.operands]) for op in request.ops] == [
        ("tile_sign", [{"unattached": "bf16"}])
    ]


# ---------------------------------------------------------------------------------------------
# A module mixing data-movement and compute functions

READER = f"""\
  func.func @reader(%input: tensor<2x1x{TILE}, {LAYOUT}>)
      attributes {{ttl.kernel_thread = #ttkernel.thread<noc>}} {{
    %c0 = arith.constant 0 : index
    %dfb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : {CB}
    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0
        : {PIPE}
    ttl.if_src %pipe : {PIPE} {{
      %block = ttl.cb_reserve %dfb : <[1, 1], {TILE}, 2> -> {BLOCK}
      %slice = ttl.tensor_slice %input[%c0, %c0]
          : tensor<2x1x{TILE}, {LAYOUT}> -> tensor<1x1x{TILE}, {LAYOUT}>
      %xf = ttl.copy %slice, %dfb : (tensor<1x1x{TILE}, {LAYOUT}>, {CB}) -> !ttl.transfer_handle<read>
      ttl.wait %xf : !ttl.transfer_handle<read>
      %v = ttl.raw_element_read %block[%c0, %c0] : {BLOCK} -> bf16
      ttl.raw_element_write %block[%c0, %c0], %v : {BLOCK}, bf16
      ttl.cb_push %dfb : <[1, 1], {TILE}, 2>
    }}
    return
  }}
"""


def compute(name: str, body: str) -> str:
    return (
        f"  func.func @{name}(%t: tensor<1x1x{TILE.replace('bf16', 'f32')}>) "
        "attributes {ttl.kernel_thread = #ttkernel.thread<compute>} {\n"
        "    %c0 = arith.constant 0 : index\n"
        "    %dfb = ttl.bind_cb {cb_index = 1, block_count = 2}\n"
        "        : !ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>\n"
        "    %a = ttl.attach_cb %t, %dfb : (tensor<1x1x!ttcore.tile<32x32, f32>>, "
        "!ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>) -> tensor<1x1x!ttcore.tile<32x32, f32>>\n"
        "    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x!ttcore.tile<32x32, f32>>\n"
        f"{body}"
        "    return\n  }\n"
    )


F32 = "!ttcore.tile<32x32, f32>"
EXP = f"    %e = ttl.tile_exp2 %x into dst[%c0] : {F32} -> {F32}\n"
BCAST = f"    %b = ttl.tile_bcast %x, %x <row> into dst[%c0] : ({F32}, {F32}) -> {F32}\n"
MIXED = f"module {{\n{READER}{compute('worker', EXP)}}}\n"
CONFLICT = f"module {{\n{READER}{compute('clash', EXP + BCAST)}}}\n"

_PLANNED = re.compile(
    r"(dst_full_sync_en|fp32_dest_acc_en) = (true|false), |, ttl\.unpack_to_dest_fp32 = array<[^>]*>"
)


def without_plan(text: str) -> str:
    """`text` with the function attributes a plan writes (each function here has one of its own,
    sorted before the unpack list) taken out again."""
    return _PLANNED.sub("", text)


def test_planning_a_mixed_module_changes_only_the_function_attributes() -> None:
    outcome = plan_text(MIXED)
    assert outcome.ok
    assert without_plan(outcome.text) == MIXED
    assert outcome.text.count("ttl.unpack_to_dest_fp32 = ") == 2
    assert "ttl.unpack_to_dest_fp32 = array<i32: 1>" in outcome.text


def test_planner_opt_on_a_mixed_module_prints_the_module_with_only_the_plan_added(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from planner.adapters.ttlang.tool.opt_main import main

    source = tmp_path / "mixed.mlir"
    source.write_text(MIXED, encoding="utf-8")
    assert main([str(source), "-p", "ttl-set-compute-kernel-config"]) == 0
    out = capsys.readouterr().out
    assert without_plan(out) == printed(MIXED)


def test_a_conflict_next_to_a_pipe_returns_the_module_unchanged_with_the_conflict() -> None:
    outcome = plan_text(CONFLICT, filename="k.mlir")
    assert not outcome.ok and outcome.text == CONFLICT
    assert outcome.diagnostics[0].startswith("k.mlir:")
    conflict = "'ttl.tile_bcast' op dataflow buffer 1 requires incompatible unpack modes"
    assert conflict in outcome.diagnostics[0]
    assert "note: operand 0 establishes the conflicting unpack mode" in outcome.diagnostics[1]
