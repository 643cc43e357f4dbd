"""One `@pl.function` -> one `layout.plan` request (docs/design/nz-layout.md sections 5, 7.2, 14, 17).

A single read-only walk in statement order collects what the planner needs: NZ tensor types
(parameters, then return types, then variable annotations and op results), scalar facts as
bindings (section 7.2's fact table: scalar assignments, loop ranges, block index/count) and
every op that touches an NZ tensor, each with a stable id and its source position.
"""

from __future__ import annotations

import ast
from typing import Final

from pydantic import ValidationError

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import codes
from planner.adapters.pypto.carried import Induction, inductions, rebound_names
from planner.adapters.pypto.expressions import SCALAR_CALLS, callee_of, constant_value, int_literal
from planner.adapters.pypto.model import (
    BLOCK_QUERIES,
    FunctionModel,
    FunctionRequest,
    ScalarValue,
    Target,
    TensorValue,
    TileValue,
    Unknown,
)
from planner.adapters.pypto.ops import YIELD
from planner.adapters.pypto.program import Program, ProgramFunction
from planner.adapters.pypto.types import ScalarType, TensorType, TileType, TupleType, is_unshaped
from planner.adapters.pypto.windows import WindowReader, is_kernel_scope
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs.expr import BinOp, Const, parse_expr, to_json_value
from planner.proofs.protocol import (
    AssignBinding,
    BlockIdxBinding,
    BlockNumBinding,
    Division,
    ForBinding,
    InductionBinding,
    IterArgBinding,
    ParamBinding,
    SpmdBinding,
)

_LOOP_KINDS: Final = {
    "pl.range": "for",
    "pl.pipeline": "for",
    "pl.parallel": "for",
    "pl.unroll": "for",
    "range": "for",
    "pl.spmd": "spmd",
}
_SCOPE_CONTEXTS: Final = ("pl.spmd", "pl.at", "pl.scope", "pl.incore")


def read_function(
    program: Program, function: ProgramFunction, target: str | None, division: Division
) -> FunctionModel:
    """Build the request of one function, or raise `AdapterInputError` at the offending text."""
    return _FunctionReader(program, function).read(target, division)


class _FunctionReader(WindowReader):
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
                function=node.name,
                attrs=dict(self._function.attrs),
                tensors=out.tensors,
                bindings=out.bindings,
                ops=out.ops,
            )
        except ValidationError as exc:
            raise self._invalid(node, exc) from None
        planned = FunctionRequest(
            node.name,
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
        if node.returns is not None:
            for tensor in self._types.tensors_in(node.returns):
                self._declare(None, tensor, node.returns, "return")
        self._block(node.body)

    def _invalid(self, node: ast.AST, exc: ValidationError) -> AdapterInputError:
        return self._source.error(
            codes.INVALID_REQUEST,
            f"function {self._function.node.name!r} cannot be expressed as a layout.plan request: "
            f"{exc.errors(include_url=False)[0]['msg']}",
            node,
        )

    def _parameters(self, arguments: ast.arguments) -> None:
        positional = [*arguments.posonlyargs, *arguments.args]
        if arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
            raise self._unsupported(self._function.node, "*args, **kwargs and keyword-only parameters")
        if self._function.method:
            if not positional or positional[0].arg != "self":
                raise self._source.error(
                    codes.UNSUPPORTED_CONSTRUCT,
                    "a @pl.function method takes 'self' first",
                    self._function.node,
                )
            positional = positional[1:]
        for parameter in positional:
            self._parameter(parameter)

    def _parameter(self, parameter: ast.arg) -> None:
        if parameter.annotation is None or is_unshaped(parameter.annotation):
            self._assign(parameter.arg, Unknown())
            return
        declared = self._types.read(parameter.annotation)
        if isinstance(declared, TensorType):
            self._assign(parameter.arg, self._declare(parameter.arg, declared, parameter))
        elif isinstance(declared, TileType):
            self._assign(parameter.arg, TileValue(declared))
        elif isinstance(declared, ScalarType):
            self._bind_scalar(parameter.arg, ParamBinding, declared)
        else:
            for tensor in self._types.tensors_in(parameter.annotation):
                self._declare(None, tensor, parameter, parameter.arg)
            self._assign(parameter.arg, Unknown())

    def _block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self._statement = statement
            self._dispatch(statement)

    def _dispatch(self, statement: ast.stmt) -> None:
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
            self._for(statement)
        elif isinstance(statement, ast.If):
            self._if(statement)
        elif isinstance(statement, ast.With):
            self._with(statement)
        elif not isinstance(statement, ast.Pass):
            raise self._unsupported(statement, f"the statement {type(statement).__name__.lower()!r}")

    def _ann_assign(self, statement: ast.AnnAssign) -> None:
        if not isinstance(statement.target, ast.Name):
            raise self._unsupported(statement.target, "an annotated assignment to anything but a name")
        name = statement.target.id
        declared = self._types.read(statement.annotation)
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
            target = Target(name, tile=declared)
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
            raise self._unsupported(statement, "chained assignment")
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            self._assign_from(target.id, statement.value)
            return
        if isinstance(target, ast.Subscript) and self._program.form == "source":
            self.subscript_store(statement, target)
            return
        names = _tuple_names(target)
        if names is None:
            raise self._unsupported(target, "assignment to anything but names")
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
            kind = BlockIdxBinding if BLOCK_QUERIES[callee] == "block_idx" else BlockNumBinding
            self._bind_scalar(name, kind, declared)
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

    def _for(self, statement: ast.For) -> None:
        """Section 7.2: every loop kind binds start, step (and stop); iter_args never resolve."""
        if statement.orelse:
            raise self._unsupported(statement, "for ... else")
        call = statement.iter
        kind = _LOOP_KINDS.get(callee_of(call) or "")
        if not isinstance(call, ast.Call) or kind is None:
            raise self._unsupported(
                call, "a loop over anything but pl.range/pl.pipeline/pl.parallel/pl.unroll/pl.spmd"
            )
        loop_variable, carried = self._loop_targets(statement.target)
        keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg is not None}
        initial = self._initial_values(keywords.get("init_values"), len(carried), call)
        if kind == "spmd":
            extent = self._expr(call.args[0]) if call.args else Const(1)
            self._bind_scalar(loop_variable, SpmdBinding, None, extent=to_json_value(extent))
        else:
            self._loop_variable(loop_variable, call, keywords)
        loop_binding = self._out.bindings[-1]
        loop = loop_binding.name if isinstance(loop_binding, ForBinding | SpmdBinding) else None
        for name, init in zip(carried, initial, strict=True):
            self._carried(name, init)
        self.enter_scope(kind == "spmd")
        self._loop_body(statement.body, loop)
        self.leave_scope(kind == "spmd")

    def _loop_variable(self, name: str, call: ast.Call, keywords: dict[str, ast.expr]) -> None:
        positional = list(call.args)
        if any(isinstance(argument, ast.Starred) for argument in positional) or len(positional) > 3:
            raise self._unsupported(call, "this loop range form")
        start_node, stop_node, step_node = _range_parts(positional, keywords)
        if stop_node is None:
            raise self._unsupported(call, "a loop range without a stop")
        start = self._expr(start_node) if start_node is not None else Const(0)
        stop = self._expr(stop_node)
        step = self._expr(step_node) if step_node is not None else Const(1)
        if isinstance(step, Const) and step.value <= 0:
            self._bind_scalar(name, ParamBinding, None)  # a non-positive step: no range fact
            return
        self._bind_scalar(
            name,
            ForBinding,
            None,
            start=to_json_value(start),
            stop=to_json_value(stop),
            step=to_json_value(step),
        )

    def _loop_targets(self, target: ast.expr) -> tuple[str, list[str]]:
        if isinstance(target, ast.Name):
            return target.id, []
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
            carried = _tuple_names(target.elts[1])
            if carried is not None:
                return target.elts[0].id, carried
        raise self._unsupported(target, "this loop target form")

    def _initial_values(self, node: ast.expr | None, count: int, call: ast.Call) -> list[ast.expr]:
        if node is None and count == 0:
            return []
        if isinstance(node, ast.Tuple | ast.List) and len(node.elts) == count:
            return list(node.elts)
        raise self._unsupported(call, "init_values that do not match the loop's carried names")

    def _carried(self, name: str, init: ast.expr) -> None:
        """A loop-carried value: a tensor or tile keeps the type of its init; a scalar is never resolved."""
        initial = self._values.get(init.id) if isinstance(init, ast.Name) else self._value(init)
        if isinstance(initial, TensorValue | TileValue):
            self._assign(name, initial)
        else:
            self._bind_scalar(name, IterArgBinding, None)

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
        for item in statement.items:
            if callee_of(item.context_expr) not in _SCOPE_CONTEXTS or item.optional_vars is not None:
                what = "a with-statement other than pl.spmd/pl.at/pl.scope/pl.incore(...)"
                raise self._unsupported(item.context_expr, what)
        kernel = any(is_kernel_scope(item.context_expr) for item in statement.items)
        self.enter_scope(kernel)
        self._block(statement.body)
        self.leave_scope(kernel)

    def _loop_body(self, statements: list[ast.stmt], loop: str | None) -> None:
        """Walk a loop body; a scalar it rebinds that existed before the loop is unknown afterwards
        (the body may run zero times). A scalar it rebinds is loop-carried inside it (section 7.3):
        an induction `x = x + c` of loop `loop` reads `init + c*i` before its update and
        `init + c*(i + 1)` after it; any other carried scalar is unconstrained."""
        steps = inductions(statements, self._constant_of) if loop is not None else {}
        updates: dict[int, tuple[str, int | str, Induction, ScalarType | None]] = {}
        for name in rebound_names(statements):
            if not (isinstance(self._values.get(name), ScalarValue) or name in self._constants):
                continue
            init, declared = self._before_loop(name)
            induction = steps.get(name)
            if induction is None or init is None or loop is None:
                self._bind_scalar(name, IterArgBinding, declared)
                continue
            self._bind_scalar(name, InductionBinding, declared, init=init, step=induction.step, loop=loop)
            updates[induction.index] = (name, init, induction, declared)
        before = set(self._values)
        self._assigned.append(set())
        for index, statement in enumerate(statements):
            self._statement = statement
            if index not in updates:
                self._dispatch(statement)
                continue
            name, init, induction, declared = updates[index]
            after = to_json_value(BinOp("+", parse_expr(init), Const(induction.step)))
            self._bind_scalar(name, InductionBinding, declared, init=after, step=induction.step, loop=loop)
        assigned = self._assigned.pop()
        for name in sorted(assigned):
            if name in before and isinstance(self._values.get(name), ScalarValue):
                self._values[name] = Unknown()
        self._assigned[-1] |= assigned

    def _constant_of(self, node: ast.expr) -> int | None:
        """An induction step: an int literal or an expression over known constants."""
        return constant_value(node, self._constants)

    def _before_loop(self, name: str) -> tuple[int | str | None, ScalarType | None]:
        """A carried scalar's value entering the loop (its request name or constant) and its declared type."""
        value = self._values.get(name)
        if isinstance(value, ScalarValue):
            return value.name, self._scalar_types.get(name)
        return self._constants.get(name), None


def _in_grammar(node: ast.expr) -> bool:
    """The top of the expression is a grammar node (its subterms may still be opaque)."""
    if int_literal(node) is not None or isinstance(node, ast.Name | ast.BinOp | ast.UnaryOp):
        return not isinstance(node, ast.UnaryOp) or isinstance(node.op, ast.USub | ast.UAdd)
    return callee_of(node) in ("min", "max", *SCALAR_CALLS)


def _tuple_names(node: ast.expr) -> list[str] | None:
    if not isinstance(node, ast.Tuple | ast.List):
        return None
    names = [element.id for element in node.elts if isinstance(element, ast.Name)]
    return names if len(names) == len(node.elts) else None


def _range_parts(
    positional: list[ast.expr], keywords: dict[str, ast.expr]
) -> tuple[ast.expr | None, ast.expr | None, ast.expr | None]:
    """`range(stop)`, `range(start, stop[, step])`, or the same by keyword."""
    padded: list[ast.expr | None] = [None, *positional] if len(positional) == 1 else [*positional]
    start, stop, step = [*padded, None, None, None][:3]
    return keywords.get("start", start), keywords.get("stop", stop), keywords.get("step", step)
