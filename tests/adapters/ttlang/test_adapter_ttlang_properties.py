"""Property tests: generated TT-Lang kernels, written both as MLIR and as the request a person would build.

The MLIR goes through the adapter; the model's own request goes straight to
`kernelcfg.resolve`. They must agree, a plan must apply idempotently, and a refusal must
leave the text byte-identical. Generic-form printing of the same IR must not change anything.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from xdsl.printer import Printer

from planner.adapters.ttlang import build_requests, plan_text
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest

DTYPES = ("f32", "bf16", "f16", "si32")
BCAST = {"col": 1, "row": 2, "scalar": 3}
REDUCE = ("row", "col", "scalar")


@dataclass(frozen=True)
class Read:
    """A tile read with `tensor.extract` from buffer slot `buffer` at column `column`."""

    buffer: int
    column: int


@dataclass(frozen=True)
class Value:
    """The result of the op at `position`."""

    position: int


Source = Read | Value


@dataclass
class Kernel:
    arch: str | None
    buffers: list[tuple[int, str]]  # (cb_index, dtype) per buffer slot
    func_attrs: dict[str, str]
    ops: list[tuple[Any, ...]]
    lines: list[str] = field(default_factory=list)
    request_ops: list[dict[str, Any]] = field(default_factory=list)
    result_types: list[str | None] = field(default_factory=list)
    used_dfbs: dict[int, str] = field(default_factory=dict)

    def tile(self, dtype: str) -> str:
        return f"!ttcore.tile<32x32, {dtype}>"

    def source(self, source: Source) -> tuple[str, str, dict[str, Any]]:
        """SSA name, dtype and request operand of a source (a read emits its extract)."""
        if isinstance(source, Value):
            dtype = self.result_types[source.position]
            assert dtype is not None
            return f"%v{source.position}", dtype, {"value": f"v{source.position}"}
        index, dtype = self.buffers[source.buffer]
        name = f"%r{len(self.lines)}"
        self.lines.append(
            f"    {name} = tensor.extract %t{source.buffer}[%c0, %c{source.column}] : "
            f"tensor<1x2x{self.tile(dtype)}>"
        )
        self.used_dfbs[index] = dtype
        return name, dtype, {"dfb": index}

    def emit(self, position: int, op: tuple[Any, ...]) -> None:
        kind = op[0]
        handler = getattr(self, f"_{kind}")
        handler(position, *op[1:])

    def _record(
        self, op_id: str, mnemonic: str, operands: list[dict[str, Any]], result: str | None, **extra: Any
    ) -> None:
        self.request_ops.append(
            {
                "id": op_id,
                "op": mnemonic,
                "operands": operands,
                "result_dtype": result,
                "same_tile_coords": False,
                "explicit_strategy": None,
                "attrs": {},
                **extra,
            }
        )
        self.result_types.append(result)

    def _unary(self, position: int, mnemonic: str, source: Source) -> None:
        name, dtype, operand = self.source(source)
        tile = self.tile(dtype)
        self.lines.append(f"    %v{position} = ttl.{mnemonic} {name} into dst[%c0] : {tile} -> {tile}")
        self._record(f"v{position}", mnemonic, [operand], dtype)

    def _binary(self, position: int, mnemonic: str, lhs: Source, rhs: Source, strategy: str | None) -> None:
        a, a_type, a_operand = self.source(lhs)
        b, b_type, b_operand = self.source(rhs)
        attr = (
            f" {{ttl.tile_execution_strategy = #ttl.tile_execution_strategy<{strategy}>}}" if strategy else ""
        )
        self.lines.append(
            f"    %v{position} = ttl.{mnemonic} {a}, {b} into dst[%c0]{attr} : {self.tile(a_type)}, "
            f"{self.tile(b_type)} -> {self.tile(a_type)}"
        )
        same = isinstance(lhs, Read) and isinstance(rhs, Read) and lhs.column == rhs.column
        self._record(
            f"v{position}",
            mnemonic,
            [a_operand, b_operand],
            a_type,
            same_tile_coords=same,
            explicit_strategy=strategy,
        )

    def _bcast(self, position: int, kind: str, source: Read) -> None:
        name, dtype, operand = self.source(source)
        tile = self.tile(dtype)
        self.lines.append(
            f"    %v{position} = ttl.tile_bcast {name}, {name} {BCAST[kind]} : i32 into dst[%c0] : "
            f"({tile}, {tile}) -> {tile}"
        )
        self._record(
            f"v{position}",
            "tile_bcast",
            [operand, operand],
            dtype,
            same_tile_coords=True,
            attrs={"kind": kind},
        )

    def _reduce(self, position: int, dim: str, source: Read, scaler: Read) -> None:
        a, a_type, a_operand = self.source(source)
        s, s_type, s_operand = self.source(scaler)
        ta, ts = self.tile(a_type), self.tile(s_type)
        self.lines.append(
            f"    %v{position} = ttl.tile_reduce {a}, {s}, {a} 0 : i32 <reduce_dim_{dim}> into dst[%c0] : "
            f"({ta}, {ts}, {ta}) -> {ta}"
        )
        self._record(
            f"v{position}",
            "tile_reduce",
            [a_operand, s_operand, a_operand],
            a_type,
            same_tile_coords=source.column == scaler.column,
            attrs={"dim": dim},
        )

    def _copy(self, position: int, source: Read) -> None:
        name, dtype, operand = self.source(source)
        tile = self.tile(dtype)
        self.lines.append(
            f"    %k{position}, %v{position} = ttl.copy_tile {name}[%c0, %c0] into dst[%c0] : "
            f"{tile} -> !ttl.dst, {tile}"
        )
        index = {"scalar": "index"}
        self._record(f"v{position}", "copy_tile", [operand, index, index], dtype)

    def _fill(self, position: int, dtype: str) -> None:
        self.lines.append(f"    %v{position} = ttl.tile_fill 1.0 into dst[%c0] : {self.tile(dtype)}")
        self._record(f"v{position}", "tile_fill", [], dtype)

    def _store(self, position: int, value: Value) -> None:
        name, dtype, operand = self.source(value)
        index, view_type = self.buffers[0]
        self.used_dfbs[index] = view_type
        self.lines.append(
            f"    ttl.tile_store {name}, %t0[%c0, %c0] from dst[%c0] : "
            f"{self.tile(dtype)}, tensor<1x2x{self.tile(view_type)}>"
        )
        index_operand = {"scalar": "index"}
        self._record(
            f"tile_store#{position}",
            "tile_store",
            [operand, {"dfb": index}, index_operand, index_operand],
            None,
        )

    def text(self) -> str:
        for position, op in enumerate(self.ops):
            self.emit(position, op)
        args = ", ".join(f"%a{i}: tensor<1x2x{self.tile(t)}>" for i, (_, t) in enumerate(self.buffers))
        attrs = ", ".join(f"{k} = {v}" for k, v in self.func_attrs.items())
        header = [
            f"module attributes {{ttl.target_arch = #ttcore.arch<{self.arch}>}} {{"
            if self.arch
            else "module {",
            f"  func.func @g({args})" + (f" attributes {{{attrs}}}" if attrs else "") + " {",
            "    %c0 = arith.constant 0 : index",
            "    %c1 = arith.constant 1 : index",
        ]
        for slot, (index, dtype) in enumerate(self.buffers):
            cb = f"!ttl.cb<[1, 2], {self.tile(dtype)}, 2>"
            tensor = f"tensor<1x2x{self.tile(dtype)}>"
            header.append(f"    %cb{slot} = ttl.bind_cb {{cb_index = {index}, block_count = 2}} : {cb}")
            header.append(f"    %t{slot} = ttl.attach_cb %a{slot}, %cb{slot} : ({tensor}, {cb}) -> {tensor}")
        return "\n".join([*header, *self.lines, "    return", "  }", "}", ""])

    def request(self) -> KernelcfgResolveRequest:
        policy: dict[str, Any] = {}
        for attr, name in (("fp32_dest_acc_en", "fp32_dest_acc"), ("dst_full_sync_en", "dst_full_sync")):
            if attr in self.func_attrs:
                policy[name] = self.func_attrs[attr] == "true"
        if "ttl.unpack_to_dest_fp32" in self.func_attrs:
            body = self.func_attrs["ttl.unpack_to_dest_fp32"].removeprefix("array<i32").strip(":> ")
            policy["unpack_to_dest_fp32"] = [int(v) for v in body.split(",")] if body else []
        declared = dict(self.used_dfbs)  # a buffer read by no tile op is still declared (its index is taken)
        for index, dtype in self.buffers:
            declared.setdefault(index, dtype)
        return KernelcfgResolveRequest.model_validate(
            {
                "arch": self.arch,
                "function": "g",
                "policy": policy,
                "ops": self.request_ops,
                "dfbs": [{"index": i, "dtype": t} for i, t in sorted(declared.items())],
            }
        )


@st.composite
def kernels(draw: st.DrawFn) -> Kernel:
    indices = draw(st.lists(st.sampled_from((0, 1, 2, 3, 7, 16, 33)), min_size=1, max_size=3, unique=True))
    buffers = [(index, draw(st.sampled_from(DTYPES))) for index in indices]
    reads = st.builds(Read, st.integers(0, len(buffers) - 1), st.integers(0, 1))
    ops: list[tuple[Any, ...]] = []
    for position in range(draw(st.integers(1, 6))):
        sources: st.SearchStrategy[Source] = (
            st.one_of(reads, st.builds(Value, st.integers(0, position - 1))) if position else reads
        )
        choices = [
            st.tuples(st.just("unary"), st.sampled_from(("tile_exp", "tile_abs")), sources),
            st.tuples(
                st.just("binary"),
                st.sampled_from(("tile_add", "tile_sub", "tile_mul", "tile_max")),
                sources,
                sources,
                st.sampled_from((None, None, "fpu", "sfpu")),
            ),
            st.tuples(st.just("bcast"), st.sampled_from(sorted(BCAST)), reads),
            st.tuples(st.just("reduce"), st.sampled_from(REDUCE), reads, reads),
            st.tuples(st.just("copy"), reads),
            st.tuples(st.just("fill"), st.sampled_from(DTYPES)),
        ]
        if position:
            choices.append(st.tuples(st.just("store"), st.builds(Value, st.integers(0, position - 1))))
        op = draw(st.one_of(choices))
        if op[0] == "store" and isinstance(op[1], Value) and ops[op[1].position][0] == "store":
            op = ("fill", "f32")
        if any(isinstance(s, Value) and ops[s.position][0] == "store" for s in op[1:]):
            op = ("copy", Read(0, 0))
        ops.append(op)
    func_attrs: dict[str, str] = {}
    for attr in ("fp32_dest_acc_en", "dst_full_sync_en"):
        value = draw(st.sampled_from((None, "true", "false")))
        if value is not None:
            func_attrs[attr] = value
    if draw(st.booleans()):
        listed = draw(st.lists(st.sampled_from(indices), unique=True))
        func_attrs["ttl.unpack_to_dest_fp32"] = (
            f"array<i32: {', '.join(map(str, listed))}>" if listed else "array<i32>"
        )
    arch = draw(st.sampled_from((None, "wormhole_b0", "blackhole")))
    return Kernel(arch, buffers, func_attrs, ops)


def _generic(text: str) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(parse_chunk(Chunk(text, 0, 1), "g").module)
    return stream.getvalue()


@given(kernels(), st.booleans())
def test_adapter_agrees_with_resolve_on_the_model(kernel: Kernel, generic: bool) -> None:
    text = kernel.text()
    if generic:
        text = _generic(text)
    expected = kernel.request()
    assert build_requests(text) == [expected]
    outcome = plan_text(text, filename="g.mlir")
    response = resolve(expected)
    assert outcome.report["functions"][0]["response"] == response.model_dump(mode="json")
    assert outcome.ok == response.ok
    if not response.ok:
        assert outcome.text == text
        assert outcome.diagnostics and ": error: " in outcome.diagnostics[0]
        return
    assert response.plan is not None
    assert outcome.text.count("ttl.tile_execution_strategy = ") == len(response.plan.strategies)
    again = plan_text(outcome.text, filename="g.mlir")
    assert again.ok and again.text == outcome.text
