"""The constructs of a kernel the planner does not model pass through (docs/design/nz-layout.md 18).

A scope the reader does not know (`with pl.manual_scope():`, `with pl.cluster():`, anything
`as name`) groups statements; a loop over anything but a known range (`pl.split_aiv(2)`, a
list), a `while` loop, a `try` or a `match` is a region whose body may run any number of
times in any order: every scalar it rebinds is unconstrained inside it and unknown after it,
and its loop variables are unconstrained. Nested definitions, imports, `del`, `assert`,
`raise`, `break` and `continue` bind or constrain nothing the plan relies on. None of this
is ever assumed to be anything: where such a construct reaches an NZ tensor, that tensor's
use is an op the planner does not know, refused as `nz.unsupported_consumer`.
"""

from __future__ import annotations

import ast

from planner.adapters.pypto.requests.loops import LoopReader
from planner.adapters.pypto.requests.model import TensorValue, Unknown
from planner.layout.protocol import OtherOp
from planner.proofs.protocol import ParamBinding

_REGIONS = (ast.While, ast.Try, ast.Match)
_NOTHING_BOUND = (ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)


class PassThroughReader(LoopReader):
    """Statement forms outside the modelled grammar."""

    def passes_through(self, statement: ast.stmt) -> bool:
        """Read `statement` if it is one of the unmodelled forms; False for any other statement."""
        if isinstance(statement, _NOTHING_BOUND):
            return True
        if isinstance(statement, _REGIONS):
            self._region(statement)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self._assign(statement.name, Unknown())
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                self._assign((alias.asname or alias.name).partition(".")[0], Unknown())
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                self.unmodelled(target, "del")
                self._unbind_names(target)
        elif isinstance(statement, ast.Assert | ast.Raise):
            for child in ast.iter_child_nodes(statement):
                if isinstance(child, ast.expr):
                    self.unmodelled(child, type(statement).__name__.lower())
        else:
            return False
        return True

    def unmodelled(self, node: ast.expr, what: str) -> None:
        """Read an expression the reader does not model: its ops are read, and an NZ tensor named
        directly in it is used by `what`, which the planner does not know."""
        self._value(node)
        seen: list[str] = []
        for name in _names_outside_calls(node):
            value = self._values.get(name.id)
            if isinstance(value, TensorValue) and value.is_nz and value.name not in seen:
                seen.append(value.name)
        if seen:
            self._add_op(OtherOp(id=self._next_id(what), op=what, args=seen), node, {})

    def unknown_loop(self, statement: ast.For) -> None:
        """`for x in <anything>`: the targets are unconstrained, the body a region."""
        self.unmodelled(statement.iter, "for")
        self._region_body([*statement.body, *statement.orelse], statement.target)

    def unknown_scope(self, statement: ast.With) -> None:
        """A `with` the reader does not know: its `as` names are unknown values."""
        for item in statement.items:
            self.unmodelled(item.context_expr, "with")
        for item in statement.items:
            if item.optional_vars is not None:
                self._unbind_names(item.optional_vars)

    def _region(self, statement: ast.While | ast.Try | ast.Match) -> None:
        if isinstance(statement, ast.While):
            self.unmodelled(statement.test, "while")
            self._region_body([*statement.body, *statement.orelse], None)
        elif isinstance(statement, ast.Match):
            self.unmodelled(statement.subject, "match")
            self._region_body([s for case in statement.cases for s in case.body], None)
        else:
            handlers = [s for handler in statement.handlers for s in handler.body]
            self._region_body([*statement.body, *handlers, *statement.orelse, *statement.finalbody], None)

    def _region_body(self, statements: list[ast.stmt], target: ast.expr | None) -> None:
        if target is not None:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self._bind_scalar(name.id, ParamBinding, None)
        self._loop_body(statements, None)

    def _unbind_names(self, target: ast.expr) -> None:
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                self._assign(name.id, Unknown())


def _names_outside_calls(node: ast.expr) -> list[ast.Name]:
    """The names an expression reads, not counting call arguments (the call reads those itself)."""
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.Call):
        return []
    return [
        name
        for child in ast.iter_child_nodes(node)
        if isinstance(child, ast.expr)
        for name in _names_outside_calls(child)
    ]
