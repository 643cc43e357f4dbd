"""What a module or function body binds, read statically (docs/design/nz-layout.md section 19).

Only a binding that is certain counts: a name bound once, by a top-level statement of the body
(an assignment, an import, a `def` or `class`); a name bound twice (its value then depends on
where it is read) or that the body also binds anywhere else (inside an `if`, a loop, a `with`,
a `try`, by `global`, `nonlocal`, `del`, an augmented assignment or a `:=`) could hold either
value and is ambiguous; so is a value whose items or attributes are changed; a body with
a star import could bind any name, so every name it does not bind itself is ambiguous too.
An ambiguous name is never given a value.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, TypeAlias

_SETTERS: Final = frozenset({"setattr", "delattr"})


@dataclass(frozen=True)
class Assigned:
    """`name = value`, or element `path` of a tuple assigned as a whole (`M, K = 64, 128`)."""

    value: ast.expr
    path: tuple[int, ...] = ()


@dataclass(frozen=True)
class ImportedModule:
    """`import a.b` (binds `a`: `module` is "a") or `import a.b as c` (`module` is "a.b")."""

    module: str


@dataclass(frozen=True)
class ImportedName:
    """`from module import name` with `level` leading dots."""

    module: str
    name: str
    level: int


@dataclass(frozen=True)
class Defined:
    """A `def` or `class` statement."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True)
class Parameter:
    """A parameter of a builder function: its default, if any, is an assumption (section 19)."""

    function: ast.FunctionDef
    name: str
    default: ast.expr | None


Binding: TypeAlias = Assigned | ImportedModule | ImportedName | Defined | Parameter


@dataclass
class Bindings:
    """The certain bindings of one scope, and the names it binds ambiguously."""

    names: dict[str, Binding] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    star_import: bool = False
    global_names: set[str] = field(default_factory=set)  # `global x` in a function: not its own

    def binds(self, name: str) -> bool:
        return name in self.names or name in self.ambiguous or self.star_import

    def bind(self, name: str, binding: Binding) -> None:
        if name in self.names:
            self.ambiguous.add(name)
        self.names[name] = binding

    def certain(self, name: str) -> Binding | None:
        if name in self.ambiguous or name not in self.names:
            return None
        return self.names[name]


def module_bindings(module: ast.Module) -> Bindings:
    found = Bindings()
    _body(module.body, found)
    _mutated(ast.walk(module), found)
    for node in ast.walk(module):  # `global x` in any function rebinds the module's x at run time
        if isinstance(node, ast.Global):
            found.ambiguous.update(node.names)
    return found


def function_bindings(function: ast.FunctionDef) -> Bindings:
    found = Bindings()
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += list(arguments.defaults)
    for parameter, default in zip(positional, defaults, strict=True):
        found.names[parameter.arg] = Parameter(function, parameter.arg, default)
    for parameter, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        found.names[parameter.arg] = Parameter(function, parameter.arg, default)
    for packed in (arguments.vararg, arguments.kwarg):
        if packed is not None:
            found.ambiguous.add(packed.arg)
    _body(function.body, found)
    _mutated((node for statement in function.body for node in ast.walk(statement)), found)
    for statement in function.body:
        for node in _walk_scope(statement):
            if isinstance(node, ast.Global):
                found.global_names.update(node.names)
    return found


def class_bindings(node: ast.ClassDef) -> Bindings:
    found = Bindings()
    _body(node.body, found)
    return found


def _body(statements: list[ast.stmt], found: Bindings) -> None:
    for statement in statements:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                _target(target, statement.value, (), found)
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            _target(statement.target, statement.value, (), found)
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                bound = alias.asname or alias.name.partition(".")[0]
                module = alias.name if alias.asname else bound
                found.bind(bound, ImportedModule(module))
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if alias.name == "*":
                    found.star_import = True
                else:
                    module = statement.module or ""
                    found.bind(alias.asname or alias.name, ImportedName(module, alias.name, statement.level))
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.bind(statement.name, Defined(statement))
            continue  # its body is its own scope; its decorators and defaults bind nothing here
        else:
            _ambiguous(statement, found)
            continue
        for node in _walk_scope(statement):  # `x = (y := 3)` binds y as well
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                found.ambiguous.add(node.target.id)


def _mutated(nodes: Iterable[ast.AST], found: Bindings) -> None:
    """An assigned value whose method is called (`X.append(1)`) or whose item or attribute is
    stored (`X[0] = 1`) may change after it was bound: its name is ambiguous."""
    for node in nodes:
        base: ast.expr | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = node.func.value
        elif isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            base = node.value
        while isinstance(base, ast.Attribute | ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name) and isinstance(found.names.get(base.id), Assigned):
            found.ambiguous.add(base.id)


def patched_attributes(module: ast.Module, found: Bindings) -> frozenset[tuple[str, str]]:
    """`(module, attribute)` pairs a file stores into a module it imports (`config.FLASH = ...`,
    `setattr(config, "FLASH", ...)`; `*` when the attribute is not spelled): who reads them from
    that module sees the stored value, not the one the module's text gives."""
    patched: set[tuple[str, str]] = set()
    for node in ast.walk(module):
        stores = isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del)
        root, path = _stored_path(node) if stores and isinstance(node, ast.expr) else (None, [])
        imported = found.names.get(root) if root is not None else None
        if isinstance(imported, ImportedModule):
            dotted = imported.module
            for step in path:  # `a.b.X = 1` after `import a.b` changes `b` of `a` and `X` of `a.b`
                patched.add((dotted, step))
                dotted = f"{dotted}.{step}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SETTERS:
            first = node.args[0] if node.args else None
            imported = found.names.get(first.id) if isinstance(first, ast.Name) else None
            if isinstance(imported, ImportedModule):
                spelled = node.args[1] if len(node.args) > 1 else None
                attribute = spelled.value if isinstance(spelled, ast.Constant) else None
                patched.add((imported.module, attribute if isinstance(attribute, str) else "*"))
    return frozenset(patched)


def _stored_path(node: ast.expr) -> tuple[str | None, list[str]]:
    """The name a store through `node` changes, and the attributes it goes through before its
    first subscript (`a.b[0].c = ...`: `a` and `[b]`)."""
    path: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        path = [node.attr, *path] if isinstance(node, ast.Attribute) else []
        node = node.value
    return (node.id, path) if isinstance(node, ast.Name) else (None, [])


def _target(target: ast.expr, value: ast.expr, path: tuple[int, ...], found: Bindings) -> None:
    if isinstance(target, ast.Name):
        found.bind(target.id, Assigned(value, path))
    elif isinstance(target, ast.Tuple | ast.List) and not any(
        isinstance(e, ast.Starred) for e in target.elts
    ):
        for index, element in enumerate(target.elts):
            _target(element, value, (*path, index), found)
    else:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.ambiguous.add(node.id)


def _ambiguous(statement: ast.stmt, found: Bindings) -> None:
    """Every name a compound or augmented statement stores to, at this scope's level."""
    for node in _walk_scope(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            found.ambiguous.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.ambiguous.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    found.star_import = True
                found.ambiguous.add((alias.asname or alias.name).partition(".")[0])
        elif isinstance(node, ast.Global | ast.Nonlocal):
            found.ambiguous.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            found.ambiguous.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.ambiguous.add(node.rest)


def _walk_scope(node: ast.AST) -> list[ast.AST]:
    """The nodes of a statement that belong to the enclosing scope (not nested function, class,
    lambda or comprehension bodies, whose names are their own; the definitions themselves count)."""
    found: list[ast.AST] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if current is not node and isinstance(
            current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
        ):
            continue
        if isinstance(current, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return found
