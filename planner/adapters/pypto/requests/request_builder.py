"""The request being built for one function: names, bindings, tensors, ops and expressions.

Names are SSA-like in the request: a source name bound twice gets a fresh request name for
its second binding, and a name whose value the walk cannot know (a branch merge, a call the
adapter does not read) becomes a fresh unconstrained `param` where it is read. Unknown is
never assumed to be anything (docs/design/nz-layout.md section 7.3: unknown calls are fresh values).
"""

from __future__ import annotations

import ast
import re
from abc import ABC, abstractmethod

from pydantic import JsonValue

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import callee_of, constant_value, int_literal, translate
from planner.adapters.pypto.reading.program import STAMP, Program, ProgramFunction
from planner.adapters.pypto.reading.types import ScalarType, TensorType, TileType, TypeReader
from planner.adapters.pypto.requests.model import (
    BLOCK_QUERIES,
    Collected,
    NameTable,
    OpSite,
    ScalarValue,
    Target,
    TensorValue,
    TileValue,
    TypeSite,
    Value,
)
from planner.layout.protocol import LayoutOp, OtherOp, TensorSpec
from planner.proofs.expr import Const, Expr, Name, to_json_value
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    BlockNumBinding,
    ParamBinding,
    SpmdBinding,
)


class FunctionState(ABC):
    """Shared state of the walk; `OpReader` and the statement reader build on it."""

    def __init__(self, program: Program, function: ProgramFunction) -> None:
        self._program = program
        self._source = program.source
        self._function = function
        self._stamped = function.attrs.get(STAMP) is True
        self._names = NameTable(program.identifiers)
        resolved = function.constants
        dtypes = resolved.dtypes if resolved is not None else {}
        self._types = TypeReader(program.source, self._expr, lambda node: dtypes.get(ast.unparse(node)))
        self._values: dict[str, Value] = {}
        self._constants = dict(program.constants if resolved is None else resolved.values)  # not shadowed
        self._constant_roots: dict[str, list[str]] | None = None  # `_constants` by root name, on first use
        self._assigned: list[set[str]] = [set()]
        self._out = Collected()
        self._op_results: set[str] = set()  # tensors an op defines (slice results)
        self._statement: ast.stmt = function.node.body[0]
        self._scalar_types: dict[str, ScalarType | None] = {}  # each scalar name's declared type
        self._lanes: list[Expr | None] = []  # per enclosing core scope: its pl.spmd block count, if any

    @abstractmethod
    def _value(self, node: ast.expr, target: Target | None = None) -> Value:
        """Visit an expression for the ops it contains; the value of a name or op result."""

    def _declare(
        self,
        name: str | None,
        tensor: TensorType,
        node: ast.AST,
        base: str = "tensor",
        *,
        in_request: bool = True,
    ) -> TensorValue:
        """Register a tensor type: an NZ one is located and its annotation becomes a rewrite site."""
        request_name = self._names.claim(name) if name is not None else self._names.fresh(base)
        value = TensorValue(request_name, tensor)
        if not value.is_nz:
            return value
        self._out.tensor_positions[request_name] = self._source.position(node)
        if tensor.shape_node is not None:
            self._out.type_sites.append(TypeSite(request_name, tensor.shape_node))
        if in_request:
            self._request_tensor(value)
        return value

    def _request_tensor(self, value: TensorValue) -> None:
        """Section 5: an NZ tensor type the planner blocks."""
        if not value.is_nz:
            return
        tensor = value.type
        self._out.tensors.append(
            TensorSpec(
                name=value.name,
                shape=self._json_list(tensor.shape),
                dtype=tensor.dtype,
                layout=tensor.layout,
                valid_shape=self._json_list(tensor.valid_shape) if tensor.valid_shape else None,
                stride=self._json_list(tensor.stride) if tensor.stride else None,
            )
        )

    def _assign(self, name: str, value: Value) -> None:
        self._values[name] = value
        if name in self._constants or self._function.constants is not None:
            for key in self._shadowed(name):
                self._constants.pop(key, None)
        self._assigned[-1].add(name)

    def _shadowed(self, name: str) -> list[str]:
        """The constants `name` or an attribute or item of it spells, which binding `name` hides:
        found by their root name in an index built once, not by a pass over every constant for
        every assignment of the kernel."""
        if _ROOT_END.search(name):
            return [key for key in self._constants if _roots(key, name)]
        if self._constant_roots is None:
            self._constant_roots = {}
            for key in self._constants:
                self._constant_roots.setdefault(_ROOT_END.split(key, 1)[0], []).append(key)
        return self._constant_roots.pop(name, [])

    def _bind_scalar(
        self, name: str, kind: type[Binding], declared: ScalarType | None = None, **fields: JsonValue
    ) -> None:
        """A scalar binding at its declared width and signedness (the index type when undeclared)."""
        request_name = self._names.claim(name)
        bits, signed = (declared.bits, declared.signed) if declared is not None else (None, None)
        self._out.bindings.append(kind(name=request_name, bits=bits, signed=signed, **fields))
        self._assign(name, ScalarValue(request_name))
        self._scalar_types[name] = declared

    def _block_query(self, callee: str) -> tuple[type[Binding], dict[str, JsonValue]]:
        """Inside a `pl.spmd(n)` body the block index is that launch's lane, in `[0, n)`; elsewhere the
        launch is not in the source, so only the target's block limit bounds it."""
        lanes = self._lanes[-1] if self._lanes else None
        if BLOCK_QUERIES[callee] == "block_num":
            return BlockNumBinding, {}
        return (BlockIdxBinding, {}) if lanes is None else (SpmdBinding, {"extent": to_json_value(lanes)})

    def _add_op(
        self,
        op: LayoutOp,
        node: ast.expr,
        arguments: dict[str, ast.expr],
        *,
        tile: TileType | None = None,
        retarget: bool = False,
    ) -> None:
        self._out.ops.append(op)
        self._out.op_sites[op.id] = OpSite(
            op.id, op.op, node, self._statement, arguments, self._source.position(node), tile, retarget
        )

    @staticmethod
    def _json_list(entries: tuple[Expr, ...]) -> list[int | str]:
        return [to_json_value(entry) for entry in entries]

    def _spelled(self, request_name: str) -> str:
        return self._names.spelling.get(request_name, request_name)

    def _unsupported(self, node: ast.AST, what: str) -> AdapterInputError:
        return self._source.error(
            codes.UNSUPPORTED_CONSTRUCT,
            f"unsupported construct: {what} is not part of the printed-IR format",
            node,
        )

    def _expr(self, node: ast.expr) -> Expr:
        """An index expression: fully constant ones are folded, symbolic ones kept as written."""
        value = int_literal(node)
        if value is None:
            value = constant_value(node, self._constants)
        if value is not None:
            return Const(value)
        return translate(node, self)

    def resolve(self, name: str) -> Expr:
        value = self._values.get(name)
        if isinstance(value, ScalarValue):
            return Name(value.name)
        if value is None and name in self._constants:
            request_name = self._names.claim(name)
            self._out.bindings.append(AssignBinding(name=request_name, expr=self._constants[name]))
            self._values[name] = ScalarValue(request_name)
            return Name(request_name)
        if isinstance(value, TensorValue) and value.is_nz and self._program.form == "source":
            op = OtherOp(id=f"arithmetic{len(self._out.ops)}", op="arithmetic", args=[value.name])
            self._add_op(op, self._statement_expression(), {})  # elementwise arithmetic reads it
        if isinstance(value, TensorValue | TileValue):
            return self._fresh_param(name)
        request_name = self._names.claim(name)
        self._out.bindings.append(ParamBinding(name=request_name))
        self._values[name] = ScalarValue(request_name)
        return Name(request_name)

    def opaque(self, node: ast.expr) -> Expr:
        callee = callee_of(node)
        spelling = self._source.segment(node)
        if isinstance(node, ast.Attribute | ast.Subscript) and ast.unparse(node) in self._constants:
            name = self._names.fresh("const", spelling)
            self._out.bindings.append(AssignBinding(name=name, expr=self._constants[ast.unparse(node)]))
            return Name(name)
        if callee in BLOCK_QUERIES:
            name = self._names.fresh(BLOCK_QUERIES[callee], spelling)
            kind, fields = self._block_query(callee)
            self._out.bindings.append(kind(name=name, **fields))
            return Name(name)
        self._value(node)
        atomic = isinstance(node, ast.Name | ast.Call | ast.Attribute | ast.Subscript)
        return self._fresh_param(spelling if atomic else f"({spelling})")

    def _statement_expression(self) -> ast.expr:
        """The statement being read, as the expression a diagnostic points at."""
        statement = self._statement
        value = getattr(statement, "value", None)
        return (
            value
            if isinstance(value, ast.expr)
            else ast.Constant(None, lineno=statement.lineno, col_offset=statement.col_offset)
        )

    def _fresh_param(self, spelling: str) -> Expr:
        name = self._names.fresh("opaque", spelling)
        self._out.bindings.append(ParamBinding(name=name))
        return Name(name)


_ROOT_END = re.compile(r"[.\[]")  # where a spelled constant's root name ends (`M.hidden_size`, `M[0]`)


def _roots(key: str, name: str) -> bool:
    """`key` spells `name` or an attribute or item of it (`M`, `M.hidden_size`, `M[0]`)."""
    return key == name or (key.startswith(name) and key[len(name)] in ".[")
