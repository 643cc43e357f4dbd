"""Type annotations of the printed IR (docs/design/nz-layout.md section 17, "Types").

`pl.Tensor[[shape], dtype(, layout)(, pl.MemRef(..))]`,
`pl.Tile[[shape], dtype(, pl.MemRef(..))(, pl.Mem.X)]`, `pl.Scalar[dtype]`, the direction
wrappers `pl.Out[..]` / `pl.InOut[..]` and `tuple[..]`.
Each parsed tensor type keeps the node of its shape list: that list is what blocking rewrites
(section 5), every other character of the annotation stays as written.

An annotation the reader cannot evaluate (a dtype held in a name, a shape held in a name, an
MX scale layout, a distributed tensor, `None`, a bare `pl.Tensor`) is an `OpaqueType` when it is
certainly not NZ: it is passed through and plans nothing. Where it may be NZ, the kernel is
refused (`KernelRefusal`) naming the construct.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeAlias, cast

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import dotted_name
from planner.adapters.pypto.base.refusal import KernelRefusal
from planner.adapters.pypto.base.splicing import SourceText
from planner.layout.protocol import Layout, Memory
from planner.proofs.expr import Expr
from planner.targets.ascend import ASCEND_DTYPES

ShapeReader: TypeAlias = Callable[[ast.expr], Expr]
DtypeLookup: TypeAlias = Callable[[ast.expr], str | None]  # a dtype a name resolves to (section 19)

_LAYOUTS: dict[str, Layout] = {"pl.ND": "ND", "pl.DN": "DN", "pl.NZ": "NZ"}
_TENSOR_LAYOUT_PREFIX = "pl.TensorLayout."
_MEMORIES: tuple[Memory, ...] = ("DDR", "Vec", "Mat", "Left", "Right", "Acc")
_MEMORY_PREFIXES = ("pl.Mem.", "pl.MemorySpace.")
_DTYPE_PREFIXES = ("pl.DataType.", "pl.")
_DIRECTION_WRAPPERS = ("pl.Out", "pl.InOut", "pl.In")
# pypto's TensorLayout members that are never NZ: the microscaling (MX) scale layouts
# (`pl.MX_A_ZZ`, `pl.MX_B_NN`, `pl.TensorLayout.MX_A_ND`, ...).
_MX_LAYOUTS = frozenset({"MX_A_ZZ", "MX_A_ND", "MX_A_DN", "MX_B_NN", "MX_B_ND", "MX_B_DN"})
_DISTRIBUTED = "DistributedTensor"  # `pld.DistributedTensor[[shape], dtype]`: a tensor across ranks
_SCALAR_ONLY_DTYPES = frozenset({"TASK_ID"})  # `pl.Scalar[pl.TASK_ID]`, `pl.TaskId`: a task handle
_MEMREF = "pl.MemRef"
# Tensor slots that say nothing of the layout: `pl.ManualDep` opts the tensor out of the runtime's
# automatic dependency tracking (`pl.Tensor[[64, 64], pl.FP32, pl.NZ, pl.ManualDep]`).
_MARKERS = frozenset({"pl.ManualDep"})
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


@dataclass(frozen=True, slots=True)
class OpaqueType:
    """An annotation that is certainly not an NZ tensor but that the reader does not evaluate."""

    reason: str


AnnotatedType: TypeAlias = TensorType | TileType | ScalarType | TupleType | OpaqueType


class TypeReader:
    """Parses annotations; shape entries go through the function's expression translation."""

    def __init__(
        self, source: SourceText, shape_reader: ShapeReader, dtype_lookup: DtypeLookup | None = None
    ) -> None:
        self._source = source
        self._shape = shape_reader
        self._dtype_lookup = dtype_lookup

    def read(self, node: ast.expr) -> AnnotatedType:
        opaque = _opaque_annotation(node)
        if opaque is not None:
            return OpaqueType(opaque)
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
            dtype = self.known_dtype(items[0])
            unread = OpaqueType(f"a scalar of {ast.unparse(items[0])}")
            return ScalarType(dtype) if dtype is not None else unread
        if head in ("tuple", "pl.Tuple"):
            return TupleType(tuple(self.read(item) for item in items))
        if (head or "").rsplit(".", 1)[-1] == _DISTRIBUTED:
            return self._distributed(node, items)
        raise self._unsupported(node)

    def read_if_known(self, node: ast.expr) -> AnnotatedType | None:
        """`read`, or None for an annotation outside the grammar that cannot declare an NZ tensor
        (`pl.Array[..]`, a class of the user's); a bare dtype `pl.FP32` is a scalar of that dtype."""
        bare = dotted_name(node) or ""
        if any(bare == f"{prefix}{dtype}" for prefix in _DTYPE_PREFIXES for dtype in ASCEND_DTYPES):
            return ScalarType(self.dtype(node))
        try:
            return self.read(node)
        except KernelRefusal:
            raise
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

    def known_dtype(self, node: ast.expr) -> str | None:
        """A `pl.<DTYPE>` literal, or a name the kernel's constants resolve to one; else None."""
        spelled = dotted_name(node) or ""
        for prefix in _DTYPE_PREFIXES:
            if spelled.startswith(prefix) and spelled[len(prefix) :] in ASCEND_DTYPES:
                return spelled[len(prefix) :]
        return self._dtype_lookup(node) if self._dtype_lookup is not None else None

    def dtype(self, node: ast.expr) -> str:
        known = self.known_dtype(node)
        if known is not None:
            return known
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

    def _tensor(self, node: ast.Subscript, items: list[ast.expr]) -> TensorType | OpaqueType:
        """`pl.Tensor[[shape], dtype(, layout)(, pl.MemRef(..))(, pl.ManualDep)]`; what it cannot
        evaluate is opaque when the tensor is certainly not NZ, and refuses the kernel when it may be."""
        if len(items) not in (2, 3, 4, 5):
            raise self._unsupported(node)
        layout = self._tensor_slots(TensorType((), "FP32"), items[2:])
        nz = None if layout is None else layout.layout == "NZ"
        shape_node, dtype_node = items[0], items[1]
        dtype = self.known_dtype(dtype_node)
        unknown: tuple[str, str] | None = None  # (what is not evaluated, what would let it be)
        if not isinstance(shape_node, ast.List | ast.Tuple):
            what = f"its shape {ast.unparse(shape_node)!r} is not a literal list"
            unknown = (what, "write the shape as a literal list")
        elif dtype is None:
            unknown = (
                f"its dtype {ast.unparse(dtype_node)!r} is not a pl.<DTYPE> the reader resolves",
                f"write a pl.<DTYPE>, or --bind {ast.unparse(dtype_node)}=pl.<DTYPE> for a builder parameter",
            )
        elif layout is None:
            unknown = (
                "a slot after its dtype is not a layout the reader knows",
                "write pl.ND, pl.DN, pl.NZ, pl.MX_*, pl.MemRef(..) or pl.TensorView(layout=..)",
            )
        if unknown is None and layout is not None and layout.layout not in _LAYOUTS.values():
            return OpaqueType(f"a tensor in the {layout.layout} layout")
        if unknown is None and isinstance(shape_node, ast.List | ast.Tuple) and dtype is not None and layout:
            shape = self.shape_list(shape_node)
            return replace(layout, shape=shape, dtype=dtype, shape_node=shape_node)
        assert unknown is not None
        if nz is False:
            return OpaqueType(f"a tensor that is not NZ: {unknown[0]}")
        if dtype is None and (dotted_name(dtype_node) or "").startswith("pl."):
            self.dtype(dtype_node)  # a pl.<NAME> no dtype table knows: the typed unknown_dtype error
        raise self._refused(node, *unknown, nz=nz)

    def _tensor_slots(self, tensor: TensorType, slots: list[ast.expr]) -> TensorType | None:
        """The slots after the dtype: a layout, `pl.MemRef(..)` (allocation detail, ignored),
        `pl.ManualDep` (a runtime marker, ignored) and `pl.TensorView(stride=, layout=,
        valid_shape=, pad=)`; None when one is not known."""
        result = tensor
        for slot in slots:
            spelled = dotted_name(slot) or ""
            layout = _layout_name(spelled)
            if layout is not None:
                result = replace(result, layout=cast(Layout, layout))
            elif _is_memref(slot) or spelled in _MARKERS:
                continue
            elif isinstance(slot, ast.Call) and dotted_name(slot.func) == "pl.TensorView" and not slot.args:
                viewed = self._tensor_view(result, slot)
                if viewed is None:
                    return None
                result = viewed
            else:
                return None
        return result

    def _tensor_view(self, tensor: TensorType, node: ast.Call) -> TensorType | None:
        result = tensor
        for keyword in node.keywords:
            if keyword.arg == "layout":
                layout = _layout_name(dotted_name(keyword.value) or "")
                if layout is None:
                    return None
                result = replace(result, layout=cast(Layout, layout))
            elif keyword.arg in ("stride", "valid_shape"):
                if not isinstance(keyword.value, ast.List | ast.Tuple):
                    return None
                entries = self.shape_list(keyword.value) or None
                if keyword.arg == "stride":
                    result = replace(result, stride=entries)
                else:
                    result = replace(result, valid_shape=entries)
            elif keyword.arg == "pad":
                continue  # the fill of reads past the valid shape: no NZ rule reads it
            else:
                return None
        return result

    def _distributed(self, node: ast.Subscript, items: list[ast.expr]) -> OpaqueType:
        """`pld.DistributedTensor[[shape], dtype(, layout)]`: opaque unless it names NZ."""
        layout = self._tensor_slots(TensorType((), "FP32"), items[2:])
        if layout is not None and layout.layout != "NZ":
            return OpaqueType("a distributed tensor (its NZ layout is not planned)")
        raise self._refused(
            node,
            "it is a distributed tensor, which NZ blocking does not plan",
            "give the distributed tensor pl.ND, or plan the per-rank tensor",
            nz=None if layout is None else True,
        )

    def _refused(self, node: ast.expr, what: str, fix: str, *, nz: bool | None) -> KernelRefusal:
        """A tensor type that is (or may be) NZ, with a part the NZ layout needs not evaluated."""
        position = self._source.position(node)
        state = "an NZ tensor" if nz else "a tensor that may be NZ"
        return KernelRefusal(
            codes.UNEVALUATED_NZ,
            f"{ast.unparse(node)!r} is {state}, but {what}: NZ blocking needs it. Fix: {fix}",
            position.line,
            position.column,
        )

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
        if callee == _MEMREF:
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
            third = dotted_name(slots[2]) if len(slots) >= 3 else None
            if len(slots) >= 3 and third not in _LAYOUTS and third not in _MARKERS:
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


def _layout_name(spelled: str) -> str | None:
    """`pl.NZ`, `pl.TensorLayout.NZ`, `pl.MX_A_ZZ`, ... -> the layout's name; None when not a layout."""
    name = spelled.removeprefix(_TENSOR_LAYOUT_PREFIX) if spelled.startswith(_TENSOR_LAYOUT_PREFIX) else None
    if name is None and spelled.startswith("pl."):
        name = spelled.removeprefix("pl.")
    if name is not None and (f"pl.{name}" in _LAYOUTS or name in _MX_LAYOUTS):
        return name
    return None


def _is_memref(node: ast.expr) -> bool:
    """`pl.MemRef(..)` or one slot of it, `pl.MemRef(..)[i]`."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Call) and dotted_name(node.func) == _MEMREF


def _opaque_annotation(node: ast.expr) -> str | None:
    """Annotations that declare nothing the planner reads: `None`, a bare `pl.Tensor` / `pl.Tile`
    / `pl.Scalar` (typed by the call), `pl.TaskId` and scalar-only dtypes such as `pl.TASK_ID`."""
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    spelled = dotted_name(node) or ""
    if spelled in ("pl.Tensor", "pl.Tile", "pl.Scalar", "pl.TaskId"):
        return f"the bare {spelled}"
    if spelled.removeprefix("pl.DataType.").removeprefix("pl.") in _SCALAR_ONLY_DTYPES:
        return f"a scalar of {spelled}"
    return None
