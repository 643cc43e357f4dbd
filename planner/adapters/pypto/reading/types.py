"""Type annotations of the printed IR (docs/design/nz-layout.md section 17, "Types").

`pl.Tensor[[shape], dtype(, layout)]`, `pl.Tile[[shape], dtype(, pl.MemRef(..))(, pl.Mem.X)]`,
`pl.Scalar[dtype]`, the direction wrappers `pl.Out[..]` / `pl.InOut[..]` and `tuple[..]`.
Each parsed tensor type keeps the node of its shape list: that list is what blocking rewrites
(section 5), every other character of the annotation stays as written.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeAlias, cast

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import dotted_name
from planner.adapters.pypto.base.splicing import SourceText
from planner.layout.protocol import Layout, Memory
from planner.proofs.expr import Expr
from planner.targets.ascend import ASCEND_DTYPES

ShapeReader: TypeAlias = Callable[[ast.expr], Expr]

_LAYOUTS: dict[str, Layout] = {"pl.ND": "ND", "pl.DN": "DN", "pl.NZ": "NZ"}
_TENSOR_LAYOUT_PREFIX = "pl.TensorLayout."
_MEMORIES: tuple[Memory, ...] = ("DDR", "Vec", "Mat", "Left", "Right", "Acc")
_MEMORY_PREFIXES = ("pl.Mem.", "pl.MemorySpace.")
_DTYPE_PREFIXES = ("pl.DataType.", "pl.")
_DIRECTION_WRAPPERS = ("pl.Out", "pl.InOut", "pl.In")
_INTEGER_BITS_EXCLUDED = ("INDEX",)  # INDEX scalars take the request's index width


@dataclass(frozen=True, slots=True)
class TensorType:
    shape: tuple[Expr, ...]
    dtype: str
    layout: Layout = "ND"
    stride: tuple[Expr, ...] | None = None
    valid_shape: tuple[Expr, ...] | None = None
    shape_node: ast.List | ast.Tuple | None = None  # None for a type inferred from an op


@dataclass(frozen=True, slots=True)
class TileType:
    shape: tuple[Expr, ...]
    dtype: str
    memory: Memory | None = None
    valid_shape: tuple[Expr, ...] | None = None


@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: str

    @property
    def bits(self) -> int | None:
        """The binding width of an integer scalar; None for INDEX and non-integer scalars."""
        entry = ASCEND_DTYPES[self.dtype]
        if entry.is_float or entry.bits < 2 or self.dtype in _INTEGER_BITS_EXCLUDED:
            return None
        return entry.bits

    @property
    def signed(self) -> bool | None:
        """False for an unsigned scalar, which widens by zero extension (docs/design/nz-layout.md 7.3)."""
        return False if self.dtype.startswith("UINT") and self.bits is not None else None


@dataclass(frozen=True, slots=True)
class TupleType:
    items: tuple[AnnotatedType, ...]


AnnotatedType: TypeAlias = TensorType | TileType | ScalarType | TupleType


class TypeReader:
    """Parses annotations; shape entries go through the function's expression translation."""

    def __init__(self, source: SourceText, shape_reader: ShapeReader) -> None:
        self._source = source
        self._shape = shape_reader

    def read(self, node: ast.expr) -> AnnotatedType:
        if not isinstance(node, ast.Subscript):
            raise self._unsupported(node)
        head = dotted_name(node.value)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in _DIRECTION_WRAPPERS and len(items) == 1:
            return self.read(items[0])
        if head == "pl.Tensor":
            return self._tensor(node, items)
        if head == "pl.Tile":
            return self._tile(node, items)
        if head == "pl.Scalar" and len(items) == 1:
            return ScalarType(self.dtype(items[0]))
        if head in ("tuple", "pl.Tuple"):
            return TupleType(tuple(self.read(item) for item in items))
        raise self._unsupported(node)

    def read_if_known(self, node: ast.expr) -> AnnotatedType | None:
        """`read`, or None for an annotation outside the grammar that cannot declare an NZ tensor
        (`pl.Array[..]`, `pld.DistributedTensor[..]`, a bare `pl.Tensor` in a tuple, an unknown
        scalar dtype such as `pl.TASK_ID`); a bare dtype `pl.FP32` is a scalar of that dtype."""
        bare = dotted_name(node) or ""
        if any(bare == f"{prefix}{dtype}" for prefix in _DTYPE_PREFIXES for dtype in ASCEND_DTYPES):
            return ScalarType(self.dtype(node))
        try:
            return self.read(node)
        except AdapterInputError:
            if may_declare_nz(node):
                raise
            return None

    def tensors_in(self, node: ast.expr) -> list[TensorType]:
        """Every tensor type in an annotation, tuples flattened in order (section 5: return types)."""
        found = self.read(node)
        return list(_flatten_tensors(found))

    def shape_list(self, node: ast.expr) -> tuple[Expr, ...]:
        if not isinstance(node, ast.List | ast.Tuple):
            raise self._source.error(
                codes.UNSUPPORTED_CONSTRUCT, f"expected a literal list, found {ast.unparse(node)!r}", node
            )
        return tuple(self._shape(element) for element in node.elts)

    def dtype(self, node: ast.expr) -> str:
        spelled = dotted_name(node) or ""
        for prefix in _DTYPE_PREFIXES:
            if spelled.startswith(prefix) and spelled[len(prefix) :] in ASCEND_DTYPES:
                return spelled[len(prefix) :]
        raise self._source.error(
            codes.UNKNOWN_DTYPE,
            f"unknown dtype {ast.unparse(node)!r}; expected pl.<DTYPE> with DTYPE one of "
            f"{', '.join(sorted(ASCEND_DTYPES))}",
            node,
        )

    def memory(self, node: ast.expr) -> Memory | None:
        """`pl.Mem.Mat` / `pl.MemorySpace.Mat` -> "Mat"; None when the node names no memory."""
        spelled = dotted_name(node) or ""
        for prefix in _MEMORY_PREFIXES:
            if spelled.startswith(prefix) and spelled[len(prefix) :] in _MEMORIES:
                return cast(Memory, spelled[len(prefix) :])
        return None

    def _tensor(self, node: ast.Subscript, items: list[ast.expr]) -> TensorType:
        if len(items) not in (2, 3) or not isinstance(items[0], ast.List | ast.Tuple):
            raise self._unsupported(node)
        shape_node = items[0]
        tensor = TensorType(self.shape_list(shape_node), self.dtype(items[1]), shape_node=shape_node)
        if len(items) == 2:
            return tensor
        return self._tensor_layout(tensor, items[2])

    def _tensor_layout(self, tensor: TensorType, node: ast.expr) -> TensorType:
        """The third slot: `pl.NZ`-style layout or `pl.TensorView(stride=, layout=, valid_shape=)`."""
        spelled = dotted_name(node)
        if spelled in _LAYOUTS:
            return replace(tensor, layout=_LAYOUTS[spelled])
        if not (isinstance(node, ast.Call) and dotted_name(node.func) == "pl.TensorView" and not node.args):
            raise self._unsupported(node)
        result = tensor
        for keyword in node.keywords:
            if keyword.arg == "layout":
                result = replace(result, layout=self._tensor_view_layout(keyword.value))
            elif keyword.arg == "stride":
                result = replace(result, stride=self.shape_list(keyword.value) or None)
            elif keyword.arg == "valid_shape":
                result = replace(result, valid_shape=self.shape_list(keyword.value) or None)
            else:
                raise self._unsupported(node)
        return result

    def _tensor_view_layout(self, node: ast.expr) -> Layout:
        spelled = dotted_name(node) or ""
        name = spelled.removeprefix(_TENSOR_LAYOUT_PREFIX)
        if spelled.startswith(_TENSOR_LAYOUT_PREFIX) and f"pl.{name}" in _LAYOUTS:
            return _LAYOUTS[f"pl.{name}"]
        raise self._unsupported(node)

    def _tile(self, node: ast.Subscript, items: list[ast.expr]) -> TileType:
        if len(items) < 2:
            raise self._unsupported(node)
        tile = TileType(self.shape_list(items[0]), self.dtype(items[1]))
        for item in items[2:]:
            tile = self._tile_slot(tile, item)
        return tile

    def _tile_slot(self, tile: TileType, node: ast.expr) -> TileType:
        """Memory space, `pl.MemRef(..)` (allocation detail, ignored) or `pl.TileView(valid_shape=..)`."""
        memory = self.memory(node)
        if memory is not None:
            return TileType(tile.shape, tile.dtype, memory, tile.valid_shape)
        if isinstance(node, ast.Subscript):  # `pl.MemRef(..)[i % 2]`: one of a buffer's slots
            node = node.value
        callee = dotted_name(node.func) if isinstance(node, ast.Call) else None
        if callee == "pl.MemRef":
            return tile
        if callee == "pl.TileView" and isinstance(node, ast.Call):
            valid = next((kw.value for kw in node.keywords if kw.arg == "valid_shape"), None)
            valid_shape = self.shape_list(valid) if valid is not None else None
            return TileType(tile.shape, tile.dtype, tile.memory, valid_shape or None)
        raise self._unsupported(node)

    def _unsupported(self, node: ast.expr) -> Exception:
        return self._source.error(
            codes.UNSUPPORTED_TYPE,
            f"unsupported type annotation {ast.unparse(node)!r}; expected pl.Tensor[...], pl.Tile[...], "
            "pl.Scalar[...], pl.Out[...], pl.InOut[...] or tuple[...]",
            node,
        )


def may_declare_nz(node: ast.expr) -> bool:
    """The annotation names the NZ layout, or gives a tensor a layout slot that is not a known one."""
    for inner in ast.walk(node):
        spelled = dotted_name(inner) if isinstance(inner, ast.Attribute) else None
        if spelled is not None and spelled.rsplit(".", 1)[-1] == "NZ":
            return True
        if isinstance(inner, ast.Subscript) and dotted_name(inner.value) == "pl.Tensor":
            slots = inner.slice.elts if isinstance(inner.slice, ast.Tuple) else []
            if len(slots) >= 3 and dotted_name(slots[2]) not in _LAYOUTS:
                return True
    return False


def is_unshaped(node: ast.expr) -> bool:
    """A bare `pl.Tensor` / `pl.Tile` / `pl.Scalar` (maybe in a direction wrapper): `@pl.jit` takes
    the type from the first call's arguments, so the source says nothing about it (never NZ)."""
    if isinstance(node, ast.Subscript) and dotted_name(node.value) in _DIRECTION_WRAPPERS:
        return is_unshaped(node.slice)
    return dotted_name(node) in ("pl.Tensor", "pl.Tile", "pl.Scalar")


def _flatten_tensors(found: AnnotatedType) -> list[TensorType]:
    if isinstance(found, TensorType):
        return [found]
    if isinstance(found, TupleType):
        return [tensor for item in found.items for tensor in _flatten_tensors(item)]
    return []
