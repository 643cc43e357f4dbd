"""Loops of a function body: loop variables, iter_args and loop-carried scalars (nz-layout.md 7.2, 7.3).

Every loop kind binds its variable with start, stop and step as written (an SPMD loop its lane
extent): a countdown, or a step of unknown sign, is read by `planner.proofs.loops`' one rule
for `range`; a literal step of 0 binds an unconstrained variable.
A scalar the body rebinds is loop-carried for the whole body: `x = x + c` is an induction of
the loop, anything else an unconstrained value; after the loop it is unknown (the body may
run zero times). Printed-IR iter_args keep a tensor's or tile's type and leave a scalar
unconstrained.
"""

from __future__ import annotations

import ast
from abc import abstractmethod
from typing import Final

from planner.adapters.pypto.base.expressions import callee_of, constant_value, tuple_names
from planner.adapters.pypto.reading.types import ScalarType
from planner.adapters.pypto.requests.carried import Induction, inductions, rebound_names
from planner.adapters.pypto.requests.model import ScalarValue, TensorValue, TileValue, Unknown
from planner.adapters.pypto.requests.window_syntax import WindowReader
from planner.proofs.expr import BinOp, Const, Expr, parse_expr, to_json_value
from planner.proofs.protocol import ForBinding, InductionBinding, IterArgBinding, ParamBinding, SpmdBinding

_LOOP_KINDS: Final = {
    "pl.range": "for",
    "pl.pipeline": "for",
    "pl.parallel": "for",
    "pl.unroll": "for",
    "range": "for",
    "pl.spmd": "spmd",
}


def is_range_loop(statement: ast.For) -> bool:
    """A loop this reader binds: a call of a known range over a name or a `(name, (carried...))` target."""
    target = statement.target
    pair = isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
    targets = isinstance(target, ast.Name) or (
        pair and isinstance(target, ast.Tuple) and tuple_names(target.elts[1]) is not None
    )
    known = isinstance(statement.iter, ast.Call) and (callee_of(statement.iter) or "") in _LOOP_KINDS
    return known and targets and not statement.orelse


class LoopReader(WindowReader):
    """Reads `for` statements; the statement reader supplies how a body statement is read."""

    @abstractmethod
    def _dispatch(self, statement: ast.stmt) -> None:
        """Read one statement of a loop body."""

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
        if initial is None:  # source: init values the reader does not pair up, none of them NZ
            initial = [ast.Constant(None) for _ in carried]
        extent: Expr | None = None
        if kind == "spmd":
            extent = self._expr(call.args[0]) if call.args else Const(1)
            self._bind_scalar(loop_variable, SpmdBinding, None, extent=to_json_value(extent))
        else:
            self._loop_variable(loop_variable, call, keywords)
        loop_binding = self._out.bindings[-1]
        loop = loop_binding.name if isinstance(loop_binding, ForBinding | SpmdBinding) else None
        for name, init in zip(carried, initial, strict=True):
            self._carried(name, init)
        self.enter_scope(kind == "spmd", extent)
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
        if isinstance(step, Const) and step.value == 0:
            self._bind_scalar(name, ParamBinding, None)  # `range` refuses a zero step: no range fact
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
            carried = tuple_names(target.elts[1])
            if carried is not None:
                return target.elts[0].id, carried
        raise self._unsupported(target, "this loop target form")

    def _initial_values(self, node: ast.expr | None, count: int, call: ast.Call) -> list[ast.expr] | None:
        """One init expression per carried name; None (source only) when they do not pair up
        but no name in them holds an NZ tensor, so every carried value is an unknown scalar."""
        if node is None and count == 0:
            return []
        if isinstance(node, ast.Tuple | ast.List) and len(node.elts) == count:
            return list(node.elts)
        if self._reads_source and not self._names_nz(node):
            if node is not None:
                self._value(node)
            return None
        raise self._unsupported(call, "init_values that do not match the loop's carried names")

    def _names_nz(self, node: ast.expr | None) -> bool:
        """Some name in the expression holds an NZ tensor (or a tile of one)."""
        names = [inner.id for inner in ast.walk(node) if isinstance(inner, ast.Name)] if node else []
        held = [self._values.get(name) for name in names]
        return any(isinstance(value, TensorValue) and value.is_nz for value in held) or any(
            isinstance(value, TileValue) for value in held
        )

    def _carried(self, name: str, init: ast.expr) -> None:
        """A loop-carried value: a tensor or tile keeps the type of its init; a scalar is never resolved."""
        initial = self._values.get(init.id) if isinstance(init, ast.Name) else self._value(init)
        if isinstance(initial, TensorValue | TileValue):
            self._assign(name, initial)
        else:
            self._bind_scalar(name, IterArgBinding, None)

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


def _range_parts(
    positional: list[ast.expr], keywords: dict[str, ast.expr]
) -> tuple[ast.expr | None, ast.expr | None, ast.expr | None]:
    """`range(stop)`, `range(start, stop[, step])`, or the same by keyword."""
    padded: list[ast.expr | None] = [None, *positional] if len(positional) == 1 else [*positional]
    start, stop, step = [*padded, None, None, None][:3]
    return keywords.get("start", start), keywords.get("stop", stop), keywords.get("step", step)
