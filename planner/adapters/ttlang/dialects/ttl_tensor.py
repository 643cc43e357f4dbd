"""TTL tensor-level compute ops, as `OpSpec` records: read and printed back, never planned.

Upstream lowers each of them to a `ttl.compute` of tile ops (`convert-ttl-to-compute`) before
kernel configuration, so they carry no execution semantics of their own: a module holding
them plans around them (docs/design/kernel-config.md section 10).
"""

from __future__ import annotations

from planner.adapters.ttlang.dialects.op_table import OpSpec

UNARY_NAMES = (
    "exp", "exp2", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "neg", "abs", "relu", "floor", "recip",
    "sin", "cos", "tan", "asin", "acos", "atan", "ceil", "sign", "gelu", "silu", "hardsigmoid", "expm1",
    "square", "softsign", "signbit", "frac", "trunc",
)  # fmt: skip
"""The unary elementwise family, each a tensor op `ttl.<name>` and a tile op `ttl.tile_<name>`."""

BINARY_NAMES = ("add", "sub", "mul", "div", "max", "min", "eq", "ne", "gt", "lt")
"""The binary elementwise family, paired the same way."""

_UNARY = "$input attr-dict `:` type($input) `->` type($result)"
_BINARY = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
_STAGED = "`ins` `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)"

TENSOR_SPECS = (
    *(OpSpec(name, _UNARY, ("input",), ("result",)) for name in UNARY_NAMES),
    *(OpSpec(name, _BINARY, ("lhs", "rhs"), ("result",)) for name in BINARY_NAMES),
    OpSpec("matmul", _BINARY, ("lhs", "rhs"), ("result",)),
    OpSpec("typecast", "$input attr-dict `:` functional-type(operands, results)", ("input",), ("result",)),
    OpSpec("transpose", _UNARY, ("input",), ("result",)),
    OpSpec(
        "block.broadcast",
        "$input `dims` `=` $dims `,` `shape` `=` $shape attr-dict `:` type($input) `->` type($result)",
        ("input",),
        ("result",),
        ("dims:dense", "shape:dense"),
    ),
    OpSpec(
        "reduce",
        "$input `,` $scaler custom<ReduceType>($reduce_type) $dims attr-dict `:` "
        "`(` type($input) `,` type($scaler) `)` `->` type($result)",
        ("input", "scaler"),
        ("result",),
        ("reduce_type", "dims:dense"),
    ),
    OpSpec("fill", "$value attr-dict `:` type($result)", results=("result",), props=("value:f32",)),
    OpSpec(
        "mul_unary_const",
        "$input `,` $value attr-dict `:` type($input) `->` type($result)",
        ("input",),
        ("result",),
        ("value:f32",),
    ),
    OpSpec("store", "$tensor `,` $view attr-dict `:` type($tensor) `,` type($view)", ("tensor", "view")),
    OpSpec("tensor_store", "$tensor `,` $cb attr-dict `:` type($tensor) `,` type($cb)", ("tensor", "cb")),
    OpSpec("compute_pipeline", _STAGED + " $body", ("inputs*",), ("outputs*",), regions=("body",)),
    OpSpec(
        "compute_stage",
        "`ins` `(` $inputs `)` `indexing_maps` `=` $indexing_maps `iterator_types` `=` $iterator_types "
        "attr-dict `:` functional-type($inputs, $outputs) $body",
        ("inputs*",),
        ("outputs*",),
        ("indexing_maps", "iterator_types"),
        regions=("body",),
    ),
    OpSpec(
        "source_scalar_scope",
        _STAGED + " `producer` $producer `consumer` $consumer",
        ("inputs*",),
        ("outputs*",),
        regions=("producer", "consumer"),
    ),
    *(
        OpSpec(name, "$values attr-dict `:` type($values)", ("values*",), terminator=True)
        for name in ("compute_pipeline_yield", "compute_stage_yield", "source_scalar_yield")
    ),
)
