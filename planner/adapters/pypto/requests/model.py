"""What reading one function produces: value kinds, rewrite sites, the request record, names.

The walk tracks what each source name holds (an NZ or ND tensor, a tile, a scalar binding, or
something unknown), where each op and NZ annotation sits in the text, and which request name
stands for which source spelling.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from planner.adapters.pypto.base.splicing import SourcePosition
from planner.adapters.pypto.reading.program import ProgramFunction
from planner.adapters.pypto.reading.types import TensorType, TileType
from planner.layout.protocol import LayoutOp, LayoutPlanRequest, MatmulProducer, TensorSpec
from planner.proofs.expr import Expr
from planner.proofs.protocol import Binding

BLOCK_QUERIES: Final = {"pl.tile.get_block_idx": "block_idx", "pl.tile.get_block_num": "block_num"}


@dataclass(frozen=True, slots=True)
class TensorValue:
    name: str  # request tensor name
    type: TensorType

    @property
    def is_nz(self) -> bool:
        return self.type.layout == "NZ"


@dataclass(frozen=True, slots=True)
class TileValue:
    type: TileType | None
    producer: MatmulProducer | None = None


@dataclass(frozen=True, slots=True)
class ScalarValue:
    name: str  # request binding name


@dataclass(frozen=True, slots=True)
class Unknown:
    """A value the walk cannot know: read as a fresh unconstrained scalar."""


Value: TypeAlias = TensorValue | TileValue | ScalarValue | Unknown


Arguments: TypeAlias = dict[str, ast.expr]  # call arguments by IR parameter name


@dataclass(frozen=True, slots=True)
class Window:
    """A window of a tensor, per axis of the tensor: offsets and extents, as the IR op takes them."""

    offsets: tuple[Expr, ...]
    shapes: tuple[Expr, ...]
    valid_shape: tuple[Expr, ...] = ()
    drop_dims: tuple[int, ...] = ()


@dataclass(frozen=True)
class OpSite:
    """Where an op sits in the text: what plan application rewrites."""

    op_id: str
    op: str
    call: ast.expr  # the call (a subscript for `getitem`)
    statement: ast.stmt
    arguments: dict[str, ast.expr]
    position: SourcePosition
    tile: TileType | None = None  # a load's logical 2-D tile (section 6.1.6)
    retarget: bool = False  # a printed `pl.slice` the plan turns into a `tile.load` (section 18)


@dataclass(frozen=True)
class TypeSite:
    """An NZ tensor annotation whose shape list blocking rewrites."""

    tensor: str
    shape_node: ast.List | ast.Tuple


@dataclass(frozen=True)
class FunctionRequest:
    """The request for one function and where each of its ops and tensors is in the text."""

    name: str
    request: LayoutPlanRequest
    position: SourcePosition
    op_positions: dict[str, SourcePosition]
    tensor_positions: dict[str, SourcePosition]
    spelling: dict[str, str]  # request name -> source text, where they differ


@dataclass(frozen=True)
class FunctionModel:
    """A function's request plus what plan application needs."""

    function: ProgramFunction
    planned: FunctionRequest
    op_sites: dict[str, OpSite]
    type_sites: tuple[TypeSite, ...]


@dataclass(frozen=True, slots=True)
class Target:
    """The name an op's result is assigned to, with its declared type when annotated."""

    name: str
    tensor: TensorValue | None = None
    tile: TileType | None = None


class NameTable:
    """Request names: a source name keeps its spelling for its first binding only."""

    def __init__(self, reserved: frozenset[str]) -> None:
        self._reserved = reserved
        self._claimed: set[str] = set()
        self.spelling: dict[str, str] = {}

    def claim(self, source_name: str) -> str:
        name = source_name if source_name not in self._claimed else self._fresh(source_name)
        self._claimed.add(name)
        if name != source_name:
            self.spelling[name] = source_name
        return name

    def fresh(self, base: str, spelling: str | None = None) -> str:
        name = self._fresh(base)
        self._claimed.add(name)
        if spelling is not None:
            self.spelling[name] = spelling
        return name

    def _fresh(self, base: str) -> str:
        index = 1
        while f"{base}__v{index}" in self._claimed or f"{base}__v{index}" in self._reserved:
            index += 1
        return f"{base}__v{index}"


@dataclass
class Collected:
    tensors: list[TensorSpec] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    ops: list[LayoutOp] = field(default_factory=list)
    op_sites: dict[str, OpSite] = field(default_factory=dict)
    tensor_positions: dict[str, SourcePosition] = field(default_factory=dict)
    type_sites: list[TypeSite] = field(default_factory=list)
