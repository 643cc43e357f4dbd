"""TT-Lang adapter inputs beyond the tile ops it defines: undefined ops, empty chunks, target descriptions.

docs/design/kernel-config.md section 2 (an op without execution semantics is refused at the op), section
4.1 (system and device descriptions agree with `ttl.target_arch`), section 10 (split files).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import build_requests, plan_text
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from tests.support.hypothesis_budget import lowered

TILE = "!ttcore.tile<32x32, f32>"
CB = f"!ttl.cb<[1, 1], {TILE}, 2>"
EXP = f"    %e = ttl.tile_exp %x into dst[%c0] : {TILE} -> {TILE}\n"


def kernel(body: str, *, module_attrs: str = "", func_attrs: str = "", prelude: str = "") -> str:
    """One function reading DFB 0 as `%x`; the module is on line 2, `body` starts on line 8."""
    attrs = f" attributes {{{module_attrs}}}" if module_attrs else ""
    function_attrs = f" attributes {{{func_attrs}}}" if func_attrs else ""
    return (
        f"{prelude}// kernel\nmodule{attrs} {{\n"
        f"  func.func @f(%t: tensor<1x1x{TILE}>){function_attrs} {{\n"
        "    %c0 = arith.constant 0 : index\n"
        f"    %cb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : {CB}\n"
        f"    %a = ttl.attach_cb %t, %cb : (tensor<1x1x{TILE}>, {CB}) -> tensor<1x1x{TILE}>\n"
        f"    %x = tensor.extract %a[%c0, %c0] : tensor<1x1x{TILE}>\n"
        f"{body}"
        "    return\n  }\n}\n"
    )


def refusal(text: str) -> tuple[str, list[str]]:
    outcome = plan_text(text, filename="k.mlir")
    assert not outcome.ok and outcome.text == text
    return outcome.report["functions"][0]["response"]["conflict"]["code"], outcome.diagnostics


# ---------------------------------------------------------------------------------------------
# Undefined ttl ops (section 2)

FROB_CUSTOM = f"    %e = ttl.tile_frob %x, %x into dst[%c0] : {TILE}, {TILE} -> {TILE}\n"
FROB_GENERIC = f'    %e = "ttl.tile_frob"(%x, %x, %c0) : ({TILE}, {TILE}, index) -> {TILE}\n'
NESTED = (
    "    %true = arith.constant true\n    scf.if %true {\n"
    f"      %e = ttl.tile_frob %x into dst[%c0] : {TILE} -> {TILE}\n      scf.yield\n    }}\n"
)


@pytest.mark.parametrize(
    ("body", "line", "column"),
    [
        (FROB_CUSTOM, 8, 10),
        (FROB_GENERIC, 8, 10),
        (
            f"    %e = ttl.tile_frob %x, %x into dst[%c0] {{k = 1 : i32}} : ({TILE}, {TILE}) -> {TILE}\n",
            8,
            10,
        ),
        (f"    %e = ttl.tile_frob into dst[%c0] : {TILE}\n", 8, 10),
        (f"    ttl.tile_frob %x into dst[%c0] : {TILE}\n", 8, 5),
        (NESTED, 10, 12),
    ],
)
def test_an_undefined_ttl_op_is_refused_at_its_location(body: str, line: int, column: int) -> None:
    text = kernel(body)
    code, diagnostics = refusal(text)
    assert code == "kcfg.op_semantics_unknown"
    assert diagnostics == [
        f"k.mlir:{line}:{column}: error: 'ttl.tile_frob' op does not implement TileExecutionOpInterface"
    ]


def test_an_undefined_ttl_op_reaches_the_request_with_its_operands_in_either_form() -> None:
    custom, generic = (build_requests(kernel(body))[0] for body in (FROB_CUSTOM, FROB_GENERIC))
    assert custom == generic
    assert custom.ops[0].model_dump(mode="json") == {
        "id": "e",
        "op": "tile_frob",
        "operands": [{"dfb": 0}, {"dfb": 0}, {"scalar": "index"}],
        "result_dtype": "f32",
        "same_tile_coords": True,
        "explicit_strategy": None,
        "attrs": {},
    }


def test_an_undefined_ttl_op_feeding_a_tile_op_is_still_the_refusal() -> None:
    body = FROB_CUSTOM + f"    %g = ttl.tile_exp %e into dst[%c0] : {TILE} -> {TILE}\n"
    (request,) = build_requests(kernel(body))
    assert [op.model_dump(mode="json")["operands"] for op in request.ops][1] == [{"value": "e"}]
    assert refusal(kernel(body))[0] == "kcfg.op_semantics_unknown"


def test_an_undefined_ttl_op_prints_generically_and_reads_back_the_same() -> None:
    module = parse_chunk(Chunk(kernel(FROB_CUSTOM), 0, 1), "k").module
    assert '"ttl.tile_frob"(%x, %x, %c0)' in str(module)
    assert build_requests(str(module)) == build_requests(kernel(FROB_CUSTOM))


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (f"    %e = ttl.tile_frob %x : {TILE}\n", 8),  # not the `into dst[...]` convention
        (f"    %e = ttl.tile_frob %x into dst[%c0] : {TILE}\n", 8),  # no result type
        (f"    %e = ttl.tile_frob %x, %x into dst[%c0] : {TILE} -> {TILE}\n", 8),  # 2 operands, 1 type
    ],
)
def test_an_undefined_ttl_op_outside_the_convention_is_a_parse_error(body: str, line: int) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(kernel(body))
    assert (caught.value.code, caught.value.line) == ("adapter.parse_error", line)


MANY_X, MANY_TILES = ", ".join(["%x"] * 65), ", ".join([TILE] * 65)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (f"    %e = ttl.tile_{'f' * 130} %x into dst[%c0] : {TILE} -> {TILE}\n", "op"),
        (f"    %e = ttl.tile_frob {MANY_X} into dst[%c0] : {MANY_TILES} -> {TILE}\n", "operands"),
    ],
)
def test_an_op_too_large_for_a_request_is_a_typed_error(body: str, field: str) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(kernel(body))
    assert (caught.value.code, caught.value.line, caught.value.column) == ("adapter.request_rejected", 8, 10)
    assert f"op cannot be described in a request: {field}: " in caught.value.message


# ---------------------------------------------------------------------------------------------
# Other dialects' ops


def test_ops_of_other_dialects_without_tiles_do_not_change_the_plan() -> None:
    noise = (
        "    %i = arith.addi %c0, %c0 : index\n"
        "    %m = memref.alloc() : memref<4xi32>\n"
        '    %n = "d2m.core_index"() <{dim = 0 : i64}> : () -> index\n'
        '    "memref.frobnicate"(%m, %n) : (memref<4xi32>, index) -> ()\n'
    )
    quiet, noisy = plan_text(kernel(EXP)), plan_text(kernel(noise + EXP))
    assert noisy.ok and quiet.ok
    assert noisy.report["functions"][0]["response"] == quiet.report["functions"][0]["response"]
    assert noisy.text == quiet.text.replace(EXP, noise + EXP)


@pytest.mark.parametrize(
    "body",
    [
        f'    %m = "d2m.tile_maximum"(%x, %x) : ({TILE}, {TILE}) -> {TILE}\n',
        f'    %m = "d2m.tile_source"() : () -> {TILE}\n',
        f'    "d2m.sink"(%a) : (tensor<1x1x{TILE}>) -> ()\n',
    ],
)
def test_an_op_of_another_dialect_handling_tiles_is_refused(body: str) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(kernel(body))
    at_name = body.index('"d2m') + 1  # MLIR locates an op at its name
    where = (caught.value.code, caught.value.line, caught.value.column)
    assert where == ("adapter.unknown_tile_op", 8, at_name)
    assert "is not a TTL tile op" in caught.value.message


def test_an_undefined_op_of_another_dialect_in_custom_form_is_a_parse_error() -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(kernel("    d2m.frob %c0 : index\n"))
    assert (caught.value.code, caught.value.line) == ("adapter.parse_error", 8)


# ---------------------------------------------------------------------------------------------
# Empty input and empty chunks (section 10)


@pytest.mark.parametrize(
    "text", ["", "\n", "   \n\n", "// only a comment\n", "// -----\n", "// -----\n// -----"]
)
def test_empty_input_is_an_empty_module(text: str) -> None:
    outcome = plan_text(text)
    assert outcome.ok and outcome.text == text and outcome.diagnostics == []
    assert outcome.report == {"adapter": "ttlang", "functions": []}
    assert build_requests(text) == []


def test_empty_chunks_between_kernels_leave_the_others_planned() -> None:
    text = "\n// -----\n" + kernel(EXP) + "// -----\n// nothing here\n// -----\n" + kernel(EXP)
    outcome = plan_text(text, filename="s.mlir")
    assert outcome.ok and len(outcome.report["functions"]) == 2
    assert outcome.text.count("ttl.unpack_to_dest_fp32 = array<i32: 0>") == 2
    assert [f["location"] for f in outcome.report["functions"]] == ["s.mlir:5:3", "s.mlir:19:3"]


# ---------------------------------------------------------------------------------------------
# Target descriptions (section 4.1)

ARCHS = ("wormhole_b0", "blackhole")


@dataclass(frozen=True)
class Target:
    """What a module may say about its target; None: the attribute is absent."""

    chip_archs: tuple[str, ...] | None
    chip_ids: tuple[int, ...] | None
    target_arch: str | None

    def module_attrs(self) -> str:
        entries = []
        if self.chip_ids is not None:
            ids = ", ".join(map(str, self.chip_ids))
            entries.append(
                f"ttcore.device = #ttcore.device<workerGrid = #ttcore.grid<8x8>, chipIds = [{ids}]>"
            )
        if self.chip_archs is not None:
            # Distinct descriptions reached through `chip_desc_indices`, with entries to skip.
            descs = sorted(set(self.chip_archs))
            described = ", ".join(
                f"{{arch = <{arch}>, grid = 8x8, supported_tile_sizes = [ 32x32]}}" for arch in descs
            )
            indices = ", ".join(str(descs.index(arch)) for arch in self.chip_archs)
            entries.append(
                'ttcore.system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64"}], '
                f"[{described}], [{indices}], [ 0x0x0x0]>"
            )
        if self.target_arch is not None:
            entries.append(f"ttl.target_arch = #ttcore.arch<{self.target_arch}>")
        return ", ".join(entries)

    def expected_code(self) -> str | None:
        """Section 4.1 written out: the device's chips exist and share one arch, which agrees."""
        if self.chip_archs is None and self.chip_ids is None:
            return None
        archs = self.chip_archs or ()
        if not archs and self.chip_ids is None:
            return None
        selected = (0,) if self.chip_ids is None else self.chip_ids
        if any(chip >= len(archs) for chip in selected):
            return "kcfg.target_device_chip_invalid"
        device_archs = {archs[chip] for chip in selected}
        if len(device_archs) > 1:
            return "kcfg.target_mixed_arch"
        if self.target_arch is not None and device_archs and device_archs != {self.target_arch}:
            return "kcfg.target_device_mismatch"
        return None


targets = st.builds(
    Target,
    chip_archs=st.none() | st.lists(st.sampled_from(ARCHS), max_size=4).map(tuple),
    chip_ids=st.none() | st.lists(st.integers(0, 4), max_size=3).map(tuple),
    target_arch=st.none() | st.sampled_from(ARCHS),
)


@settings(max_examples=lowered(60))
@given(targets)
def test_descriptions_reach_the_request_and_the_agreement_rules_apply(target: Target) -> None:
    text = kernel(EXP, module_attrs=target.module_attrs())
    (request,) = build_requests(text)
    described = target.chip_archs is not None or target.chip_ids is not None
    assert (request.system_desc is not None) == described
    if request.system_desc is not None:
        assert request.system_desc.chip_archs == list(target.chip_archs or ())
        assert request.system_desc.device_chip_ids == (
            None if target.chip_ids is None else list(target.chip_ids)
        )
    outcome = plan_text(text, filename="k.mlir")
    conflict = outcome.report["functions"][0]["response"]["conflict"]
    assert (conflict["code"] if conflict else None) == target.expected_code()
    if conflict is not None:
        assert outcome.text == text and outcome.diagnostics[0].startswith(
            "k.mlir:2:1: error: 'builtin.module' op "
        )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            Target(("wormhole_b0",), (1,), None),
            "default device selects chip 1 outside the system description",
        ),
        (
            Target(("blackhole",), None, "wormhole_b0"),
            "ttl.target_arch does not match the selected device arch",
        ),
        (Target(None, (0,), None), "default device selects chip 0 outside the system description"),
    ],
)
def test_description_refusals_carry_the_section_8_messages(target: Target, message: str) -> None:
    code, diagnostics = refusal(kernel(EXP, module_attrs=target.module_attrs()))
    assert code == target.expected_code()
    assert diagnostics == [f"k.mlir:2:1: error: 'builtin.module' op {message}"]


def test_the_device_chip_sets_the_target() -> None:
    """Section 9: a bf16 broadcast under `fp32_dest_acc_en = true` is refused on Blackhole, planned with no
    target; here the only Blackhole evidence is the chip the device selects."""
    bcast = f"    %bc = ttl.tile_bcast %x, %x 1 : i32 into dst[%c0] : ({TILE}, {TILE}) -> {TILE}\n"

    def text(target: Target) -> str:
        written = kernel(bcast, module_attrs=target.module_attrs(), func_attrs="fp32_dest_acc_en = true")
        return written.replace("32x32, f32", "32x32, bf16")

    on_blackhole = text(Target(("wormhole_b0", "blackhole"), (1,), None))
    assert build_requests(on_blackhole)[0].arch is None
    assert refusal(on_blackhole)[0] == "kcfg.dst_width_explicit_unsupported"
    assert plan_text(text(Target(None, None, None))).ok


@pytest.mark.parametrize(
    ("attrs", "code", "line"),
    [
        ('ttcore.system_desc = "wormhole_b0"', "adapter.attribute_invalid", 2),
        ("ttcore.device = [0]", "adapter.attribute_invalid", 2),
        (
            "ttcore.system_desc = #ttcore.system_desc<[], [{arch = <blackhole>}], [1]>",
            "adapter.parse_error",
            2,
        ),
        ("ttcore.system_desc = #ttcore.system_desc<[], [{grid = 8x8}], [0]>", "adapter.parse_error", 2),
        ("ttcore.system_desc = #ttcore.system_desc<[], [{arch = <blackhole>}]>", "adapter.parse_error", 2),
        ("ttcore.device = #ttcore.device<meshShape = 1x1>", "adapter.parse_error", 2),
        ("ttcore.device = #ttcore.device<chipIds = [0], grid = (]>", "adapter.parse_error", 2),
    ],
)
def test_malformed_descriptions_are_typed_errors(attrs: str, code: str, line: int) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(kernel(EXP, module_attrs=attrs))
    assert (caught.value.code, caught.value.line) == (code, line)


def test_an_aliased_system_description_reads_like_an_inline_one() -> None:
    alias = "#sd = #ttcore.system_desc<[], [{arch = <blackhole>}], [0]>\n"
    aliased = build_requests(kernel(EXP, module_attrs="ttcore.system_desc = #sd", prelude=alias))
    inline = build_requests(
        kernel(EXP, module_attrs="ttcore.system_desc = " + alias.split(" = ", 1)[1].strip())
    )
    assert aliased == inline and aliased[0].system_desc is not None
    assert aliased[0].system_desc.chip_archs == ["blackhole"]
