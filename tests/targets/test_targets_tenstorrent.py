"""Tenstorrent capability tables and target construction (docs/design/kernel-config.md section 4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.targets.tenstorrent import (
    BLACKHOLE_FACTS,
    BLACKHOLE_ROW_REDUCE_WARNING,
    BROADCASTS,
    NO_TARGET,
    TARGETS,
    TT_DTYPES,
    WORMHOLE_B0_FACTS,
    DescriptorTarget,
    FullFp32Kind,
    Primitive,
    Route,
    TargetError,
    UnpackMode,
    build_target,
)

ALL_TARGETS = {"none": NO_TARGET, **TARGETS}
F32, BF16, SI32 = TT_DTYPES["f32"], TT_DTYPES["bf16"], TT_DTYPES["si32"]


def test_capacities_and_descriptions() -> None:
    assert [(t.dfb_capacity, t.capacity_description) for t in ALL_TARGETS.values()] == [
        (32, "the conservative 32-DFB-index capacity used when target metadata is absent"),
        (32, "the 32-DFB-index Wormhole B0 target capacity"),
        (64, "the 64-DFB-index Blackhole target capacity"),
    ]


@pytest.mark.parametrize("name", sorted(ALL_TARGETS))
@pytest.mark.parametrize("primitive", list(Primitive))
@pytest.mark.parametrize("dtype", sorted(TT_DTYPES))
def test_destination_width_relation(name: str, primitive: Primitive, dtype: str) -> None:
    target, elem = ALL_TARGETS[name], TT_DTYPES[dtype]
    assert target.supports_destination_width(primitive, elem, 16) == (not elem.is_32bit)
    forbidden = name != "none" and primitive in BROADCASTS and not elem.is_32bit
    assert target.supports_destination_width(primitive, elem, 32) == (not forbidden)


@pytest.mark.parametrize("name", sorted(ALL_TARGETS))
@pytest.mark.parametrize("primitive", list(Primitive))
@pytest.mark.parametrize("route", [Route.DFB, Route.DST])
@pytest.mark.parametrize("dtype", sorted(TT_DTYPES))
def test_dfb_configuration_relation(name: str, primitive: Primitive, route: Route, dtype: str) -> None:
    pairs = ALL_TARGETS[name].supported_dfb_configurations(primitive, route, TT_DTYPES[dtype])
    if dtype == "f32" and (route is Route.DST or primitive is Primitive.COPY):
        assert pairs == {(32, UnpackMode.UNPACK_TO_DEST)}
    else:
        assert pairs == {(16, UnpackMode.DEFAULT), (32, UnpackMode.DEFAULT)}


def test_full_fp32_support_table() -> None:
    table = {
        name: {
            kind: (s.supported, s.fallback_warning)
            for kind in FullFp32Kind
            for s in [t.full_fp32_support(kind)]
        }
        for name, t in ALL_TARGETS.items()
    }
    assert all(value == (True, None) for value in table["none"].values())
    assert table["wormhole_b0"] == {
        FullFp32Kind.REDUCE_ROW: (False, None),
        FullFp32Kind.REDUCE_COLUMN: (False, None),
        FullFp32Kind.REDUCE_SCALAR: (False, None),
        FullFp32Kind.MATMUL: (True, None),
    }
    assert table["blackhole"] == {
        FullFp32Kind.REDUCE_ROW: (False, BLACKHOLE_ROW_REDUCE_WARNING),
        FullFp32Kind.REDUCE_COLUMN: (True, None),
        FullFp32Kind.REDUCE_SCALAR: (True, None),
        FullFp32Kind.MATMUL: (True, None),
    }


@pytest.mark.parametrize("facts", [WORMHOLE_B0_FACTS, BLACKHOLE_FACTS], ids=["wh", "bh"])
def test_flipping_the_broadcast_entry_answers_like_no_target(facts: object) -> None:
    lifted = DescriptorTarget(replace(facts, bcast_non32_forbids_dst32=False))  # type: ignore[type-var]
    for primitive in Primitive:
        for elem in TT_DTYPES.values():
            for width in (16, 32):
                assert lifted.supports_destination_width(
                    primitive, elem, width
                ) == NO_TARGET.supports_destination_width(primitive, elem, width)


def test_lookup_constructs_the_registered_implementation() -> None:
    assert build_target(None) is NO_TARGET
    assert build_target("wormhole_b0") is TARGETS["wormhole_b0"]
    assert build_target(None, ["blackhole", "blackhole"], [0, 1]) is TARGETS["blackhole"]
    assert build_target("blackhole", ["blackhole"]) is TARGETS["blackhole"]


@pytest.mark.parametrize(
    "arch, chips, device, code, message",
    [
        ("quasar", (), None, "kcfg.target_quasar_unsupported", "Quasar compute kernels require the Gen2"),
        ("grayskull", (), None, "kcfg.target_not_implemented", "not implemented for target architecture"),
        ("#ttcore.arch<x>", (), None, "kcfg.target_arch_invalid", "must be a #ttcore.arch attribute"),
        (
            "blackhole",
            ("wormhole_b0",),
            None,
            "kcfg.target_device_mismatch",
            "does not match the selected device",
        ),
        (
            None,
            ("blackhole",),
            [1],
            "kcfg.target_device_chip_invalid",
            "default device selects chip 1 outside",
        ),
        (None, ("blackhole", "wormhole_b0"), [0, 1], "kcfg.target_mixed_arch", "different architectures"),
        (None, ("quasar",), None, "kcfg.target_quasar_unsupported", "Quasar"),
    ],
)
def test_target_refusals(
    arch: str | None, chips: tuple[str, ...], device: list[int] | None, code: str, message: str
) -> None:
    with pytest.raises(TargetError) as caught:
        build_target(arch, chips, device)
    assert caught.value.code == code and message in caught.value.message


def test_dfb_index_boundaries_per_target() -> None:
    assert [t.dfb_capacity - 1 for t in ALL_TARGETS.values()] == [31, 31, 63]
    assert F32.is_f32 and SI32.is_32bit and not SI32.is_f32 and not BF16.is_32bit
