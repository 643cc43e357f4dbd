"""One `@pl.function` -> one `layout.plan` request (docs/design/nz-layout.md sections 5, 7.2, 14, 17).

A single read-only walk in statement order collects what the planner needs: NZ tensor types
(parameters, then return types, then variable annotations and op results), scalar facts as
bindings (section 7.2's fact table: scalar assignments, loop ranges, block index/count) and
every op that touches an NZ tensor, each with a stable id and its source position. Loops
are read by `loops.LoopReader`, ops by `ops.OpReader`, source windows by `window_syntax.WindowReader`.
"""

from __future__ import annotations

import ast
from typing import Final

from pydantic import ValidationError

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import SCALAR_CALLS, callee_of, int_literal, tuple_names
from planner.adapters.pypto.reading.program import Program, ProgramFunction
from planner.adapters.pypto.reading.types import (
    AnnotatedType,
    OpaqueType,
    ScalarType,
    TensorType,
    TileType,
    TupleType,
    is_unshaped,
)
from planner.adapters.pypto.requests.loops import is_range_loop
from planner.adapters.pypto.requests.model import (
    BLOCK_QUERIES,
    FunctionModel,
    FunctionRequest,
    Target,
    TensorValue,
    TileValue,
    Unknown,
)
from planner.adapters.pypto.requests.ops import YIELD
from planner.adapters.pypto.requests.passthrough import PassThroughReader
from planner.adapters.pypto.requests.window_syntax import is_kernel_scope
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs.expr import to_json_value
from planner.proofs.protocol import (
    AssignBinding,
    Division,
    ParamBinding,
)

_SCOPE_CONTEXTS: Final = ("pl.spmd", "pl.at", "pl.scope", "pl.incore")


def read_function(
    program: Program, function: ProgramFunction, target: str | None, division: Division
) -> FunctionModel:
    """Build the request of one function, or raise `AdapterInputError` at the offending text."""
    return _FunctionReader(program, function).read(target, division)


class _FunctionReader(PassThroughReader):
    """The statement walk (section 17, "Statements")."""

    def read(self, target: str | None, division: Division) -> FunctionModel:
        node = self._function.node
        try:
            self._walk(node)
        except ValidationError as exc:
            raise self._invalid(self._statement, exc) from None
        out = self._out
        position = self._source.position(node)
        try:
            request = LayoutPlanRequest(
                target=target,
                division=division,
                function=self._function.qualified,
                attrs=dict(self._function.attrs),
                tensors=out.tensors,
                bindings=out.bindings,
                ops=out.ops,
            )
        except ValidationError as exc:
            raise self._invalid(node, exc) from None
        planned = FunctionRequest(
            self._function.qualified,
            request,
            position,
            {op_id: site.position for op_id, site in out.op_sites.items()},
            dict(out.tensor_positions),
            dict(self._names.spelling),
        )
        return FunctionModel(self._function, planned, dict(out.op_sites), tuple(out.type_sites))

    def _walk(self, node: ast.FunctionDef) -> None:
        """Phase 1 order (section 14): parameters, then return types, then the body in order."""
        self._parameters(node.args)
        if node.returns is not None and self._annotation(node.returns) is not None:
            for tensor in self._types.tensors_in(node.returns):
                self._declare(None, tensor, node.returns, "return")
        self._block(node.body)

    def _invalid(self, node: ast.AST, exc: ValidationError) -> AdapterInputError:
        return self._source.error(
            codes.INVALID_REQUEST,
            f"function {self._function.qualified!r} cannot be expressed as a layout.plan request: "
            f"{exc.errors(include_url=False)[0]['msg']}",
            node,
        )

    def _parameters(self, arguments: ast.arguments) -> None:
        positional = [*arguments.posonlyargs, *arguments.args]
        if not self._reads_source and (arguments.vararg or arguments.kwarg or arguments.kwonlyargs):
            raise self._unsupported(self._function.node, "*args, **kwargs and keyword-only parameters")
        for packed in (arguments.vararg, arguments.kwarg):
            if packed is not None:
                self._assign(packed.arg, Unknown())
        if self._function.method:
            if not positional or positional[0].arg != "self":
                raise self._source.error(
                    codes.UNSUPPORTED_CONSTRUCT,
                    "a @pl.function method takes 'self' first",
                    self._function.node,
                )
            positional = positional[1:]
        for parameter in [*positional, *arguments.kwonlyargs]:
            self._parameter(parameter)

    def _parameter(self, parameter: ast.arg) -> None:
        if parameter.annotation is None or is_unshaped(parameter.annotation):
            self._assign(parameter.arg, Unknown())
            return
        declared = self._annotation(parameter.annotation)
        if declared is None:
            self._assign(parameter.arg, Unknown())
        elif isinstance(declared, TensorType):
            self._assign(parameter.arg, self._declare(parameter.arg, declared, parameter))
        elif isinstance(declared, TileType):
            self._assign(parameter.arg, TileValue(declared))
        elif isinstance(declared, ScalarType):
            self._bind_scalar(parameter.arg, ParamBinding, declared)
        else:
            for tensor in self._types.tensors_in(parameter.annotation):
                self._declare(None, tensor, parameter, parameter.arg)
            self._assign(parameter.arg, Unknown())

    def _annotation(self, node: ast.expr) -> AnnotatedType | None:
        """Source: an annotation outside the grammar that cannot declare NZ types nothing; an
        opaque one (certainly not NZ, not evaluated) types nothing in either form."""
        declared = self._types.read_if_known(node) if self._reads_source else self._types.read(node)
        return None if isinstance(declared, OpaqueType) else declared

    def _block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self._statement = statement
            self._dispatch(statement)

    def _dispatch(self, statement: ast.stmt) -> None:
        """Printed IR has the fixed grammar of section 17; source passes the rest through (`passthrough`)."""
        printed = not self._reads_source
        if isinstance(statement, ast.AnnAssign):
            self._ann_assign(statement)
        elif isinstance(statement, ast.Assign):
            self._plain_assign(statement)
        elif isinstance(statement, ast.Expr):
            self._expression_statement(statement.value)
        elif isinstance(statement, ast.Return):
            if statement.value is not None:
                self._value(statement.value)
        elif isinstance(statement, ast.For):
            self._for(statement) if is_range_loop(statement) or printed else self.unknown_loop(statement)
        elif isinstance(statement, ast.If):
            self._if(statement)
        elif isinstance(statement, ast.With):
            self._with(statement)
        elif isinstance(statement, ast.AugAssign) and not printed:
            self._aug_assign(statement)
        elif not isinstance(statement, ast.Pass) and (printed or not self.passes_through(statement)):
            raise self._unsupported(statement, f"the statement {type(statement).__name__.lower()!r}")

    def _aug_assign(self, statement: ast.AugAssign) -> None:
        """`x += v` is `x = x + v`; into anything but a name it is a use the planner does not model."""
        if isinstance(statement.target, ast.Name):
            load = ast.Name(statement.target.id, ast.Load())
            value = ast.copy_location(ast.BinOp(load, statement.op, statement.value), statement)
            self._assign_from(statement.target.id, ast.fix_missing_locations(value))
            return
        self.unmodelled(statement.value, "augmented assignment")
        self.unmodelled(statement.target, "augmented assignment")

    def _ann_assign(self, statement: ast.AnnAssign) -> None:
        if not isinstance(statement.target, ast.Name):
            if not self._reads_source:
                raise self._unsupported(statement.target, "an annotated assignment to anything but a name")
            if statement.value is not None:
                self.unmodelled(statement.value, "assignment")
            self.unmodelled(statement.target, "assignment")
            return
        name = statement.target.id
        declared = self._annotation(statement.annotation)
        if declared is None:
            if statement.value is not None:
                self._assign_from(name, statement.value)
            else:
                self._assign(name, Unknown())
            return
        if isinstance(declared, ScalarType):
            self._scalar_assign(name, statement.value, declared)
            return
        if isinstance(declared, TupleType):
            for tensor in self._types.tensors_in(statement.annotation):
                self._declare(None, tensor, statement.target, name)
            if statement.value is not None:
                self._value(statement.value)
            self._assign(name, Unknown())
            return
        if isinstance(declared, TensorType):
            target = Target(name, tensor=self._declare(name, declared, statement.target, in_request=False))
        else:
            target = Target(name, tile=declared if isinstance(declared, TileType) else None)
        value = self._value(statement.value, target) if statement.value is not None else Unknown()
        if target.tensor is not None:
            if target.tensor.name not in self._op_results:
                self._request_tensor(target.tensor)
            self._assign(name, target.tensor)
        elif target.tile is not None:
            producer = value.producer if isinstance(value, TileValue) else None
            self._assign(name, TileValue(target.tile, producer))

    def _plain_assign(self, statement: ast.Assign) -> None:
        if len(statement.targets) != 1:
            if not self._reads_source:
                raise self._unsupported(statement, "chained assignment")
            self.unmodelled(statement.value, "chained assignment")
            for target in statement.targets:
                self._unbind_names(target)
            return
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            self._assign_from(target.id, statement.value)
            return
        if isinstance(target, ast.Subscript) and self._program.form == "source":
            self.subscript_store(statement, target)
            return
        names = tuple_names(target)
        if names is None:
            if not self._reads_source:
                raise self._unsupported(target, "assignment to anything but names")
            self.unmodelled(statement.value, "assignment")
            if not isinstance(target, ast.Tuple | ast.List | ast.Starred):
                self.unmodelled(target, "assignment")
            self._unbind_names(target)
            return
        values = self._yield_values(statement.value) if callee_of(statement.value) == YIELD else []
        if not values:
            self._value(statement.value)
        for index, name in enumerate(names):
            self._assign(name, values[index] if index < len(values) else Unknown())

    def _assign_from(self, name: str, node: ast.expr) -> None:
        """An unannotated assignment: the value's kind decides what the name becomes."""
        callee = callee_of(node)
        if isinstance(node, ast.Name) and isinstance(self._values.get(node.id), TensorValue | TileValue):
            self._assign(name, self._values[node.id])
        elif callee == YIELD:
            values = self._yield_values(node)
            self._assign(name, values[0] if len(values) == 1 else Unknown())
        elif callee is not None and callee not in BLOCK_QUERIES and self.reads_call(callee):
            self._assign(name, self._call(node, Target(name)))  # type: ignore[arg-type]
        elif isinstance(node, ast.Subscript):
            value = self._value(node, Target(name))
            self._assign(name, value if isinstance(value, TensorValue | TileValue) else Unknown())
        else:
            self._scalar_assign(name, node, None)

    def _scalar_assign(self, name: str, node: ast.expr | None, declared: ScalarType | None) -> None:
        """Section 7.2: `definition(v) = expr`; a block query is non-negative; the rest unknown."""
        callee = callee_of(node) if node is not None else None
        if node is None:
            self._bind_scalar(name, ParamBinding, declared)
        elif callee in BLOCK_QUERIES:
            kind, fields = self._block_query(callee)
            self._bind_scalar(name, kind, declared, **fields)
        elif _in_grammar(node):
            expr = self._expr(node)
            self._bind_scalar(name, AssignBinding, declared, expr=to_json_value(expr))
        else:
            self._value(node)
            self._bind_scalar(name, ParamBinding, declared)

    def _expression_statement(self, node: ast.expr) -> None:
        if isinstance(node, ast.Constant):
            return  # a docstring
        self._value(node)

    def _if(self, statement: ast.If) -> None:
        """Branches see the values from before the `if`; after it, a scalar set in a branch is unknown."""
        self._value(statement.test)
        before = dict(self._values)
        self._assigned.append(set())
        self._block(statement.body)
        after_then = self._values
        self._values = dict(before)
        self._block(statement.orelse)
        assigned = self._assigned.pop()
        for name in sorted(assigned):
            candidates = (self._values.get(name), after_then.get(name))
            kept = next((value for value in candidates if isinstance(value, TensorValue | TileValue)), None)
            self._values[name] = kept if kept is not None else Unknown()
        self._assigned[-1] |= assigned

    def _with(self, statement: ast.With) -> None:
        """Scopes group statements and do not change bindings; a core scope makes its body a kernel."""
        known = all(callee_of(item.context_expr) in _SCOPE_CONTEXTS for item in statement.items)
        if not self._reads_source and not (known and all(i.optional_vars is None for i in statement.items)):
            what = "a with-statement other than pl.spmd/pl.at/pl.scope/pl.incore(...)"
            raise self._unsupported(statement.items[0].context_expr, what)
        if not known:
            self.unknown_scope(statement)
        else:
            for item in statement.items:
                if item.optional_vars is not None:
                    self._unbind_names(item.optional_vars)
        kernels = [item.context_expr for item in statement.items if is_kernel_scope(item.context_expr)]
        launch = kernels[0] if len(kernels) == 1 and callee_of(kernels[0]) == "pl.spmd" else None
        lanes = self._expr(launch.args[0]) if isinstance(launch, ast.Call) and launch.args else None
        self.enter_scope(bool(kernels), lanes)
        self._block(statement.body)
        self.leave_scope(bool(kernels))


def _in_grammar(node: ast.expr) -> bool:
    """The top of the expression is a grammar node (its subterms may still be opaque)."""
    if int_literal(node) is not None or isinstance(node, ast.Name | ast.BinOp | ast.UnaryOp):
        return not isinstance(node, ast.UnaryOp) or isinstance(node.op, ast.USub | ast.UAdd)
    return callee_of(node) in ("min", "max", *SCALAR_CALLS)
