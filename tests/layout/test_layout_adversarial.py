"""Adversarial soundness checks of `layout.plan`: inputs chosen to make a plan address the wrong data.

Each property compares an accepted plan with an independent model (numpy slicing of packed NZ
bytes, or brute-force evaluation of an offset); each example pins one input that was once
planned wrongly or crashed, and the typed outcome it must get instead.
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from planner.contract import request_error_from_validation
from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from planner.proofs.concrete import wrap
from planner.proofs.expr import BinOp, Const, Expr, parse_expr
from planner.testing.oracles.arith import evaluate
from planner.testing.oracles.nz_bytes import pack_nz, read_window
from planner.testing.strategies.expressions import expressions
from planner.testing.strategies.nz import aligned_loads, leading_windows, nz_tensor_specs
from tests.support.hypothesis_budget import lowered

NUMPY_DTYPES = {"INT8": np.int8, "FP16": np.float16, "FP32": np.float32}
Json = dict[str, Any]


def run(request: Json) -> LayoutPlanResponse:
    return plan(LayoutPlanRequest.model_validate(request))


def nz(name: str, shape: list[Any], dtype: str = "INT8") -> Json:
    return {"name": name, "shape": shape, "dtype": dtype, "layout": "NZ"}


def load(source: str, offsets: list[Any], shapes: list[Any], op_id: str = "l") -> Json:
    return {
        "id": op_id,
        "op": "tile.load",
        "source": source,
        "offsets": offsets,
        "shapes": shapes,
        "target_memory": "Mat",
    }


def row_offset_request(bindings: list[Json], offset: str, index_bits: int = 64) -> Json:
    return {
        "index_bits": index_bits,
        "tensors": [nz("w", [64, 64])],
        "bindings": bindings,
        "ops": [load("w", [offset, 0], [16, 32])],
    }


# --- Vacuous and borrowed facts: the bindings are one flat list for the whole function. ---


def test_an_empty_loop_elsewhere_does_not_prove_an_executed_load() -> None:
    bindings: list[Json] = [
        {"name": "k", "kind": "for", "start": 0, "stop": 0},
        {"name": "n0", "kind": "param"},
    ]
    response = run(row_offset_request(bindings, "n0"))
    assert not response.ok
    assert response.diagnostics[0].code == "nz.offset_unprovable_multiple"


def test_a_loop_that_does_not_enclose_the_load_lends_it_no_facts() -> None:
    """`for i in range(0, n)` implies n >= 1 only inside the loop; outside, n = 0 gives offset -16."""
    bindings: list[Json] = [
        {"name": "n", "kind": "param", "max": 3},
        {"name": "i", "kind": "for", "start": 0, "stop": "n"},
        {"name": "o", "kind": "assign", "expr": "n * 16 - 16"},
    ]
    response = run(row_offset_request(bindings, "o"))
    assert not response.ok
    diagnostic = response.diagnostics[0]
    assert diagnostic.code == "nz.offset_unprovable_sign"
    assert diagnostic.counterexample is not None and diagnostic.counterexample["o"] < 0


def test_a_load_inside_an_empty_loop_holds_vacuously() -> None:
    """The offset reads the loop variable, so the load runs only if the loop does: never."""
    response = run(row_offset_request([{"name": "k", "kind": "for", "start": 8, "stop": 8}], "k"))
    assert response.ok
    assert [record.status for record in response.obligations] == ["proven"] * 4  # 2 offset, 2 window


def test_facts_the_offset_reads_still_count() -> None:
    bindings: list[Json] = [
        {"name": "n", "kind": "param", "min": 1, "max": 3},
        {"name": "unused", "kind": "for", "start": 0, "stop": 0},
        {"name": "o", "kind": "assign", "expr": "n * 16 - 16"},
    ]
    assert run(row_offset_request(bindings, "o")).ok


@settings(max_examples=lowered(60))
@given(
    low=st.integers(-8, 8),
    span=st.integers(0, 8),
    scale=st.sampled_from([-16, 8, 16, 32]),
    shift=st.sampled_from([-32, -16, 0, 8, 16]),
    loop_stop=st.sampled_from(["p", "0", "p - 4"]),
)
def test_accepted_offsets_hold_for_every_call_whatever_other_loops_do(
    low: int, span: int, scale: int, shift: int, loop_stop: str
) -> None:
    """Oracle: the load runs for every admissible `p`; any plan must hold for all of them at 16 bits
    (the smallest index the blocked strides fit), the 16-row window inside the 64 rows included."""
    expr = f"p * {scale} + {shift}"
    bindings: list[Json] = [
        {"name": "p", "kind": "param", "min": low, "max": low + span},
        {"name": "i", "kind": "for", "start": 0, "stop": loop_stop},
        {"name": "o", "kind": "assign", "expr": expr},
    ]
    response = run(row_offset_request(bindings, "o", index_bits=16))
    values = [wrap(p * scale + shift, 16) for p in range(low, low + span + 1)]
    assert response.ok == all(value >= 0 and value % 16 == 0 and value + 16 <= 64 for value in values)


# --- Constants outside the index width, signs, zero and malformed windows. ---


@pytest.mark.parametrize(
    ("index_bits", "offset"),
    [(64, 2**63), (64, 2**70), (32, 2**31), (32, -(2**31) - 16), (64, "n0 * 16 + 18446744073709551616")],
)
def test_a_constant_outside_the_index_width_is_a_request_error(index_bits: int, offset: int | str) -> None:
    request = row_offset_request([{"name": "n0", "kind": "spmd", "extent": 2}], "n0")
    request["index_bits"] = index_bits
    request["ops"][0]["offsets"][0] = offset
    with pytest.raises(RequestError, match="does not fit the signed"):
        run(request)


def test_a_huge_extent_is_a_request_error() -> None:
    with pytest.raises(RequestError, match="does not fit the signed 64-bit"):
        run({"tensors": [nz("w", [2**64, 32])]})


def test_minus_zero_is_zero_and_a_wrapped_product_is_refused() -> None:
    assert run(row_offset_request([], "-0")).ops[0].offsets == [0, 0, 0, 0, 0]
    wrapped = run(row_offset_request([{"name": "nb", "kind": "param", "min": 0}], "nb * 256", index_bits=32))
    assert wrapped.diagnostics[0].code == "nz.offset_unprovable_sign"
    assert wrapped.diagnostics[0].counterexample is not None


@pytest.mark.parametrize(
    ("offset", "code"),
    [("x // 0", "nz.offset_unprovable_multiple"), ("(x * 32) // -2", "nz.offset_unprovable_sign")],
)
def test_division_by_zero_or_a_negative_constant_is_refused(offset: str, code: str) -> None:
    response = run(row_offset_request([{"name": "x", "kind": "spmd", "extent": 4}], offset))
    assert [diagnostic.code for diagnostic in response.diagnostics] == [code]


def test_a_negative_leading_extent_is_a_request_error() -> None:
    with pytest.raises(RequestError, match="negative leading extent -3"):
        run({"tensors": [nz("w", [-3, 64, 64])]})


def test_drop_dims_may_drop_only_a_unit_axis() -> None:
    """Dropping a 2-panel axis would type the result as one panel while the window holds two."""
    slice_op = {
        "id": "s",
        "op": "tensor.slice",
        "source": "w",
        "shapes": [2, 64, 64],
        "offsets": [1, 0, 0],
        "drop_dims": [0],
        "result": "x",
    }
    with pytest.raises(RequestError, match="only a size-1 axis can be dropped"):
        run({"tensors": [nz("w", [4, 64, 64])], "ops": [slice_op]})


def test_a_slice_result_may_not_reuse_an_nd_tensor_name() -> None:
    """Otherwise a later load of the ND tensor would be planned as an NZ load."""
    slice_op = {
        "id": "s",
        "op": "tensor.slice",
        "source": "w",
        "shapes": [1, 64, 64],
        "offsets": [1, 0, 0],
        "drop_dims": [0],
        "result": "x",
    }
    request = {
        "tensors": [nz("w", [4, 64, 64]), {"name": "x", "shape": [64, 64], "dtype": "INT8"}],
        "ops": [slice_op, load("x", [0, 0], [16, 32])],
    }
    with pytest.raises(RequestError, match="defined more than once"):
        run(request)


def store_request(producer: Json, bindings: list[Json] | None = None, col: Any = 0) -> Json:
    tile = {"shape": [64, 1024], "dtype": "FP32", "memory": "Acc", "producer": producer}
    return {
        "target": "a2a3",
        "tensors": [nz("o", [64, 2048], "FP32")],
        "bindings": bindings or [],
        "ops": [{"id": "st", "op": "tile.store", "dest": "o", "offsets": [0, col], "tile": tile}],
    }


def test_a_mismatched_producer_is_refused_even_when_no_split_is_needed() -> None:
    request = store_request({"m": 16, "n": 16, "k": 32})
    request["ops"][0]["tile"]["shape"] = [64, 256]
    with pytest.raises(RequestError, match="matmul producer is 16 x 16"):
        run(request)


def test_split_chunks_of_a_symbolic_column_add_to_the_quotient_without_reassociating() -> None:
    bindings = [{"name": "c", "kind": "for", "start": 0, "stop": 2048, "step": 1024}]
    response = run(store_request({"m": 64, "n": 1024, "k": 32}, bindings, "c"))
    assert response.ok
    chunks = response.ops[0].chunks or []
    assert [(chunk.col_offset, chunk.offsets[1]) for chunk in chunks] == [
        ("c", "c // 8"),
        ("c + 512", "c // 8 + 64"),
    ]
    for chunk in chunks:
        col, coordinate = parse_expr(chunk.col_offset), parse_expr(chunk.offsets[1])
        for c in (0, 1024):
            env = {"c": c}
            assert _value(coordinate, env) * 8 == _value(col, env)


def _value(expr: Expr, env: dict[str, int]) -> int:
    value = evaluate(expr, env, 64)
    assert value is not None
    return value


# --- Slices followed by loads on the slice result: the composition addresses the right panel. ---


@st.composite
def slice_then_load(draw: st.DrawFn) -> tuple[Json, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A leading-axis slice (dropping some unit axes), then an aligned load of its result.

    Returns the request, the logical parent matrix, and what the load must read (numpy slicing).
    """
    spec = draw(
        nz_tensor_specs(dtypes=tuple(NUMPY_DTYPES), ranks=(3, 4, 5), max_row_fractals=3, max_col_blocks=3)
    )
    extents = [int(extent) for extent in spec.shape]
    sizes, offsets = draw(leading_windows(extents[:-2]))
    unit_axes = [axis for axis, size in enumerate(sizes) if size == 1]
    dropped = sorted(draw(st.sets(st.sampled_from(unit_axes))) if unit_axes else set())
    slice_op = {
        "id": "s",
        "op": "tensor.slice",
        "source": "w",
        "shapes": [*sizes, *extents[-2:]],
        "offsets": [*offsets, 0, 0],
        "drop_dims": dropped,
        "result": "x",
    }
    result_shape = [size for axis, size in enumerate([*sizes, *extents[-2:]]) if axis not in dropped]
    result_spec = spec.model_copy(update={"name": "x", "shape": result_shape})
    inner = draw(aligned_loads(result_spec, "l"))
    request = {"tensors": [spec.model_dump()], "ops": [slice_op, inner.model_dump()]}
    matrix = (np.arange(prod(extents)).reshape(extents) % 251).astype(NUMPY_DTYPES[spec.dtype])
    window = matrix[tuple(slice(o, o + s) for o, s in zip(offsets, sizes, strict=True))]
    index = tuple(slice(int(o), int(o) + int(s)) for o, s in zip(inner.offsets, inner.shapes, strict=True))
    return request, matrix, window.reshape(result_shape)[index]


@given(slice_then_load())
def test_a_load_of_a_slice_result_reads_the_logical_window(
    case: tuple[Json, np.ndarray[Any, Any], np.ndarray[Any, Any]],
) -> None:
    request, matrix, expected = case
    response = run(request)
    assert response.ok, response.diagnostics
    parent, result = response.tensors
    sliced, loaded = response.ops
    strides = [int(v) for v in parent.strides]
    assert [int(v) for v in result.strides] == strides
    data = pack_nz(matrix)
    base = [int(v) for v in sliced.offsets or []]
    start = sum(o * s for o, s in zip(base, strides, strict=True)) * matrix.itemsize
    window = read_window(
        data[start:],
        matrix.dtype,
        [int(v) for v in result.shape],
        strides,
        [int(v) for v in loaded.offsets or []],
        [int(v) for v in loaded.shapes or []],
    )
    stacked = expected.reshape(-1, *expected.shape[-2:])
    np.testing.assert_array_equal(window, stacked[0] if len(stacked) == 1 else stacked)


def test_a_valid_shape_wider_than_the_tile_is_a_request_error() -> None:
    """The partition is the valid window, so a wider valid_shape would read three panels into one."""
    request = {"tensors": [nz("w", [4, 64, 64])], "ops": [load("w", [1, 0, 0], [1, 16, 32])]}
    request["ops"][0]["valid_shape"] = [3, 16, 32]
    with pytest.raises(RequestError, match=r"valid_shape\[0\] = 3 exceeds shapes\[0\] = 1"):
        run(request)


def test_a_name_may_not_be_both_a_tensor_and_a_scalar() -> None:
    request = row_offset_request([{"name": "w", "kind": "param", "min": 0, "max": 0}], "w")
    with pytest.raises(RequestError, match="both as tensors and as scalars: w"):
        run(request)


def test_a_slice_result_read_before_its_slice_is_a_request_error() -> None:
    """Read first, the name would pass for an undeclared ND tensor and the NZ load would go unplanned."""
    slice_op = {"id": "s", "op": "tensor.slice", "source": "w", "shapes": [1, 64, 64], "offsets": [1, 0, 0]}
    request = {
        "tensors": [nz("w", [4, 64, 64])],
        "ops": [load("x", [0, 0, 0], [1, 16, 32]), {**slice_op, "result": "x"}],
    }
    with pytest.raises(RequestError, match=r"reads 'x' before the tensor\.slice defining it"):
        run(request)


# --- Malformed and hostile requests: a typed answer, never a traceback. ---

_NAMES = st.sampled_from(["w", "x", "n", "k"])
_ATOMS = st.sampled_from([0, 1, -1, 8, 16, 32, -16, 2**31, 2**63, "w", "x", "n", "k", "B"])
_EXPRESSIONS = st.recursive(
    _ATOMS,
    lambda inner: st.builds(
        lambda left, op, right: f"({left}) {op} ({right})",
        inner,
        st.sampled_from(["+", "-", "*", "//", "%"]),
        inner,
    ),
    max_leaves=3,
)
_LISTS = st.lists(_EXPRESSIONS, max_size=5)
_BINDINGS = st.one_of(
    st.fixed_dictionaries({"name": _NAMES, "kind": st.just("assign"), "expr": _EXPRESSIONS}),
    st.fixed_dictionaries(
        {
            "name": _NAMES,
            "kind": st.just("for"),
            "start": _EXPRESSIONS,
            "stop": _EXPRESSIONS,
            "step": _EXPRESSIONS,
        }
    ),
    st.fixed_dictionaries({"name": _NAMES, "kind": st.sampled_from(["block_idx", "iter_arg", "param"])}),
)
_OPS = st.one_of(
    st.fixed_dictionaries(
        {"op": st.just("tile.load"), "source": _NAMES, "offsets": _LISTS, "shapes": _LISTS},
        optional={"valid_shape": _LISTS, "target_memory": st.sampled_from(["Mat", "Vec"])},
    ),
    st.fixed_dictionaries(
        {"op": st.just("tensor.slice"), "source": _NAMES, "offsets": _LISTS, "shapes": _LISTS},
        optional={"drop_dims": st.lists(st.integers(-5, 5), max_size=2), "result": _NAMES},
    ),
    st.fixed_dictionaries({"op": st.just("tensor.reshape"), "source": _NAMES, "shape": _LISTS}),
    st.fixed_dictionaries(
        {
            "op": st.just("tile.store"),
            "dest": _NAMES,
            "offsets": _LISTS,
            "tile": st.fixed_dictionaries(
                {"shape": _LISTS, "dtype": st.just("FP32"), "memory": st.sampled_from(["Acc", "Vec"])},
                optional={
                    "producer": st.fixed_dictionaries({"m": st.just(64), "n": st.just(64), "k": st.just(16)})
                },
            ),
        }
    ),
    st.fixed_dictionaries(
        {"op": st.sampled_from(["call", "tile.add"]), "args": st.lists(_NAMES, max_size=2)}
    ),
)
_TENSORS = st.fixed_dictionaries(
    {
        "name": _NAMES,
        "shape": st.lists(st.sampled_from([16, 32, 64, 2, 1, 0, -2, "B"]), min_size=1, max_size=5),
        "dtype": st.sampled_from(["INT8", "FP32"]),
        "layout": st.sampled_from(["NZ", "NZ", "ND"]),
    }
)


@given(
    st.fixed_dictionaries(
        {"tensors": st.lists(_TENSORS, max_size=2), "bindings": st.lists(_BINDINGS, max_size=3)},
        optional={"target": st.sampled_from(["a2a3", "a5"]), "index_bits": st.sampled_from([8, 32, 64])},
    ),
    st.lists(_OPS, max_size=3),
)
def test_hostile_requests_get_a_typed_answer(body: Json, ops: list[Json]) -> None:
    body["ops"] = [{**op, "id": f"o{index}"} for index, op in enumerate(ops)]
    try:
        request = LayoutPlanRequest.model_validate(body)
    except ValidationError as exc:
        assert request_error_from_validation(exc).code.startswith("request.")
        return
    try:
        response = plan(request)
    except RequestError:
        return
    assert response.ok or len(response.diagnostics) == 1


@given(expressions(("n0", "k0"), bits=64))
def test_a_planned_coordinate_reparses_as_the_whole_offset_divided(offset: int | str) -> None:
    """7.4: the coordinate text must parse back to FloorDiv(offset as written, 16), never a regrouping."""
    tree = parse_expr(offset)
    if isinstance(tree, Const):
        return
    bindings: list[Json] = [
        {"name": "a", "kind": "spmd", "extent": 4},
        {"name": "n0", "kind": "assign", "expr": "a * 256"},
        {"name": "k0", "kind": "for", "start": 0, "stop": 512, "step": 32},
    ]
    response = run(row_offset_request(bindings, str(offset)))
    event(f"planned: {response.ok}")
    if response.ok:
        assert parse_expr((response.ops[0].offsets or [])[2]) == BinOp("//", tree, Const(16))


def test_a_dynamic_batch_slice_keeps_the_symbolic_panel_and_the_load_stays_relative() -> None:
    slice_op = {
        "id": "s",
        "op": "tensor.slice",
        "source": "w",
        "shapes": [1, 64, 64],
        "offsets": ["b", 0, 0],
        "drop_dims": [0],
        "result": "x",
    }
    request = {
        "bindings": [{"name": "b", "kind": "param"}],
        "tensors": [nz("w", ["B", 64, 64])],
        "ops": [slice_op, load("x", [16, 32], [16, 32])],
    }
    response = run(request)
    assert response.ok
    assert [op.offsets for op in response.ops] == [["b", 0, 0, 0, 0], [0, 1, 1, 0, 0]]
    assert [tensor.shape for tensor in response.tensors] == [["B", 2, 4, 16, 32], [1, 2, 4, 16, 32]]
