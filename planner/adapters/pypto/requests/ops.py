"""Ops of a function body -> `layout.plan` ops (docs/design/nz-layout.md sections 6, 11, 12).

Each `pl.*` call is read by its IR op (short DSL and namespaced spellings alike): NZ loads,
slices, reshapes, views and accumulator stores become their protocol ops; a call to another
program function becomes a call op; any other op reading an NZ tensor becomes an `OtherOp`
the planner refuses. Tile types are tracked so a store knows its source tile and the matmul
that produced it (the N-split's input).
"""

from __future__ import annotations

import ast
from typing import Final

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import SCALAR_CALLS, callee_of, constant_value
from planner.adapters.pypto.base.refusal import KernelRefusal
from planner.adapters.pypto.reading.program import json_literal
from planner.adapters.pypto.reading.types import TensorType, TileType, TypeReader
from planner.adapters.pypto.requests.arguments import NOT_NZ, OP_SPELLINGS, ArgumentReader, nz_name
from planner.adapters.pypto.requests.matmul import matmul_producer, matmul_result_type
from planner.adapters.pypto.requests.model import (
    Arguments,
    Target,
    TensorValue,
    TileValue,
    Unknown,
    Value,
    Window,
)
from planner.layout.protocol import (
    OP_KINDS,
    CallOp,
    LoadOp,
    Memory,
    OtherOp,
    ReshapeOp,
    SliceOp,
    StoreOp,
    StoreTile,
    ViewOp,
)
from planner.proofs.expr import Const, Expr, Name

YIELD: Final = "pl.yield_"
_DEFAULT_TILE_MEMORY: Final[Memory] = "Vec"  # a pl.Tile without a memory slot lives in Vec


class OpReader(ArgumentReader):
    """Reads expressions and the ops in them."""

    def _value(self, node: ast.expr, target: Target | None = None) -> Value:
        """Visit an expression for the ops it contains; the value of a name or op result."""
        if isinstance(node, ast.Name):
            return self._values.get(node.id, Unknown())
        if isinstance(node, ast.Call) and self.reads_call(callee_of(node) or ""):
            return self._call(node, target)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, target)
        if isinstance(node, ast.NamedExpr):
            return self._named_expression(node)
        self._scan_children(node)
        return Unknown()

    def _named_expression(self, node: ast.NamedExpr) -> Value:
        """Source: `(n := v)` binds `n` as `n = v` would (a scalar stays unknown); printed IR has none."""
        if self._program.form != "source":
            raise self._unsupported(node, "an assignment expression (:=)")
        value = self._value(node.value)
        self._assign(node.target.id, value if isinstance(value, TensorValue | TileValue) else Unknown())
        return value

    def reads_call(self, callee: str) -> bool:
        """Calls the walk interprets as ops (see `reads_ir`)."""
        return reads_ir(callee)

    def _subscript(self, node: ast.Subscript, target: Target | None) -> Value:
        """Printed IR has no tensor subscripts: one reading an NZ tensor is an unsupported consumer."""
        base = self._value(node.value)
        self._scan_children(node.slice)
        if isinstance(base, TensorValue) and base.is_nz:
            self._add_op(OtherOp(id=self._next_id("getitem"), op="getitem", args=[base.name]), node, {})
        return Unknown()

    def _scan_children(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._value(child)

    def _call(self, call: ast.Call, target: Target | None) -> Value:
        callee = callee_of(call) or ""
        if any(isinstance(argument, ast.Starred) for argument in call.args) or any(
            keyword.arg is None for keyword in call.keywords
        ):
            raise self._unsupported(call, "*args or **kwargs in a call")
        if callee.startswith("self."):
            return self._function_call(call, callee.removeprefix("self."), target, method=True)
        op = OP_SPELLINGS.get(callee)
        handlers = {
            "tile.load": self._load,
            "tensor.slice": self._slice,
            "tensor.reshape": self._reshape,
            "tensor.view": self._view,
            "tensor.reinterpret_view": self._view,
            "tile.store": self._store,
            "matmul": self._matmul,
            "matmul_acc": self._matmul,
        }
        if op is not None:
            return handlers[op](call, op, target)
        if callee == YIELD:
            values = self._yield_values(call)
            return values[0] if len(values) == 1 else Unknown()
        self._consume(call, callee.removeprefix("pl."))
        return Unknown()

    def _load(self, call: ast.Call, op: str, target: Target | None) -> Value:
        """Section 6.1: `tile.load(tensor, offsets, shapes[, valid_shape], target_memory=...)`."""
        arguments, extra = self._bind_arguments(call, op)
        source = self._tensor_argument(arguments.get("tensor"))
        memory_node = extra.get("target_memory")
        memory = self._types.memory(memory_node) if memory_node is not None else None
        if memory_node is not None and memory is None:
            raise self._unsupported(memory_node, f"the target memory {ast.unparse(memory_node)!r}")
        if target is not None and target.tile is not None:
            tile: TileType | None = target.tile
        else:
            tile = self._loaded_tile(arguments.get("shapes"), source, memory)
        if source is None or not source.is_nz:
            self._consume(call, op, skip=("tensor",))
            return TileValue(tile)
        shapes = self._list(arguments, "shapes", call)
        offsets = self._list(arguments, "offsets", call)
        self._require_window_rank(call, source, offsets, shapes)
        load = LoadOp(
            id=self._next_id(op),
            source=source.name,
            offsets=self._json_list(offsets),
            shapes=self._json_list(shapes),
            valid_shape=self._json_optional(arguments, "valid_shape"),
            target_memory=memory,
        )
        self._add_op(load, call, arguments, tile=tile)
        return TileValue(tile)

    def _loaded_tile(
        self, shapes: ast.expr | None, source: TensorValue | None, memory: Memory | None
    ) -> TileType | None:
        """An unannotated load result: the logical 2-D tile of the trailing `shapes` (section 6.1.6)."""
        if source is None or not isinstance(shapes, ast.List | ast.Tuple) or len(shapes.elts) < 2:
            return None
        extents = [constant_value(extent, self._constants) for extent in shapes.elts[-2:]]
        if any(extent is None for extent in extents):
            return None
        return TileType(
            tuple(Const(extent) for extent in extents if extent is not None), source.type.dtype, memory
        )

    def _slice(self, call: ast.Call, op: str, target: Target | None) -> Value:
        """Section 6.2: `tensor.slice(tensor, shapes, offsets[, valid_shape[, drop_dims]])`."""
        arguments, _ = self._bind_arguments(call, op)
        source = self._tensor_argument(arguments.get("tensor"))
        if source is None or not source.is_nz:
            self._consume(call, op, skip=("tensor",))
            return target.tensor if target and target.tensor else Unknown()
        window = Window(
            self._list(arguments, "offsets", call),
            self._list(arguments, "shapes", call),
            self._optional_list(arguments, "valid_shape"),
            self._drop_dims(arguments.get("drop_dims")),
        )
        self._require_window_rank(call, source, window.offsets, window.shapes)
        return self._nz_window(call, source, window, target, arguments)

    def _require_window_rank(
        self, call: ast.Call, source: TensorValue, offsets: tuple[Expr, ...], shapes: tuple[Expr, ...]
    ) -> None:
        """A window of an NZ tensor names every axis: which axes a shorter list means is not read
        (`pl.slice(w, [K, N], [h, 0, 0])` on `[H, K, N]`), so its kernel is refused, not guessed."""
        rank = len(source.type.shape)
        if len(offsets) == rank and len(shapes) == rank:
            return
        position = self._source.position(call)
        raise KernelRefusal(
            codes.UNEVALUATED_NZ,
            f"{ast.unparse(call)!r} windows the rank-{rank} NZ tensor {self._spelled(source.name)!r} "
            f"with {len(offsets)} offsets and {len(shapes)} extents: NZ blocking needs one of each per "
            f"axis. Fix: give every axis its offset and extent (1 for an axis the window takes one "
            f"index of)",
            position.line,
            position.column,
        )

    def _nz_window(
        self, node: ast.expr, source: TensorValue, window: Window, target: Target | None, arguments: Arguments
    ) -> Value:
        """Section 6.2: a window of an NZ tensor is a `tensor.slice` whose result the planner defines."""
        result = target.tensor if target and target.tensor else None
        if result is None:
            kept = tuple(extent for axis, extent in enumerate(window.shapes) if axis not in window.drop_dims)
            inferred = TensorType(kept, source.type.dtype, "NZ")
            result = self._declare(target.name if target else None, inferred, node, "slice", in_request=False)
        self._op_results.add(result.name)  # the planner defines a slice result from the op itself
        slice_op = SliceOp(
            id=self._next_id("tensor.slice"),
            source=source.name,
            shapes=self._json_list(window.shapes),
            offsets=self._json_list(window.offsets),
            valid_shape=self._json_list(window.valid_shape) if window.valid_shape else None,
            drop_dims=list(window.drop_dims) or None,
            result=result.name,
        )
        self._add_op(slice_op, node, arguments)
        return result

    def _reshape(self, call: ast.Call, op: str, target: Target | None) -> Value:
        """Section 6.3: only a whole-tensor flatten is kept; the planner decides."""
        arguments, _ = self._bind_arguments(call, op)
        source = self._tensor_argument(arguments.get("tensor"))
        if source is None or not source.is_nz:
            self._consume(call, op, skip=("tensor",))
        else:
            shape = self._json_list(self._list(arguments, "shape", call))
            self._add_op(ReshapeOp(id=self._next_id(op), source=source.name, shape=shape), call, arguments)
        return target.tensor if target and target.tensor else Unknown()

    def _view(self, call: ast.Call, op: str, target: Target | None) -> Value:
        """Section 6.4: a view of an NZ tensor is refused by the planner."""
        source = self._tensor_argument(call.args[0]) if call.args else None
        if source is None or not source.is_nz:
            self._consume(call, op, skip=(0,))
        else:
            self._add_op(ViewOp(id=self._next_id(op), op=op, source=source.name), call, {})
        return target.tensor if target and target.tensor else Unknown()

    def _store(self, call: ast.Call, op: str, target: Target | None) -> Value:
        """Section 11: `tile.store(tile, offsets, output)`; the result aliases the destination."""
        arguments, extra = self._bind_arguments(call, op)
        destination = self._tensor_argument(arguments.get("output"))
        if destination is None or not destination.is_nz:
            self._consume(call, op, skip=("output",))
            return target.tensor if target and target.tensor else (destination or Unknown())
        if "partition" in arguments and not self._stamped:
            raise self._unsupported(call, "a store that already carries a partition in an unstamped function")
        offsets = self._list(arguments, "offsets", call)
        self._store_into(call, destination, arguments.get("tile"), offsets, extra, arguments)
        return target.tensor if target and target.tensor else destination

    def _store_into(
        self,
        node: ast.expr,
        destination: TensorValue,
        tile_node: ast.expr | None,
        offsets: tuple[Expr, ...],
        extra: Arguments,
        arguments: Arguments,
    ) -> None:
        """Section 11: a write of a tile into an NZ tensor is an accumulator store."""
        tile_value = self._value(tile_node) if tile_node is not None else Unknown()
        tile = tile_value if isinstance(tile_value, TileValue) else TileValue(None)
        if tile.type is None:
            raise self._source.error(
                codes.UNKNOWN_TILE_TYPE,
                "the tile stored into NZ tensor "
                f"{self._spelled(destination.name)!r} has no known type; annotate it with pl.Tile[...]",
                node,
            )
        store = StoreOp(
            id=self._next_id("tile.store"),
            dest=destination.name,
            offsets=self._json_list(offsets),
            tile=StoreTile(
                shape=self._json_list(tile.type.shape),
                dtype=tile.type.dtype,
                memory=tile.type.memory or _DEFAULT_TILE_MEMORY,
                valid_shape=self._json_list(tile.type.valid_shape) if tile.type.valid_shape else None,
                producer=tile.producer,
            ),
            attrs={name: json_literal(value) for name, value in sorted(extra.items())},
        )
        self._add_op(store, node, arguments)

    def _matmul(self, call: ast.Call, op: str, target: Target | None) -> Value:
        """Section 12: an Acc tile made by a matmul carries its producer for the N-split."""
        values = [self._matmul_operand(argument) for argument in call.args]
        for keyword in call.keywords:
            self._value(keyword.value)
        names = [nz_name(value) for value in values]
        if any(name != NOT_NZ for name in names):
            self._add_op(OtherOp(id=self._next_id(op), op=op, args=names), call, {})
        operands = [self._operand_tile(value) for value in values]
        accumulator = operands.pop(0) if op == "matmul_acc" and operands else None
        flags = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg is not None}
        producer = matmul_producer(operands, flags) if len(operands) == 2 else None
        if target is not None and target.tile is not None:
            return TileValue(target.tile, producer)
        if accumulator is not None and accumulator.type is not None:
            return TileValue(accumulator.type, producer)
        if "out_dtype" not in flags:
            return TileValue(matmul_result_type(operands, producer, None), producer)
        result_dtype = self._types.known_dtype(flags["out_dtype"])
        if result_dtype is None:
            return TileValue(None, producer)  # an out_dtype the reader does not evaluate: type unknown
        return TileValue(matmul_result_type(operands, producer, result_dtype), producer)

    def _matmul_operand(self, node: ast.expr) -> Value:
        """A positional argument of a matmul (printed IR: its value as written)."""
        return self._value(node)

    def _operand_tile(self, value: Value) -> TileValue:
        """A matmul operand as a tile (printed IR: only tiles are operands)."""
        return value if isinstance(value, TileValue) else TileValue(None)

    def _function_call(self, call: ast.Call, callee: str, target: Target | None, *, method: bool) -> Value:
        """Section 6: a call to another program function forwards its tensors unchanged. `self.f`
        (`method`) reaches the methods of the caller's own program class, a bare `f` the functions."""
        operands = self._operands(call)
        if operands:
            self._add_op(CallOp(id=self._next_id("call"), callee=callee, args=operands), call, {})
        if target is not None and target.tensor is not None:
            return target.tensor
        returned = self._callee_return(callee, method=method)
        if returned is None:
            return Unknown()
        return self._declare(target.name if target else None, returned, call, "call")

    def _consume(self, call: ast.Call, op: str, skip: tuple[str | int, ...] = ()) -> None:
        """Any other op reading an NZ tensor is an `OtherOp` (the planner refuses it, section 6)."""
        operands = self._operands(call, skip)
        if operands:
            self._add_op(OtherOp(id=self._next_id(op), op=op, args=operands), call, {})

    def _yield_values(self, node: ast.expr) -> list[Value]:
        """`pl.yield_(a, b)`: tensors and tiles pass through; scalars merge into unknown values."""
        assert isinstance(node, ast.Call)
        values = [self._value(argument) for argument in node.args]
        return [value if isinstance(value, TensorValue | TileValue) else Unknown() for value in values]

    def _next_id(self, op: str) -> str:
        prefix = OP_KINDS.get(op, op.rsplit(".", 1)[-1])
        return f"{prefix}{len(self._out.ops)}"

    def _callee_return(self, callee: str, *, method: bool) -> TensorType | None:
        """The single tensor the called program function returns, if its type is fully static."""
        for index in self._program.callees.returning.get(callee, ()):
            function = self._program.functions[index]
            if not function.reached_from(self._function, via_self=method):
                continue
            returns = function.node.returns
            assert returns is not None  # `returning` holds only the functions that declare one
            reader = TypeReader(self._source, self._static_shape)
            try:
                returned = reader.read(returns)
            except AdapterInputError:
                return None  # that kernel reports its own annotation; this call forwards nothing
            if isinstance(returned, TensorType) and all(isinstance(e, Const) for e in returned.shape):
                return TensorType(returned.shape, returned.dtype, returned.layout, returned.stride)
        return None

    def _static_shape(self, node: ast.expr) -> Expr:
        value = constant_value(node, self._program.constants)
        return Const(value) if value is not None else Name("dynamic")


def reads_ir(callee: str) -> bool:
    """Calls the walk interprets: `pl.*` ops and calls to other program functions."""
    return callee.startswith(("pl.", "self.")) and callee not in SCALAR_CALLS
