"""Constants of a kernel, resolved statically through its scopes and imports (nz-layout.md section 19).

A name a kernel reads resolves, in order, through the enclosing function scopes, the module,
and the modules it imports (`module_finder`), each read with `ast` and never run. A builder's
parameter resolves to its `--bind` value or its default, as a stated assumption (`planned for
build_x(batch=16)`); one without either stays symbolic. The work is bounded: at most
`MAX_MODULES` modules per kernel file, each read once; a name whose value depends on itself
(an import cycle included) is unresolved. Only `int` results become constants.
"""

from __future__ import annotations

import ast
import sys
import warnings
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Final, cast

from planner.adapters.pypto.constants.constant_eval import Evaluator, External, Instance, Traced, Unresolved
from planner.adapters.pypto.constants.extent_causes import (
    Cause,
    binding_cause,
    import_cause,
    mutation_cause,
    parameter_cause,
)
from planner.adapters.pypto.constants.module_finder import ModuleSource, ModuleText, NoModules, Unreadable
from planner.adapters.pypto.constants.scopes import (
    Assigned,
    Binding,
    Bindings,
    Defined,
    ImportedModule,
    ImportedName,
    Parameter,
    class_bindings,
    function_bindings,
    module_bindings,
    patched_attributes,
)

MAX_MODULES: Final = 256
INDEX_RANGE: Final = range(-(2**63), 2**63)
_BUILTINS: Final = frozenset({"min", "max", "abs", "int", "property"})
# Modules that are libraries, not the user's code: not finding one on the module path is normal.
_LIBRARIES: Final = sys.stdlib_module_names | {"pypto", "numpy", "torch", "pytest"}
_DATACLASS: Final = ("dataclasses.dataclass",)
_NAMED_TUPLE: Final = ("typing.NamedTuple", "typing_extensions.NamedTuple")
_FIELD: Final = "dataclasses.field"
_REPLACE: Final = "dataclasses.replace"
_FORBIDDEN_METHODS: Final = frozenset(
    {"__init__", "__new__", "__post_init__", "__getattr__", "__getattribute__"}
)


@dataclass(frozen=True)
class ImportWarning:
    """`adapter.pypto.unreadable_import`: an imported module that could not be read."""

    origin: str
    line: int | None
    message: str


@dataclass(eq=False)
class Scope:
    bindings: Bindings
    parent: Scope | None
    module: Module
    values: dict[str, Traced] = field(default_factory=dict)  # `self` of a property being read
    node: ast.AST | None = None  # the function or module whose body binds the names


@dataclass(eq=False)
class Module:
    text: ModuleText
    tree: ast.Module
    scope: Scope = field(init=False)


@dataclass(eq=False)
class Record:
    """A frozen dataclass or NamedTuple class: its fields (name, default node, defining scope).
    `plain`: a plain class of the kernel file, whose instances read its class attributes."""

    node: ast.ClassDef
    scope: Scope
    fields: tuple[tuple[str, ast.expr | None], ...]
    tuple_like: bool
    plain: bool = False


@dataclass(frozen=True)
class Resolved:
    value: int
    origin: str | None
    assumptions: frozenset[tuple[str, str, str]]  # (builder, parameter, value spelled)


class Resolver(Evaluator):
    """One kernel file's resolver: modules are read once and names memoised across its kernels."""

    def __init__(
        self, tree: ast.Module, text: ModuleText, source: ModuleSource | None, binds: Mapping[str, str]
    ) -> None:
        self._source = source or NoModules()
        self._binds = dict(binds)
        self._modules: dict[str, Module | None] = {}
        self.warnings: list[ImportWarning] = []
        self._memo: dict[tuple[int, str], Traced | None] = {}
        self._assumed: list[set[tuple[str, str, str]]] = [set()]
        self._memo_assumed: dict[tuple[int, str], frozenset[tuple[str, str, str]]] = {}
        self._memo_cause: dict[tuple[int, str], Cause | None] = {}
        self._missing: dict[str, str] = {}  # module name -> why it could not be read
        self._records: dict[int, Record | None] = {}
        self._scopes: dict[int, Scope] = {}  # by the id of a node of a tree this resolver keeps
        self.main = self._module(text, tree)
        self._patched = patched_attributes(tree, self.main.scope.bindings)

    def function_scope(self, function: ast.FunctionDef, parent: Scope) -> Scope:
        """The scope of a function defined in `parent` (kept: memoised names are keyed by scope)."""
        if id(function) not in self._scopes:
            self._scopes[id(function)] = Scope(
                function_bindings(function), parent, parent.module, node=function
            )
        return self._scopes[id(function)]

    def _class_scope(self, handle: _ClassHandle) -> Scope:
        if id(handle.node) not in self._scopes:
            self._scopes[id(handle.node)] = Scope(
                class_bindings(handle.node), handle.scope, handle.scope.module
            )
        return self._scopes[id(handle.node)]

    def resolve(self, node: ast.expr, scope: Scope) -> Resolved | None:
        """The int an expression certainly has, or None."""
        found = self._assuming(node, scope)
        if found is None:
            return None
        traced, assumed = found
        value = traced.value
        if type(value) is not int or value not in INDEX_RANGE:
            return None
        return Resolved(value, traced.origin, assumed)

    def resolve_path(
        self, node: ast.expr, scope: Scope
    ) -> tuple[str, frozenset[tuple[str, str, str]]] | None:
        """The dotted path of the library object an expression certainly names (`pl.FP16` through
        `dt = pl.FP16`, a builder default or a `--bind`), with the assumptions it took; or None."""
        found = self._assuming(node, scope)
        if found is None:
            return None
        traced, assumed = found
        return (traced.value.path, assumed) if isinstance(traced.value, External) else None

    def _assuming(
        self, node: ast.expr, scope: Scope
    ) -> tuple[Traced, frozenset[tuple[str, str, str]]] | None:
        """The expression's traced value with the assumptions it took, or None if it has none."""
        self._assumed.append(set())
        try:
            traced = self.evaluate(node, scope)
        except (Unresolved, RecursionError):
            return None
        finally:
            assumed = frozenset(self._assumed.pop())
        return traced, assumed

    def why(self, node: ast.expr, scope: Scope) -> Cause | None:
        """Why an expression has no certain int, when the resolver can say (section 19)."""
        self._assumed.append(set())
        try:
            traced = self.evaluate(node, scope)
        except Unresolved as exc:
            return exc.cause if isinstance(exc.cause, Cause) else None
        except RecursionError:
            return None
        finally:
            self._assumed.pop()
        value = traced.value
        if isinstance(value, External):
            module = next(
                (m for m in sorted(self._missing, key=len, reverse=True) if _within(value.path, m)), None
            )
            if module is not None:
                return import_cause(
                    ast.unparse(node), module, self._missing[module], self.main.text.origin, None
                )
        return None

    # ---- names ------------------------------------------------------------------------------------

    def lookup(self, scope: Any, name: str) -> Traced:
        current: Scope | None = scope
        while current is not None:
            if name in current.values:
                return current.values[name]
            if name in current.bindings.global_names:
                current = current.module.scope
                continue
            if current.bindings.binds(name):
                return self._bound(current, name)
            current = current.parent
        if name in _BUILTINS:
            return Traced(External(f"builtins.{name}"))
        raise Unresolved

    def _bound(self, scope: Scope, name: str) -> Traced:
        key = (id(scope), name)
        if key in self._memo:
            found = self._memo[key]
            if found is None:  # unresolvable, or a cycle back to a name being resolved
                raise Unresolved(self._memo_cause.get(key))
            self._assumed[-1].update(self._memo_assumed.get(key, frozenset()))
            return found
        self._memo[key] = None
        binding = scope.bindings.certain(name)
        if binding is None:
            self._memo_cause[key] = mutation_cause(name, scope.node, scope.module.text.origin)
            raise Unresolved(self._memo_cause[key])
        self._assumed.append(set())
        try:
            found = self._binding(scope, name, binding)
        except Unresolved as exc:
            cause = exc.cause
            if cause is None and isinstance(binding, Assigned):
                cause = self._assigned_cause(scope, name, binding.value)
            if isinstance(binding, Assigned) and (cause is None or cause.kind != "import_time"):
                cause = self._import_time_cause(scope, binding.value) or cause
            self._memo_cause[key] = cause
            raise Unresolved(cause) from None
        finally:
            assumed = self._assumed.pop()
            self._assumed[-1].update(assumed)
        self._memo[key] = found
        self._memo_assumed[key] = frozenset(assumed)
        return found

    def _binding(self, scope: Scope, name: str, binding: Binding) -> Traced:
        if isinstance(binding, Assigned):
            traced = self.evaluate(binding.value, scope)
            for index in binding.path:
                if not isinstance(traced.value, tuple | list) or index >= len(traced.value):
                    raise Unresolved
                traced = Traced(traced.value[index])
            return traced
        if isinstance(binding, ImportedModule):
            return self._module_value(binding.module, binding.module)
        if isinstance(binding, ImportedName):
            return self._imported_name(scope.module, binding)
        if isinstance(binding, Parameter):
            return self._parameter(scope, binding)
        if isinstance(binding.node, ast.ClassDef):
            return Traced(_ClassHandle(binding.node, scope))
        raise Unresolved

    def _assigned_cause(self, scope: Scope, name: str, value: ast.expr) -> Cause:
        """`name = value` failed without an inner cause: a read of a module that could not be
        read, else what the value itself is (`pl.dynamic(..)`, an `os.environ` read, ...)."""
        origin = scope.module.text.origin
        for inner in ast.walk(value):
            bound = scope.bindings.certain(inner.id) if isinstance(inner, ast.Name) else None
            module = bound.module if isinstance(bound, ImportedModule | ImportedName) else None
            if module is not None and module in self._missing:
                return import_cause(name, module, self._missing[module], origin, value.lineno)
        called = {
            inner.func.id: bound.node
            for inner in ast.walk(value)
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
            if isinstance(bound := scope.bindings.certain(inner.func.id), Defined)
            and isinstance(bound.node, ast.FunctionDef)
        }
        return binding_cause(name, value, origin, called)

    def _import_time_cause(self, scope: Scope, value: ast.expr) -> Cause | None:
        """A name the value reads that is chosen when the process starts: the cause that no
        other evaluation would remove (`KERNEL_PRESETS[ACTIVE_VARIANT]`)."""
        for inner in ast.walk(value):
            if not isinstance(inner, ast.Name) or not isinstance(scope.bindings.certain(inner.id), Assigned):
                continue
            try:
                self._bound(scope, inner.id)
            except Unresolved as exc:
                if exc.cause is not None and exc.cause.kind == "import_time":
                    return cast(Cause, exc.cause)
        return None

    def _parameter(self, scope: Scope, parameter: Parameter) -> Traced:
        spelled = self._binds.get(parameter.name)
        if spelled is not None:
            node: ast.expr | None = _parse_value(spelled)
        else:
            node = parameter.default
        if node is None and scope.parent is not None:
            function = parameter.function
            origin = scope.module.text.origin
            raise Unresolved(parameter_cause(function.name, parameter.name, function.lineno, origin))
        if node is None or scope.parent is None:
            raise Unresolved
        traced = self.evaluate(node, scope.parent)
        self._assumed[-1].add((parameter.function.name, parameter.name, ast.unparse(node)))
        return Traced(traced.value)

    # ---- modules ----------------------------------------------------------------------------------

    def _module(self, text: ModuleText, tree: ast.Module) -> Module:
        module = Module(text, tree)
        module.scope = Scope(module_bindings(tree), None, module, node=tree)
        return module

    def _load(self, name: str) -> Module | None:
        if name in self._modules:
            return self._modules[name]
        self._modules[name] = None
        if name == self.main.text.name and name:
            self._modules[name] = self.main
            return self.main
        if len(self._modules) > MAX_MODULES:
            raise Unresolved
        try:
            text = self._source.find(name)
        except Unreadable as exc:
            self.warnings.append(ImportWarning(exc.origin, None, f"cannot read {exc.origin}: {exc.reason}"))
            self._missing[name] = f"cannot be read ({exc.origin}: {exc.reason})"
            return None
        if text is None:
            if name.partition(".")[0] not in _LIBRARIES:
                self._missing[name] = "is not on the module path (--path DIR, PLANNER_PATH)"
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text.text, filename=text.origin)
        except SyntaxError as exc:
            message = f"{text.origin}:{exc.lineno}: not Python syntax: {exc.msg}"
            self.warnings.append(ImportWarning(text.origin, exc.lineno, message))
            self._missing[name] = f"cannot be read ({message})"
            return None
        except (ValueError, RecursionError, MemoryError) as exc:
            self.warnings.append(ImportWarning(text.origin, None, f"cannot parse {text.origin}: {exc}"))
            self._missing[name] = f"cannot be parsed ({text.origin})"
            return None
        self._modules[name] = self._module(text, tree)
        return self._modules[name]

    def _module_value(self, name: str, origin: str) -> Traced:
        module = self._load(name)
        return Traced(module if module is not None else External(name), origin)

    def _imported_name(self, importer: Module, binding: ImportedName) -> Traced:
        absolute = _absolute(importer.text.package, binding.module, binding.level)
        if absolute is None:
            raise Unresolved
        return self.attribute(self._module_value(absolute, absolute), binding.name)

    # ---- attributes and calls ---------------------------------------------------------------------

    def attribute(self, base: Traced, name: str) -> Traced:
        origin = f"{base.origin}.{name}" if base.origin is not None else None
        value = base.value
        if isinstance(value, Module):
            if {(value.text.name, name), (value.text.name, "*")} & self._patched:
                raise Unresolved  # the kernel's file stores into this module: its text is not the value
            if value.scope.bindings.binds(name):
                return Traced(self._bound(value.scope, name).value, origin)
            submodule = f"{value.text.name}.{name}" if value.text.name else name
            return Traced(self._module_value(submodule, submodule).value, origin)
        if isinstance(value, External):
            return Traced(External(f"{value.path}.{name}"), origin)
        if isinstance(value, Instance):
            return Traced(self._instance_attribute(value, name), origin)
        if isinstance(value, _ClassHandle):
            scope = self._class_scope(value)
            if scope.bindings.certain(name) is not None and not _is_function(scope.bindings.certain(name)):
                return Traced(self._bound(scope, name).value, origin)
        raise Unresolved

    def _instance_attribute(self, instance: Instance, name: str) -> Any:
        record: Record = instance.record
        try:
            return instance.field(name)
        except KeyError:
            pass
        for statement in record.node.body:
            if isinstance(statement, ast.FunctionDef) and statement.name == name:
                return self._property(record, statement, instance)
        if record.plain:
            return self.attribute(Traced(_ClassHandle(record.node, record.scope)), name).value
        raise Unresolved

    def _property(self, record: Record, method: ast.FunctionDef, instance: Instance) -> Any:
        """A `@property` whose body is one `return` (after a docstring), with `self` the instance."""
        body = method.body[1:] if _is_docstring(method.body[0]) else method.body
        decorators = [self.value(decorator, record.scope) for decorator in method.decorator_list]
        if decorators != [External("builtins.property")] or len(body) != 1:
            raise Unresolved
        returned = body[0]
        arguments = method.args
        if not isinstance(returned, ast.Return) or returned.value is None or len(arguments.args) != 1:
            raise Unresolved
        scope = Scope(
            Bindings(), record.scope, record.scope.module, {arguments.args[0].arg: Traced(instance)}
        )
        return self.value(returned.value, scope)

    def construct(self, record: Any, arguments: list[Any], keywords: dict[str, Any]) -> Any:
        if record == External(_REPLACE):
            return _replaced(arguments, keywords)
        if not isinstance(record, _ClassHandle):
            raise Unresolved
        if not arguments and not keywords and self._plain_class(record):
            return Instance(Record(record.node, record.scope, (), False, plain=True), ())
        found = self._record(record)
        if found is None or len(arguments) > len(found.fields):
            raise Unresolved
        names = [name for name, _ in found.fields]
        values: dict[str, Any] = dict(zip(names, arguments, strict=False))
        for name, value in keywords.items():
            if name not in names or name in values:
                raise Unresolved
            values[name] = value
        for name, default in found.fields:
            if name not in values:
                if default is None:
                    raise Unresolved
                values[name] = self.value(default, found.scope)
        return Instance(found, tuple((name, values[name]) for name in names))

    def _record(self, handle: _ClassHandle) -> Record | None:
        key = id(handle.node)
        if key not in self._records:
            self._records[key] = None
            with suppress(Unresolved):
                self._records[key] = self._read_record(handle)
        return self._records[key]

    def _read_record(self, handle: _ClassHandle) -> Record | None:
        node, scope = handle.node, handle.scope
        bases = [self.value(base, scope) for base in node.bases]
        tuple_like = bases != [] and all(isinstance(b, External) and b.path in _NAMED_TUPLE for b in bases)
        inherited: list[tuple[str, ast.expr | None]] = []
        if not tuple_like:
            if not any(self._frozen_dataclass(decorator, scope) for decorator in node.decorator_list):
                return None
            for base in bases:
                parent = self._record(base) if isinstance(base, _ClassHandle) else None
                if parent is None or parent.tuple_like:
                    return None
                inherited.extend(parent.fields)
        if node.keywords or any(
            isinstance(s, ast.FunctionDef) and s.name in _FORBIDDEN_METHODS for s in node.body
        ):
            return None
        fields = dict(inherited)
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                if "ClassVar" in ast.unparse(statement.annotation) or "InitVar" in ast.unparse(
                    statement.annotation
                ):
                    continue
                fields[statement.target.id] = self._default(statement.value, scope)
        return Record(node, scope, tuple(fields.items()), tuple_like)

    def _plain_class(self, handle: _ClassHandle) -> bool:
        """A class of the kernel file with no base, decorator, keyword or special method, that no
        statement of the file stores into: `M = _FlashConfig()` reads what `_FlashConfig.x`
        reads, as a module constant of the file does (section 19). Instances of an imported
        module's classes stay unread: any importer may change them."""
        node = handle.node
        if handle.scope.module is not self.main or node.bases or node.keywords or node.decorator_list:
            return False
        if any(isinstance(s, ast.FunctionDef) and s.name.startswith("__") for s in node.body):
            return False
        return not any(
            isinstance(inner, ast.Attribute | ast.Subscript)
            and isinstance(inner.ctx, ast.Store | ast.Del)
            and _root_name(inner) == node.name
            for inner in ast.walk(self.main.tree)
        )

    def _default(self, node: ast.expr | None, scope: Scope) -> ast.expr | None:
        """A field's default: the value, or `field(default=...)`; `default_factory` has none we read."""
        if isinstance(node, ast.Call):
            callee = self.value(node.func, scope)
            if callee == External(_FIELD):
                default = next((k.value for k in node.keywords if k.arg == "default"), None)
                if default is None:
                    raise Unresolved
                return default
        return node

    def _frozen_dataclass(self, decorator: ast.expr, scope: Scope) -> bool:
        """`@dataclass(frozen=True, ...)`: a mutable instance may be changed by any importer."""
        if not isinstance(decorator, ast.Call) or self.value(decorator.func, scope) not in [
            External(path) for path in _DATACLASS
        ]:
            return False
        options = {k.arg: k.value.value for k in decorator.keywords if isinstance(k.value, ast.Constant)}
        if decorator.args or len(options) != len(decorator.keywords):
            return False
        return (
            options.get("frozen") is True and options.get("init", True) is True and not options.get("kw_only")
        )


def _replaced(arguments: list[Any], keywords: dict[str, Any]) -> Instance:
    """`dataclasses.replace(PRO, max_position_embeddings=16384)`: a frozen dataclass instance with
    the named fields changed (the class has no `__post_init__` to run again: see `_read_record`)."""
    if len(arguments) != 1 or not isinstance(arguments[0], Instance):
        raise Unresolved
    instance = arguments[0]
    record: Record = instance.record
    names = [name for name, _ in instance.fields]
    if record.tuple_like or record.plain or any(name not in names for name in keywords):
        raise Unresolved
    return Instance(record, tuple((name, keywords.get(name, value)) for name, value in instance.fields))


@dataclass(frozen=True, eq=False)
class _ClassHandle:
    node: ast.ClassDef
    scope: Scope


def _within(path: str, module: str) -> bool:
    return path == module or path.startswith(f"{module}.")


def _absolute(package: str, module: str, level: int) -> str | None:
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    joined = ".".join([*base, *([module] if module else [])])
    return joined or None


def _parse_value(spelled: str) -> ast.expr | None:
    try:
        return ast.parse(spelled, mode="eval").body
    except SyntaxError:
        return None


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _is_function(binding: Binding | None) -> bool:
    return isinstance(binding, Defined) and not isinstance(binding.node, ast.ClassDef)
