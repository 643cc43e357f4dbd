"""Hypothesis strategies producing `kernelcfg.resolve` requests for property tests.

`kernel_requests()` draws small kernels over the whole op vocabulary of docs/design/kernel-config.md
section 2 (strategy-dependent binaries, unaries, copies, stores, broadcasts, reduces,
matmuls, fills, transposes, accumulates, row normalizations holding 1 to 17 DST slots),
operands of every JSON form that resolves (`{"dfb": i}`, `{"value": op}`,
`{"unattached": dtype}`), optional explicit strategies, and every policy knob (precision
and the accuracy knobs included);
`conflicting_kernel_requests()` plants a conflict a structural correction addresses (a
shared DFB needing two unpack modes, or a bf16/f16 broadcast next to a 32-bit DST use).
Pair them with `planner.testing.oracles.kernel_enum` to check a resolver:

    @given(kernel_requests())
    def test_resolves_iff_satisfiable(request):
        oracle = enum_oracle(request)
        assume(oracle is not None)
        assert resolve(request).ok == oracle.satisfiable()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from planner.kernelcfg.protocol import KernelcfgResolveRequest

DTYPES: tuple[str, ...] = ("f32", "bf16", "f16", "si32", "u32", "u16")
ARCHS: tuple[str | None, ...] = (None, "wormhole_b0", "blackhole")
_THREE_STATES: tuple[bool | str, ...] = ("auto",) * 6 + ("enabled", "disabled", True, False, "1", "0")
_LIKELY_DTYPES: tuple[str, ...] = ("f32",) * 4 + ("bf16",) * 2 + DTYPES  # f32 drives the unpack relation

# mnemonic -> (number of tile operands, attrs choices)
_OP_SHAPES: dict[str, tuple[int, Sequence[dict[str, Any]]]] = {
    "tile_add": (2, ({},)),
    "tile_sub": (2, ({},)),
    "tile_mul": (2, ({},)),
    "tile_max": (2, ({},)),
    "tile_exp": (1, ({},)),
    "tile_abs": (1, ({},)),
    "tile_typecast": (1, ({},)),
    "copy_tile": (1, ({},)),
    "tile_store": (1, ({},)),
    "tile_bcast": (1, ({"kind": "col"}, {"kind": "row"}, {"kind": "scalar"})),
    "tile_reduce": (2, ({"dim": "row"}, {"dim": "col"}, {"dim": "scalar"})),
    "tile_matmul_block": (2, ({},)),
    "tile_fill": (0, ({},)),
    "tile_transpose": (1, ({},)),
    "tile_accumulate": (2, ({},)),
    "tile_row_normalization_block": (
        3,
        tuple({"tiles": n, "gamma": gamma} for n in (1, 4, 5, 8, 9, 16, 17) for gamma in ("true", "false")),
    ),
}
_CHOICE_OPS = frozenset({"tile_add", "tile_sub", "tile_mul"})
_NO_RESULT = frozenset({"tile_store"})
_DFB_READERS = frozenset(
    {
        "copy_tile",
        "tile_bcast",
        "tile_reduce",
        "tile_matmul_block",
        "tile_transpose",
        "tile_row_normalization_block",
    }
)


@st.composite
def _operand(draw: st.DrawFn, dfb_count: int, producers: Sequence[str], reads_dfb: bool) -> dict[str, Any]:
    """Mostly operands the op can take; DFB readers rarely get a value (which is refused)."""
    kinds = ["dfb"] * (12 if reads_dfb else 6) + ["unattached"] + (["value"] * 3 if producers else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "dfb":
        return {"dfb": draw(st.integers(0, dfb_count - 1))}
    if kind == "value":
        return {"value": draw(st.sampled_from(list(producers)))}
    return {"unattached": draw(st.sampled_from(DTYPES))}


@st.composite
def kernel_requests(
    draw: st.DrawFn,
    max_ops: int = 5,
    max_dfbs: int = 3,
    archs: Sequence[str | None] = ARCHS,
    ops: Sequence[str] = tuple(_OP_SHAPES),
) -> KernelcfgResolveRequest:
    """A random valid `KernelcfgResolveRequest` of at most `max_ops` ops over `max_dfbs` DFBs.

    Every drawn request passes protocol validation; it may still be refused by the resolver
    (that is the point). `archs` and `ops` narrow the target and op vocabulary.
    """
    dfb_count = draw(st.integers(1, max_dfbs))
    dfbs = [{"index": i, "dtype": draw(st.sampled_from(_LIKELY_DTYPES))} for i in range(dfb_count)]
    op_list: list[dict[str, Any]] = []
    producers: list[str] = []
    for number in range(draw(st.integers(1, max_ops))):
        mnemonic = draw(st.sampled_from([*ops, *(o for o in ops if o in _CHOICE_OPS)]))
        arity, attr_choices = _OP_SHAPES[mnemonic]
        op_id = f"{mnemonic.removeprefix('tile_')}{number}"
        reads_dfb = mnemonic in _DFB_READERS
        operands = [draw(_operand(dfb_count, producers, reads_dfb)) for _ in range(arity)]
        op: dict[str, Any] = {
            "id": op_id,
            "op": mnemonic,
            "operands": operands,
            "result_dtype": draw(st.sampled_from(_LIKELY_DTYPES)),
            "attrs": draw(st.sampled_from(list(attr_choices))),
        }
        if mnemonic in _CHOICE_OPS:
            op["same_tile_coords"] = draw(st.booleans())
            op["explicit_strategy"] = draw(st.sampled_from([None] * 8 + ["fpu", "sfpu"]))
        op_list.append(op)
        if mnemonic not in _NO_RESULT:
            producers.append(op_id)
    explicit = draw(st.one_of(st.none(), st.lists(st.integers(0, dfb_count - 1), max_size=dfb_count)))
    policy = {
        "fp32_dest_acc": draw(st.sampled_from(_THREE_STATES)),
        "dst_full_sync": draw(st.sampled_from(_THREE_STATES)),
        "reduce_full_fp32": draw(st.booleans()),
        "matmul_full_fp32": draw(st.booleans()),
        "fpu_binary": draw(st.booleans()),
        "unpack_to_dest_fp32": explicit,
        "precision": draw(st.sampled_from(("default", "default", "exact"))),
        "math_fidelity": draw(st.sampled_from((None, None, "LoFi", "HiFi2", "HiFi3", "HiFi4"))),
        "math_approx_mode": draw(st.sampled_from((None, True, False))),
    }
    return KernelcfgResolveRequest.model_validate(
        {"arch": draw(st.sampled_from(list(archs))), "policy": policy, "dfbs": dfbs, "ops": op_list}
    )


_UNPACKING_READERS = ("tile_exp", "tile_abs", "copy_tile")  # f32 through DST or a copy: unpack-to-DST
_BCAST_KINDS = ("col", "row", "scalar")


@st.composite
def conflicting_kernel_requests(draw: st.DrawFn, max_other_ops: int = 3) -> KernelcfgResolveRequest:
    """A `kernel_requests()` kernel with one planted conflict, which makes it refused.

    Planted (ops `planted_*` at drawn positions, on DFBs of their own): either one f32 DFB
    read both by an unpacking op (exp, abs, copy_tile) and by a broadcast, which need
    different unpack modes; or, on Wormhole B0 / Blackhole, an f32 exp (32-bit DST) next to
    a bf16/f16 broadcast (which forbids 32-bit DST there). These are the conflicts the
    resolver's structural corrections (a DFB split, a widened broadcast) speak to.
    """
    base = draw(kernel_requests(max_ops=max_other_ops)).model_dump()
    first = len(base["dfbs"])
    kind = {"kind": draw(st.sampled_from(_BCAST_KINDS))}
    if draw(st.booleans()):
        reader = draw(st.sampled_from(_UNPACKING_READERS))
        dfbs = [{"index": first, "dtype": "f32"}]
        planted = [
            {"id": "planted_unpack", "op": reader, "operands": [{"dfb": first}], "result_dtype": "f32"},
            {"id": "planted_bcast", "op": "tile_bcast", "operands": [{"dfb": first}], "attrs": kind},
        ]
    else:
        narrow = draw(st.sampled_from(("bf16", "f16")))
        dfbs = [{"index": first, "dtype": "f32"}, {"index": first + 1, "dtype": narrow}]
        planted = [
            {"id": "planted_exp", "op": "tile_exp", "operands": [{"dfb": first}], "result_dtype": "f32"},
            {"id": "planted_bcast", "op": "tile_bcast", "operands": [{"dfb": first + 1}], "attrs": kind},
        ]
        base["arch"] = draw(st.sampled_from(("wormhole_b0", "blackhole")))
        base["system_desc"] = None
    ops = list(base["ops"])
    for op in planted:
        ops.insert(draw(st.integers(0, len(ops))), op)
    return KernelcfgResolveRequest.model_validate({**base, "dfbs": base["dfbs"] + dfbs, "ops": ops})
