"""Tensor windows and writes as users write them (docs/design/nz-layout.md section 18).

Source spells a window as a subscript `w[a:b, c:d]` (steps of 1; an integer index drops the
axis) or as `pl.slice(w, shape, offset[, valid_shape])`, and a write as subscript assignment
`out[a:b, c:d] = v` or `pl.assemble(out, v, offset)`. The lowering rule decides what the
compiler makes of a window of an NZ tensor inside a kernel:

- it feeds a matmul operand: the Mat `tile.load` of that window;
- it selects leading (batch) axes only: a `tensor.slice`;
- otherwise: a tile load into Vec (which the planner refuses: NZ loads only into Mat).

Outside a kernel every window is a `tensor.slice`. A write into an NZ tensor is the
accumulator store of section 11. Windows of other tensors are matmul operands in Mat.
Printed IR has `pl.slice` only: one whose result feeds a matmul in a kernel becomes the load
(and the text is rewritten to it); every other one stays a slice.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping
from typing import Final

from planner.adapters.pypto.base.expressions import callee_of, dotted_name
from planner.adapters.pypto.reading.program import Program, ProgramFunction
from planner.adapters.pypto.reading.types import TileType
from planner.adapters.pypto.requests.feeds import matmul_fed_windows
from planner.adapters.pypto.requests.model import (
    Arguments,
    Target,
    TensorValue,
    TileValue,
    Unknown,
    Value,
    Window,
)
from planner.adapters.pypto.requests.ops import OpReader
from planner.layout.protocol import LoadOp, Memory, OtherOp
from planner.proofs.expr import BinOp, Const, Expr, Name, Neg, format_expr
from planner.proofs.protocol import AssignBinding

_ASSEMBLE_CALLS: Final = frozenset({"pl.assemble", "pl.tensor.assemble"})
_ASSEMBLE_SIGNATURE: Final = ("target", "source", "offset")
_CORE_GROUP: Final = "pl.Level.CORE_GROUP"
_BUILTINS: Final = frozenset({"min", "max", "abs", "range"})  # scalar builtins of the expression grammar


def is_kernel_scope(node: ast.expr) -> bool:
    """`pl.at(level=pl.Level.CORE_GROUP)`, `pl.incore()` and `pl.spmd(n)` place their body on a core."""
    callee = callee_of(node)
    if callee in ("pl.spmd", "pl.incore"):
        return True
    if callee != "pl.at" or not isinstance(node, ast.Call):
        return False
    return any(
        keyword.arg == "level" and dotted_name(keyword.value) == _CORE_GROUP for keyword in node.keywords
    )


class WindowReader(OpReader):
    """Reads source windows and writes; printed IR keeps the forms of section 17."""

    def __init__(self, program: Program, function: ProgramFunction) -> None:
        super().__init__(program, function)
        self._reads_source = program.form == "source"
        self._kernel_depth = int(function.kernel)
        self._fed = matmul_fed_windows(function.node.body)
        self._known: dict[str, int] = {}
        self._constants_seen = 0
        self._kernels = program.callees.free

    def reads_call(self, callee: str) -> bool:
        return super().reads_call(callee) or (self._reads_source and callee in self._kernels)

    def _value(self, node: ast.expr, target: Target | None = None) -> Value:
        """Source: a call of another kernel of the file forwards its tensors (section 6); a call of
        anything else the file does not define is an op the planner refuses NZ operands of."""
        callee = callee_of(node) or ""
        if not self._reads_source or not isinstance(node, ast.Call) or "." in callee:
            return super()._value(node, target)
        if callee in self._kernels:
            return self._call(node, target)
        if callee not in _BUILTINS:
            self._consume(node, callee)
            return Unknown()
        return super()._value(node, target)

    def _subscript(self, node: ast.Subscript, target: Target | None) -> Value:
        if not self._reads_source:
            return super()._subscript(node, target)
        base = self._value(node.value)
        if not isinstance(base, TensorValue) or _strided(node):
            self._scan_children(node.slice)
            if isinstance(base, TensorValue) and base.is_nz:  # a strided window: no NZ rule reads one
                self._add_op(OtherOp(id=self._next_id("getitem"), op="getitem", args=[base.name]), node, {})
            return Unknown()
        window = self._subscript_window(node, base)
        if _is_element_read(node, base):
            if base.is_nz:
                self._add_op(OtherOp(id=self._next_id("read"), op="tensor.read", args=[base.name]), node, {})
            return Unknown()
        if base.is_nz:
            return self._nz_window(node, base, window, target, {})
        return _operand(base, window, "Mat")

    def _nz_window(
        self, node: ast.expr, source: TensorValue, window: Window, target: Target | None, arguments: Arguments
    ) -> Value:
        """The lowering rule of section 18 (see the module docstring)."""
        fed = id(node) in self._fed
        printed = not self._reads_source
        annotated_tensor = target is not None and target.tensor is not None
        if not self._kernel_depth or _drops_trailing(source, window) or (printed and annotated_tensor):
            return super()._nz_window(node, source, window, target, arguments)
        if not fed and (printed or _trailing_whole(source, window)):
            return super()._nz_window(node, source, window, target, arguments)
        return self._staged(node, source, window, "Mat" if fed else "Vec", target, arguments)

    def _staged(
        self,
        node: ast.expr,
        source: TensorValue,
        window: Window,
        memory: Memory,
        target: Target | None,
        arguments: Arguments,
    ) -> TileValue:
        """The tile load of a window of an NZ tensor in a kernel (printed IR: rewritten to it)."""
        load = LoadOp(
            id=self._next_id("tile.load"),
            source=source.name,
            offsets=self._json_list(window.offsets),
            shapes=self._json_list(window.shapes),
            valid_shape=self._json_list(window.valid_shape) if window.valid_shape else None,
            target_memory=memory,
        )
        tile = (
            target.tile
            if target is not None and target.tile is not None
            else _operand(source, window, memory).type
        )
        self._add_op(load, node, arguments, tile=tile, retarget=not self._reads_source)
        return TileValue(tile)

    def _call(self, call: ast.Call, target: Target | None) -> Value:
        callee = callee_of(call) or ""
        if self._reads_source and callee in _ASSEMBLE_CALLS:
            return self._assemble(call, target)
        if self._reads_source and callee in self._kernels:
            return self._function_call(call, callee, target, method=False)
        return super()._call(call, target)

    def _assemble(self, call: ast.Call, target: Target | None) -> Value:
        """`pl.assemble(target, source, offset)`: a write of `source` into `target` at `offset`."""
        if len(call.args) > len(_ASSEMBLE_SIGNATURE):
            raise self._unsupported(
                call, f"more than {len(_ASSEMBLE_SIGNATURE)} positional arguments to assemble"
            )
        arguments = dict(zip(_ASSEMBLE_SIGNATURE, call.args, strict=False))
        extra: Arguments = {}
        for keyword in call.keywords:
            assert keyword.arg is not None
            (arguments if keyword.arg in _ASSEMBLE_SIGNATURE else extra)[keyword.arg] = keyword.value
        destination = self._tensor_argument(arguments.get("target"))
        if destination is None or not destination.is_nz:
            for node in (arguments.get("source"), arguments.get("offset"), *extra.values()):
                if node is not None:
                    self._value(node)
            return target.tensor if target and target.tensor else (destination or Unknown())
        offsets = self._list(arguments, "offset", call)
        self._store_into(call, destination, arguments.get("source"), offsets, extra, {})
        return target.tensor if target and target.tensor else destination

    def subscript_store(self, statement: ast.Assign, subscript: ast.Subscript) -> None:
        """`out[a:b, c:d] = v` is `out = pl.assemble(out, v, [a, c])` (section 18)."""
        base = self._value(subscript.value)
        if not isinstance(base, TensorValue) or (_strided(subscript) and not base.is_nz):
            self._scan_children(subscript.slice)
            self._value(statement.value)
            return
        if _strided(subscript):
            self._scan_children(subscript.slice)
            self._value(statement.value)
            op = OtherOp(id=self._next_id("setitem"), op="setitem", args=[base.name])
            self._add_op(op, subscript, {})  # a strided write into an NZ tensor: no NZ rule reads one
            return
        window = self._subscript_window(subscript, base)
        if not base.is_nz:
            self._value(statement.value)
            return
        self._store_into(subscript, base, statement.value, window.offsets, {}, {})

    def _matmul_operand(self, node: ast.expr) -> Value:
        """Source, in a kernel: a whole NZ tensor as a matmul operand is the window `w[:, :]`, the
        Mat load of all of it (the lowering rule)."""
        value = self._value(node)
        if not (self._reads_source and self._kernel_depth and isinstance(node, ast.Name)):
            return value
        if not isinstance(value, TensorValue) or not value.is_nz:
            return value
        whole = Window(tuple(Const(0) for _ in value.type.shape), value.type.shape)
        return self._staged(node, value, whole, "Mat", None, {})

    def _operand_tile(self, value: Value) -> TileValue:
        """Source: a whole tensor (not NZ) used as a matmul operand is staged into Mat whole."""
        if self._reads_source and isinstance(value, TensorValue) and not value.is_nz:
            return _operand(value, Window((), value.type.shape), "Mat")
        return super()._operand_tile(value)

    def enter_scope(self, kernel: bool, lanes: Expr | None = None) -> None:
        """A core scope, with its block count when it is a `pl.spmd` launch."""
        self._kernel_depth += int(kernel)
        if kernel:
            self._lanes.append(lanes)

    def leave_scope(self, kernel: bool) -> None:
        self._kernel_depth -= int(kernel)
        if kernel:
            self._lanes.pop()

    def _subscript_window(self, node: ast.Subscript, base: TensorValue) -> Window:
        """Offsets and extents per axis; axes the subscript does not name are taken whole."""
        shape = base.type.shape
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > len(shape):
            raise self._unsupported(
                node, f"a subscript with {len(items)} indices on a rank-{len(shape)} tensor"
            )
        offsets: list[Expr] = []
        sizes: list[Expr] = []
        dropped: list[int] = []
        for axis, extent in enumerate(shape):
            item = items[axis] if axis < len(items) else ast.Slice()
            if isinstance(item, ast.Slice):
                start, size = self._slice_bounds(item, extent)
            elif isinstance(item, ast.Starred) or (isinstance(item, ast.Constant) and item.value is Ellipsis):
                raise self._unsupported(item, "a starred or ellipsis subscript")
            else:
                start, size = self._expr(item), Const(1)
                dropped.append(axis)
            offsets.append(start)
            sizes.append(size)
        return Window(tuple(offsets), tuple(sizes), (), tuple(dropped))

    def _slice_bounds(self, item: ast.Slice, extent: Expr) -> tuple[Expr, Expr]:
        if item.step is not None and not (isinstance(item.step, ast.Constant) and item.step.value == 1):
            raise self._unsupported(item.step, "a subscript step other than 1")
        start = self._expr(item.lower) if item.lower is not None else Const(0)
        stop = self._expr(item.upper) if item.upper is not None else extent
        return start, difference(stop, start, self._known_constants())

    def _known_constants(self) -> dict[str, int]:
        """Names bound to an int constant so far (bindings are only ever appended)."""
        bindings = self._out.bindings
        for binding in bindings[self._constants_seen :]:
            if isinstance(binding, AssignBinding) and isinstance(binding.expr, int):
                self._known[binding.name] = binding.expr
        self._constants_seen = len(bindings)
        return self._known


def _operand(tensor: TensorValue, window: Window, memory: Memory) -> TileValue:
    """The tile a window stages: its last two kept extents, in the tensor's dtype."""
    kept = [size for axis, size in enumerate(window.shapes) if axis not in window.drop_dims]
    return TileValue(TileType(tuple(kept[-2:]), tensor.type.dtype, memory))


def _strided(node: ast.Subscript) -> bool:
    """A slice of the subscript has a step other than the literal 1 (`x[0:64:2]`)."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(
        isinstance(item, ast.Slice)
        and item.step is not None
        and not (isinstance(item.step, ast.Constant) and item.step.value == 1)
        for item in items
    )


def _is_element_read(node: ast.Subscript, base: TensorValue) -> bool:
    """`A[i, j]` with an index on every axis reads one element (`tensor.read`)."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return len(items) == len(base.type.shape) and not any(isinstance(item, ast.Slice) for item in items)


def _drops_trailing(source: TensorValue, window: Window) -> bool:
    rank = len(source.type.shape)
    return any(axis >= rank - 2 for axis in window.drop_dims)


def _trailing_whole(source: TensorValue, window: Window) -> bool:
    """Rows and columns taken whole: extent equal to the tensor's, offset the constant 0."""
    return all(
        window.offsets[axis] == Const(0) and window.shapes[axis] == source.type.shape[axis]
        for axis in (-2, -1)
    )


def difference(stop: Expr, start: Expr, known: Mapping[str, int]) -> Expr:
    """`stop - start`, folded to a constant when the two differ by one (`n0 + N_TILE` minus `n0`,
    with `N_TILE` a `known` constant).

    Exact at every width: two's-complement `+`, `-` and `*` are a ring, so cancelling terms
    never hides a wrap."""
    if isinstance(stop, BinOp) and stop.op == "+" and stop.left == start and isinstance(stop.right, Const):
        return stop.right  # the common spelling `w[n0 : n0 + 256]`
    upper, lower = _linear(stop, known), _linear(start, known)
    upper.subtract(lower)
    constant = upper.pop("", 0)
    if not any(upper.values()):
        return Const(constant)
    return BinOp("-", stop, start)


def _linear(expr: Expr, known: Mapping[str, int]) -> Counter[str]:
    """Coefficients of a sum of terms; `""` is the constant term, other keys spell opaque terms."""
    if isinstance(expr, Const):
        return Counter({"": expr.value})
    if isinstance(expr, Name):
        return Counter({"": known[expr.id]} if expr.id in known else {expr.id: 1})
    if isinstance(expr, Neg):
        return _scaled(_linear(expr.operand, known), -1)
    if isinstance(expr, BinOp) and expr.op in ("+", "-"):
        terms = _linear(expr.left, known)
        (terms.update if expr.op == "+" else terms.subtract)(_linear(expr.right, known))
        return terms
    if isinstance(expr, BinOp) and expr.op == "*":
        left, right = _linear(expr.left, known), _linear(expr.right, known)
        if set(right) == {""}:
            return _scaled(left, right[""])
        if set(left) == {""}:
            return _scaled(right, left[""])
    return Counter({format_expr(expr): 1})


def _scaled(terms: Counter[str], factor: int) -> Counter[str]:
    return Counter({key: value * factor for key, value in terms.items()})
