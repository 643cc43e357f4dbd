"""Strategies aimed at the regions where re-implementations go wrong and hand-picked tests don't go.

- `wraparound_layout_requests()`: NZ loads whose trailing offsets are bound products
  (`n0 = nb * 256`) over a range that wraps at the index width yet lands on non-negative,
  aligned values, so the planner accepts them and the coordinate `n0 // 16` differs from
  the re-associated `nb * 16` (docs/design/nz-layout.md 7.4).
- `shared_dfb_kernel_requests()`: kernels where a fixed SFPU consumer and an FPU-eligible
  binary op read the same f32 dataflow buffer, so choosing FPU first empties that buffer's
  unpack domain and only the joint search finds the SFPU plan (docs/design/kernel-config.md 6.6).

Both draw most of their request from the general strategies (`nz`, `kernels`), so a shrunk
example is as small as the general strategies allow.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.layout.protocol import LayoutPlanRequest, LoadOp
from planner.proofs.protocol import AssignBinding, Binding, BlockIdxBinding, ForBinding, ParamBinding
from planner.targets.ascend import FRACTAL_ROWS
from planner.testing.strategies.kernels import kernel_requests
from planner.testing.strategies.nz import c0_of, nz_tensor_specs

WRAP_WIDTHS = (32, 32, 64)
WRAPPED_REACH = 7 * 16  # a wrapped product lands below (3 + 4 trips) * scale, scale at most factor * 16
SFPU_CONSUMERS = ("tile_exp", "tile_abs", "copy_tile", "tile_typecast")
FPU_ELIGIBLE = ("tile_add", "tile_sub", "tile_mul")


@st.composite
def wrapping_product(draw: st.DrawFn, index: str, name: str, factor: int, bits: int) -> list[Binding]:
    """Bindings for `name = index * scale`, `scale` a multiple of `factor`, over an index range that wraps.

    The index starts at `q * 2**bits / scale + r`: the product wraps `q` times and lands on
    `r * scale`, a small non-negative multiple of `factor`. `q = 0` gives the unwrapped case.
    The index is a loop, a ranged parameter or a block index shifted by a constant.
    """
    scale = factor << draw(st.integers(0, 4))
    period = (1 << bits) // scale
    start = draw(st.integers(0, scale // 2 - 1)) * period + draw(st.integers(0, 3))
    trips = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(("for", "param", "block_idx")))
    product = AssignBinding(name=name, expr=f"{index} * {scale}")
    if kind == "for":
        return [ForBinding(name=index, start=start, stop=start + trips, step=1), product]
    if kind == "param":
        return [ParamBinding(name=index, min=start, max=start + trips), product]
    lane = f"{index}_lane"
    return [BlockIdxBinding(name=lane), AssignBinding(name=index, expr=f"{lane} + {start}"), product]


@st.composite
def wraparound_layout_requests(draw: st.DrawFn) -> LayoutPlanRequest:
    """An NZ `tile.load` at `[.., n0, k0]` where `n0` and `k0` are products that may wrap (32 or 64 bits).

    The tensor is widened past the furthest wrapped offset, so every window stays inside it.
    """
    bits = draw(st.sampled_from(WRAP_WIDTHS))
    drawn = draw(nz_tensor_specs("w", ranks=(2, 3)))
    c0 = c0_of(drawn.dtype)
    rows, cols = (int(extent) for extent in drawn.shape[-2:])
    reach = [rows + WRAPPED_REACH * FRACTAL_ROWS, cols + WRAPPED_REACH * c0]
    weight = drawn.model_copy(update={"shape": [*drawn.shape[:-2], *reach]})
    bindings = [
        *draw(wrapping_product("nb", "n0", FRACTAL_ROWS, bits)),
        *draw(wrapping_product("kb", "k0", c0, bits)),
    ]
    lead = len(weight.shape) - 2
    load = LoadOp(
        id="l0",
        source="w",
        offsets=[*([0] * lead), "n0", "k0"],
        shapes=[
            *([1] * lead),
            FRACTAL_ROWS * draw(st.integers(1, rows // FRACTAL_ROWS)),
            c0 * draw(st.integers(1, cols // c0)),
        ],
        target_memory="Mat",
    )
    return LayoutPlanRequest(target="a2a3", index_bits=bits, tensors=[weight], bindings=bindings, ops=[load])


@st.composite
def shared_dfb_kernel_requests(draw: st.DrawFn) -> KernelcfgResolveRequest:
    """A small kernel plus a fixed SFPU consumer and an FPU-eligible binary op sharing f32 DFB 0.

    The rest of the kernel (at most two ops, their DFBs and the target) comes from
    `kernel_requests`; the policy is the default one, under which FPU is allowed.
    """
    base = draw(kernel_requests(max_ops=2)).model_dump(mode="json")
    base["dfbs"][0]["dtype"] = "f32"
    other = draw(st.integers(0, len(base["dfbs"]) - 1))
    consumer: dict[str, Any] = {
        "id": "sfpu_consumer",
        "op": draw(st.sampled_from(SFPU_CONSUMERS)),
        "operands": [{"dfb": 0}],
        "result_dtype": "f32",
    }
    binary: dict[str, Any] = {
        "id": "binary",
        "op": draw(st.sampled_from(FPU_ELIGIBLE)),
        "operands": draw(st.permutations([{"dfb": 0}, {"dfb": other}])),
        "result_dtype": draw(st.sampled_from(("f32", "bf16"))),
        "same_tile_coords": True,
    }
    pair = draw(st.permutations([consumer, binary]))
    ops = draw(st.sampled_from((pair, pair + base["ops"], base["ops"] + pair)))
    return KernelcfgResolveRequest.model_validate({"arch": base["arch"], "dfbs": base["dfbs"], "ops": ops})
