"""May-reach over a function body as a value-flow graph, built in one walk (nz-layout.md section 18).

Each binding of a name is a graph node whose predecessors are the nodes its value was read
from; a seed node stands for a source (a window, a parameter). At an `if` the names the arms
bind differently meet in a merge node; at a loop every name its body rebinds gets a merge
node at the loop's entry, fed by the value before the loop and by the value at the end of
the body (the back edge), so a value bound at the bottom reaches a use at the top on any
later iteration. A use marks the node it reads; a seed is reached when a path leads from it
to a marked node. Every statement is walked once, so the work is the program's size times
its loop nesting depth (which Python's tokenizer caps at 100 levels), not exponential in it.
"""

from __future__ import annotations

import ast
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

from planner.adapters.pypto.requests.carried import rebound_names

Label = TypeVar("Label", bound=Hashable)
Env = dict[str, int]  # name -> the node of its current value


class ValueFlow(Generic[Label]):
    """The graph: nodes are ints, `_feeds[n]` lists the nodes `n`'s value was read from."""

    def __init__(self) -> None:
        self._feeds: list[list[int]] = []
        self._labels: dict[int, Label] = {}
        self._used: list[int] = []

    def seed(self, label: Label) -> int:
        node = self.node(())
        self._labels[node] = label
        return node

    def node(self, feeds: Iterable[int]) -> int:
        self._feeds.append(list(feeds))
        return len(self._feeds) - 1

    def feed(self, node: int, source: int) -> None:
        self._feeds[node].append(source)

    def use(self, nodes: Iterable[int]) -> None:
        self._used.extend(nodes)

    def reached(self) -> frozenset[Label]:
        """The labels of the seeds some path leads from to a used node."""
        seen = set(self._used)
        stack = list(seen)
        while stack:
            for source in self._feeds[stack.pop()]:
                if source not in seen:
                    seen.add(source)
                    stack.append(source)
        return frozenset(self._labels[node] for node in seen if node in self._labels)


class StructuredWalk(Generic[Label]):
    """The walk; subclasses say what an expression reads (`sources`) and what it uses (`mark`)."""

    def __init__(self) -> None:
        self.flow: ValueFlow[Label] = ValueFlow()

    def sources(self, node: ast.expr, env: Env) -> list[int]:
        """The nodes the value of an expression was read from."""
        raise NotImplementedError

    def mark(self, node: ast.expr, env: Env) -> None:
        """Record the uses in an expression (`self.flow.use`)."""
        raise NotImplementedError

    def bind_loop_target(self, statement: ast.For, env: Env) -> Env:
        """The loop's names on entry: by default its target reads nothing."""
        return unbind(env, statement.target)

    def bind(self, target: ast.expr, value: ast.expr, env: Env, updated: Env) -> None:
        if isinstance(target, ast.Name):
            updated[target.id] = self.flow.node(self.sources(value, env))
            return
        self.mark(target, env)
        for name in _names(target):
            updated.pop(name, None)

    def block(self, statements: list[ast.stmt], env: Env) -> Env:
        for statement in statements:
            env = self.statement(statement, env)
        return env

    def statement(self, statement: ast.stmt, env: Env) -> Env:
        if isinstance(statement, ast.For):
            return self._loop(statement, env)
        if isinstance(statement, ast.If):
            self.mark(statement.test, env)
            return self._merge(self.block(statement.body, dict(env)), self.block(statement.orelse, dict(env)))
        if isinstance(statement, ast.With):
            for item in statement.items:
                self.mark(item.context_expr, env)
            return self.block(statement.body, env)
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            self.mark(statement.value, env)
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            updated = dict(env)
            for target in targets:
                self.bind(target, statement.value, env, updated)
            return updated
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.expr):
                self.mark(child, env)
        return env

    def _loop(self, statement: ast.For, env: Env) -> Env:
        """One walk of the body between entry merge nodes and their back edges."""
        self.mark(statement.iter, env)
        entry = self.bind_loop_target(statement, env)
        heads: Env = {}
        for name in rebound_names(statement.body):
            before = entry.get(name)
            heads[name] = entry[name] = self.flow.node(() if before is None else (before,))
        end = self.block(statement.body, dict(entry))
        for name, head in heads.items():
            if name in end and end[name] != head:
                self.flow.feed(head, end[name])
        after = dict(env)
        for name in end.keys() | heads.keys():
            if name in heads:
                after[name] = self._joined(env.get(name), heads[name])
            elif end.get(name) != env.get(name):
                after[name] = self._joined(env.get(name), end[name])
        return after

    def _joined(self, left: int | None, right: int) -> int:
        return right if left is None or left == right else self.flow.node((left, right))

    def _merge(self, left: Env, right: Env) -> Env:
        """What a name may hold after either of two paths (a name unbound on one keeps the other's)."""
        merged: Env = {}
        for name in left.keys() | right.keys():
            one, other = left.get(name), right.get(name)
            merged[name] = self._joined(one, other) if other is not None else one  # type: ignore[assignment]
        return merged


def unbind(env: Env, target: ast.expr) -> Env:
    names = set(_names(target))
    return {name: node for name, node in env.items() if name not in names}


def _names(target: ast.expr) -> list[str]:
    return [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]
