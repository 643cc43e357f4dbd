"""TT-Lang MLIR adapter: round trips, the docs/design/kernel-config.md 10 results, split files, refusals."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from xdsl.printer import Printer

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import build_requests, parse_pass_options, plan_text
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk, split_chunks
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "ttlang"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.mlir"))
REFUSED = {"unpack_conflict.mlir", "debug_locations.mlir"}
PLANNABLE = [path for path in EXAMPLE_FILES if path.name not in REFUSED]


def _read(name: str) -> str:
    return (EXAMPLES / name).read_text()


def _printed(text: str, *, generic: bool) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(parse_chunk(Chunk(text, 0, 1), "t").module)
    return stream.getvalue()


def _line_with(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


# ---------------------------------------------------------------------------------------------
# Round trips


def test_bundled_examples_are_present() -> None:
    assert {path.name for path in EXAMPLE_FILES} >= {
        "compute_mixed_args.mlir",
        "direct_blackhole.mlir",
        "f32_unpack.mlir",
        "fpu_sfpu_mix.mlir",
        "reduce_preference.mlir",
        "split_modules.mlir",
        "system_desc.mlir",
        "unpack_conflict.mlir",
    }


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_xdsl_custom_print_round_trips(path: Path) -> None:
    """Custom syntax printed by the dialect parses back to the same IR, and generic form agrees."""
    for chunk in split_chunks(path.read_text())[0]:
        custom = _printed(chunk.text, generic=False)
        assert _printed(custom, generic=False) == custom
        assert _printed(_printed(chunk.text, generic=True), generic=False) == custom


@pytest.mark.parametrize("path", PLANNABLE, ids=lambda p: p.name)
def test_planning_is_idempotent(path: Path) -> None:
    first = plan_text(path.read_text(), filename=path.name)
    assert first.ok, first.diagnostics
    second = plan_text(first.text, filename=path.name)
    assert second.ok and second.text == first.text


@pytest.mark.parametrize("path", PLANNABLE, ids=lambda p: p.name)
def test_planning_only_rewrites_attribute_dictionaries(path: Path) -> None:
    """Every line the plan changes is an op line that gained or rewrote an attribute dictionary."""
    text = path.read_text()
    planned = plan_text(text, filename=path.name).text
    before, after = text.splitlines(), planned.splitlines()
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        if old != new:
            assert "ttl.tile_execution_strategy" in new or "ttl.unpack_to_dest_fp32 = array<i32" in new


def test_conflicting_input_is_returned_byte_identical() -> None:
    text = _read("unpack_conflict.mlir")
    outcome = plan_text(text, filename="unpack_conflict.mlir")
    assert not outcome.ok
    assert outcome.text == text


# ---------------------------------------------------------------------------------------------
# docs/design/kernel-config.md section 10 expected results


def test_section10_compute_form() -> None:
    planned = plan_text(_read("compute_mixed_args.mlir")).text
    assert _line_with(planned, "attributes {") == (
        "    attributes {dst_full_sync_en = false, fp32_dest_acc_en = true, "
        "ttl.unpack_to_dest_fp32 = array<i32: 0, 1>} {"
    )
    assert "{ttl.tile_execution_strategy = #ttl.tile_execution_strategy<sfpu>}" in _line_with(
        planned, "tile_add"
    )
    assert "ttl.enable_fpu_binary_ops" not in planned
    assert "tile_execution_strategy" not in _line_with(planned, "tile_exp")


def test_section10_direct_form_with_target() -> None:
    planned = plan_text(_read("direct_blackhole.mlir")).text
    assert (
        "attributes {dst_full_sync_en = false, fp32_dest_acc_en = false, "
        "ttl.unpack_to_dest_fp32 = array<i32: 0>}" in (_line_with(planned, "func.func @d"))
    )
    assert "tile_execution_strategy" not in planned


def test_section10_compute_form_request() -> None:
    """The exact request collected from the compute-form sample (block args resolve ins then outs)."""
    (request,) = build_requests(_read("compute_mixed_args.mlir"))
    assert request.model_dump(mode="json") == {
        "arch": None,
        "system_desc": None,
        "function": "k",
        "policy": {
            "fp32_dest_acc": True,
            "dst_full_sync": "auto",
            "reduce_full_fp32": True,
            "matmul_full_fp32": True,
            "fpu_binary": True,
            "unpack_to_dest_fp32": None,
            "math_fidelity": None,
            "math_approx_mode": None,
            "precision": "default",
        },
        "dfbs": [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "f32"}],
        "ops": [
            _op("e", "tile_exp", [{"dfb": 0}], "f32"),
            _op("s", "tile_add", [{"dfb": 0}, {"dfb": 1}], "f32"),
            _op(
                "tile_store#2",
                "tile_store",
                [{"value": "e"}, {"unattached": "f32"}, {"scalar": "index"}, {"scalar": "index"}],
                None,
            ),
        ],
        "explain": False,
        "report_precision": False,
    }


def test_section10_direct_form_request() -> None:
    (request,) = build_requests(_read("direct_blackhole.mlir"))
    assert request.arch == "blackhole"
    assert request.policy.unpack_to_dest_fp32 == [0]
    assert [op.model_dump(mode="json") for op in request.ops] == [
        _op("bc", "tile_bcast", [{"dfb": 0}, {"dfb": 0}], "bf16", same=True, attrs={"kind": "col"}),
        _op("cp", "copy_tile", [{"dfb": 0}, {"scalar": "index"}, {"scalar": "index"}], "bf16"),
        _op("ab", "tile_abs", [{"dfb": 0}], "bf16"),
    ]


def _op(
    op_id: str,
    mnemonic: str,
    operands: list[dict[str, Any]],
    result: str | None,
    *,
    same: bool = False,
    strategy: str | None = None,
    attrs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "id": op_id,
        "op": mnemonic,
        "operands": operands,
        "result_dtype": result,
        "same_tile_coords": same,
        "explicit_strategy": strategy,
        "attrs": attrs or {},
    }


# ---------------------------------------------------------------------------------------------
# Generic form, split files, options


@pytest.mark.parametrize("path", PLANNABLE, ids=lambda p: p.name)
def test_generic_form_gives_the_same_requests_and_plans(path: Path) -> None:
    chunks, _ = split_chunks(path.read_text())
    for chunk in chunks:
        generic = _printed(chunk.text, generic=True)
        assert build_requests(generic) == build_requests(chunk.text)
        custom_report = plan_text(chunk.text).report["functions"]
        generic_outcome = plan_text(generic)
        assert generic_outcome.ok
        assert [f["response"] for f in generic_outcome.report["functions"]] == [
            f["response"] for f in custom_report
        ]
        assert plan_text(generic_outcome.text).text == generic_outcome.text


def test_generic_form_gets_attributes_after_the_region() -> None:
    planned = plan_text(_read("split_modules.mlir")).text
    assert (
        "}) {dst_full_sync_en = false, fp32_dest_acc_en = true, "
        "ttl.unpack_to_dest_fp32 = array<i32>} : () -> ()" in planned
    )


def test_split_file_keeps_separators_and_plans_every_chunk() -> None:
    text = _read("split_modules.mlir")
    outcome = plan_text(text, filename="s.mlir")
    assert outcome.ok
    assert outcome.text.count("\n// -----\n") == text.count("\n// -----\n") == 3
    assert [f["function"] for f in outcome.report["functions"]] == [
        "row_reduce",
        "empty",
        "generic_fill",
        "explicit_sfpu",
    ]
    assert _line_with(outcome.text, "func.func @empty") == (
        "func.func @empty() attributes {dst_full_sync_en = true, fp32_dest_acc_en = true, "
        "ttl.unpack_to_dest_fp32 = array<i32>} {"
    )
    assert outcome.diagnostics == [
        "s.mlir:12:10: warning: 'ttl.tile_reduce' op full-fp32 row reduce is unavailable on Blackhole "
        "(tt-metal #47311); using non-full-fp32 reduce lowering"
    ]


def test_a_refused_chunk_leaves_the_whole_file_unchanged_and_locates_in_the_file() -> None:
    text = _read("fpu_sfpu_mix.mlir") + "\n// -----\n" + _read("unpack_conflict.mlir")
    outcome = plan_text(text, filename="both.mlir")
    assert not outcome.ok and outcome.text == text
    offset = text[: text.index("// -----")].count("\n") + 1
    assert outcome.diagnostics == [
        f"both.mlir:{offset + 10}:10: error: 'ttl.tile_bcast' op dataflow buffer 1 requires incompatible "
        "unpack modes in one kernel",
        f"both.mlir:{offset + 9}:8: note: operand 0 establishes the conflicting unpack mode",
    ]


def test_conflict_example_diagnostics_and_report() -> None:
    outcome = plan_text(_read("unpack_conflict.mlir"), filename="unpack_conflict.mlir")
    assert outcome.diagnostics == [
        "unpack_conflict.mlir:10:10: error: 'ttl.tile_bcast' op dataflow buffer 1 requires incompatible "
        "unpack modes in one kernel",
        "unpack_conflict.mlir:9:8: note: operand 0 establishes the conflicting unpack mode",
    ]
    conflict = outcome.report["functions"][0]["response"]["conflict"]
    assert (conflict["code"], conflict["op"], conflict["note"]["op"]) == (
        "kcfg.dfb_unpack_conflict",
        "row",
        "e",
    )


def test_preference_options_select_16_bit_destination() -> None:
    text = _read("reduce_preference.mlir")
    assert "fp32_dest_acc_en = true" in plan_text(text).text
    options = parse_pass_options("ttl-set-compute-kernel-config{reduce-full-fp32=0 matmul-full-fp32=false}")
    assert options == {"reduce-full-fp32": "0", "matmul-full-fp32": "false"}
    assert "fp32_dest_acc_en = false" in plan_text(text, options=options).text


def test_function_attributes_override_pass_options() -> None:
    text = _read("compute_mixed_args.mlir")  # fp32_dest_acc_en = true on the function
    (request,) = build_requests(text, options={"fp32-dest-acc-en": "disabled", "dst-full-sync-en": "enabled"})
    assert (request.policy.fp32_dest_acc, request.policy.dst_full_sync) == (True, "enabled")


def test_fpu_option_off_moves_the_add_to_sfpu() -> None:
    planned = plan_text(_read("fpu_sfpu_mix.mlir"), options={"enable-fpu-binary-ops": "0"}).text
    assert "#ttl.tile_execution_strategy<sfpu>" in _line_with(planned, "%sum = ")


def test_bad_three_state_option_is_a_function_refusal() -> None:
    outcome = plan_text(
        _read("fpu_sfpu_mix.mlir"), filename="f.mlir", options={"dst-full-sync-en": "sometimes"}
    )
    assert not outcome.ok
    assert outcome.diagnostics == [
        "f.mlir:5:3: error: 'func.func' op invalid dst-full-sync-en value 'sometimes'; "
        "expected auto, enabled, or disabled"
    ]


# ---------------------------------------------------------------------------------------------
# Malformed input and attribute refusals


_TILE = "!ttcore.tile<32x32, f32>"


def _kernel(body: str, *, func_attrs: str = "", module_attrs: str = "") -> str:
    module = f"module attributes {{{module_attrs}}} {{\n" if module_attrs else "module {\n"
    attrs = f" attributes {{{func_attrs}}}" if func_attrs else ""
    return (
        f"{module}  func.func @f(%t: tensor<1x1x{_TILE}>){attrs} {{\n"
        "    %c0 = arith.constant 0 : index\n"
        f"    %cb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : !ttl.cb<[1, 1], {_TILE}, 2>\n"
        f"    %a = ttl.attach_cb %t, %cb : (tensor<1x1x{_TILE}>, !ttl.cb<[1, 1], {_TILE}, 2>) "
        f"-> tensor<1x1x{_TILE}>\n"
        f"    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x{_TILE}>\n"
        f"{body}"
        "    return\n  }\n}\n"
    )


_EXP = f"    %e = ttl.tile_exp %x into dst[%c0] : {_TILE} -> {_TILE}\n"
_FILL = f"    %f = ttl.tile_fill 1.0 into dst[%c0] : {_TILE}\n"
_F64 = f"    %e = ttl.tile_exp %x into dst[%c0] : !ttcore.tile<32x32, f64> -> {_TILE}\n"
_UNDEFINED = f"    %e = ttl.tile_exp %nope into dst[%c0] : {_TILE} -> {_TILE}\n"
_STRATEGY = "ttl.tile_execution_strategy"


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("func.func @f( {", "adapter.parse_error", 1),
        (_kernel(_F64), "adapter.parse_error", 7),
        (_kernel(_UNDEFINED), "adapter.parse_error", None),
        (
            _kernel(
                f"    %b = ttl.tile_bcast %x, %x 7 : i32 into dst[%c0] : ({_TILE}, {_TILE}) -> {_TILE}\n"
            ),
            "adapter.attribute_invalid",
            7,
        ),
        ('"ttl.tile_exp"() : () -> ()', "adapter.invalid_ir", None),
    ],
)
def test_malformed_input_is_a_typed_error(text: str, code: str, line: int | None) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text)
    assert caught.value.code == code
    if line is not None:
        assert caught.value.line == line


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"fp32-dest-acc": "auto"}, "adapter.option_unknown"),
        ({"matmul-full-fp32": "yes"}, "adapter.option_invalid"),
    ],
)
def test_bad_pass_options_are_typed_errors(options: dict[str, str], code: str) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(_read("fpu_sfpu_mix.mlir"), options=options)
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("func_attrs", "module_attrs", "body", "code", "message"),
    [
        (
            "fp32_dest_acc_en = 1 : i32",
            "",
            _EXP,
            "kcfg.policy_attr_not_bool",
            "4:3: error: 'func.func' op fp32_dest_acc_en must be a boolean attribute",
        ),
        (
            'ttl.enable_fpu_binary_ops = "yes"',
            "",
            _EXP,
            "kcfg.policy_attr_not_bool",
            "4:3: error: 'func.func' op ttl.enable_fpu_binary_ops must be a boolean attribute",
        ),
        (
            "ttl.unpack_to_dest_fp32 = array<i64: 0>",
            "",
            _EXP,
            "kcfg.policy_unpack_attr_malformed",
            "4:3: error: 'func.func' op ttl.unpack_to_dest_fp32 must be a dense i32 array attribute",
        ),
        (
            "",
            'ttl.target_arch = "blackhole"',
            _EXP,
            "kcfg.target_arch_invalid",
            "3:1: error: 'builtin.module' op ttl.target_arch must be a #ttcore.arch attribute",
        ),
        (
            "",
            "ttl.target_arch = #ttcore.arch<quasar>",
            _EXP,
            "kcfg.target_quasar_unsupported",
            "3:1: error: 'builtin.module' op Quasar compute kernels require the Gen2 configuration",
        ),
        (
            "",
            "",
            _FILL.replace(" :", f' {{{_STRATEGY} = "fpu"}} :', 1),
            "kcfg.strategy_attr_malformed",
            "9:10: error: 'ttl.tile_fill' op ttl.tile_execution_strategy must be a #ttl",
        ),
        (
            "",
            "",
            f"    %f = ttl.tile_fill 1.0 into dst[%c0] {{ttl.tile_execution_strategy = "
            f"#ttl.tile_execution_strategy<fpu>}} : {_TILE}\n",
            "kcfg.strategy_attr_on_fixed_op",
            "9:10: error: 'ttl.tile_fill' op ttl.tile_execution_strategy is only valid",
        ),
        (
            "fp32_dest_acc_en = false",
            "",
            _FILL,
            "kcfg.dst_width_disabled_conflict",
            "9:10: error: 'ttl.tile_fill' op requires 32-bit destination elements",
        ),
    ],
)
def test_attribute_refusals_point_at_their_op(
    func_attrs: str, module_attrs: str, body: str, code: str, message: str
) -> None:
    text = "// leading comment\n\n" + _kernel(body, func_attrs=func_attrs, module_attrs=module_attrs)
    outcome = plan_text(text, filename="a.mlir")
    assert not outcome.ok and outcome.text == text
    assert outcome.report["functions"][0]["response"]["conflict"]["code"] == code
    assert outcome.diagnostics[0].startswith(f"a.mlir:{message}")


@pytest.mark.parametrize(
    ("source", "result", "unpack"),
    [("f32", "bf16", "array<i32: 0>"), ("bf16", "f32", "array<i32>")],
)
def test_typecast_unpacks_only_an_f32_source(source: str, result: str, unpack: str) -> None:
    """docs/design/kernel-config.md section 9: f32 -> bf16 typecast: 32, [0]; bf16 -> f32 typecast: 32, []."""
    types = f"!ttcore.tile<32x32, {source}> -> !ttcore.tile<32x32, {result}>"
    body = f"    %c = ttl.tile_typecast %x into dst[%c0] : {types}\n"
    text = _kernel("@BODY@").replace("32x32, f32", f"32x32, {source}").replace("@BODY@", body)
    (request,) = build_requests(text)
    assert (request.dfbs[0].dtype, request.ops[0].result_dtype) == (source, result)
    assert f"fp32_dest_acc_en = true, ttl.unpack_to_dest_fp32 = {unpack}" in plan_text(text).text


def test_accumulate_of_a_dst_index_tile_reads_dst() -> None:
    body = (
        f"    %d = ttl.dst_index %c0 : index -> {_TILE}\n"
        f"    %s = ttl.tile_accumulate %x, %d into dst[%c0] : {_TILE}, {_TILE} -> {_TILE}\n"
    )
    (request,) = build_requests(_kernel(body))
    assert [op.model_dump(mode="json")["operands"] for op in request.ops] == [
        [{"scalar": "index"}],
        [{"dfb": 0}, {"value": "d"}],
    ]
    assert plan_text(_kernel(body)).ok


def test_unfinalized_dfb_is_named_in_the_request() -> None:
    text = _kernel(_EXP).replace("{cb_index = 0, block_count = 2}", "{block_count = 2}")
    (request,) = build_requests(text)
    assert request.ops[0].operands[0].model_dump() == {"dfb_unfinalized": "%cb"}
    outcome = plan_text(text, filename="u.mlir")
    assert outcome.diagnostics == [
        "u.mlir:7:10: error: 'ttl.tile_exp' op uses a dataflow buffer without a finalized index"
    ]


def test_build_requests_raises_the_attribute_refusal() -> None:
    from planner.kernelcfg.codes import KcfgError

    with pytest.raises(KcfgError) as caught:
        build_requests(_kernel(_EXP, func_attrs="dst_full_sync_en = 0 : i64"))
    assert caught.value.code == "kcfg.policy_attr_not_bool"


def test_request_round_trips_through_json() -> None:
    for path in EXAMPLE_FILES:
        for request in build_requests(path.read_text()):
            assert KernelcfgResolveRequest.model_validate_json(request.model_dump_json()) == request
