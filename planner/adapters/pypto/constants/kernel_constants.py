"""The constants one kernel reads: every name, attribute chain and subscript in its text that the
resolver gives a certain int (docs/design/nz-layout.md section 19).

Each is keyed by its spelling (`HIDDEN`, `M.hidden_size`, `SHAPES[1]`), so the reader folds it
wherever that spelling occurs; a name the kernel binds itself shadows every key it roots.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from planner.adapters.pypto.constants.extent_causes import Cause
from planner.adapters.pypto.constants.module_finder import ModuleSource, ModuleText
from planner.adapters.pypto.constants.resolver import ImportWarning, Resolver, Scope
from planner.adapters.pypto.constants.scopes import function_bindings
from planner.targets.ascend import ASCEND_DTYPES


@dataclass(frozen=True)
class KernelConstants:
    values: dict[str, int] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # spelling -> the imported path it was read from
    assumptions: tuple[str, ...] = ()  # `build_x(batch=16)`, one per builder whose parameters it assumes
    dtypes: dict[str, str] = field(default_factory=dict)  # spelling -> the dtype it names (`dt` -> FP16)
    causes: dict[str, Cause] = field(default_factory=dict)  # spelling -> why it stays symbolic


@dataclass(frozen=True)
class ResolveContext:
    """Where imported modules come from and which builder parameters `--bind` sets."""

    source: ModuleSource | None = None
    module: str = ""  # the kernel file's dotted module name ("" when unknown)
    package: str = ""  # where its relative imports start
    binds: Mapping[str, str] = field(default_factory=dict)


class FileConstants:
    """The resolver of one kernel file, shared by its kernels."""

    def __init__(self, tree: ast.Module, text: str, filename: str, context: ResolveContext) -> None:
        module = ModuleText(context.module, context.package, filename, text)
        self._resolver = Resolver(tree, module, context.source, context.binds)

    @property
    def warnings(self) -> list[ImportWarning]:
        return self._resolver.warnings

    def of(self, node: ast.FunctionDef, scopes: tuple[ast.FunctionDef, ...]) -> KernelConstants:
        scope: Scope = self._resolver.main.scope
        for function in scopes:
            scope = self._resolver.function_scope(function, scope)
        found = KernelConstants()
        assumed: dict[str, dict[str, str]] = {}
        own = function_bindings(node)
        for spelling, expression in _read_terms(node).items():
            resolved = self._resolver.resolve(expression, scope)
            if resolved is None:
                dtype = self._dtype(expression, scope, assumed)
                if dtype is not None:
                    found.dtypes[spelling] = dtype
                elif _extent_like(expression) and not own.binds(_root_name(expression)):
                    cause = self._resolver.why(expression, scope)
                    if cause is not None:
                        found.causes[spelling] = cause
                continue
            found.values[spelling] = resolved.value
            if resolved.origin is not None:
                found.origins[spelling] = resolved.origin
            for builder, parameter, value in sorted(resolved.assumptions):
                assumed.setdefault(builder, {})[parameter] = value
        calls = tuple(
            f"{builder}({', '.join(f'{name}={value}' for name, value in sorted(parameters.items()))})"
            for builder, parameters in sorted(assumed.items())
        )
        return KernelConstants(found.values, found.origins, calls, found.dtypes, found.causes)

    def _dtype(self, expression: ast.expr, scope: Scope, assumed: dict[str, dict[str, str]]) -> str | None:
        """The dtype a non-literal spelling names (`dt` bound to `pl.BF16`), or None."""
        if isinstance(expression, ast.Attribute) and dtype_of_path(ast.unparse(expression)) is not None:
            return None  # a literal `pl.FP16` is read where it is written
        found = self._resolver.resolve_path(expression, scope)
        dtype = dtype_of_path(found[0]) if found is not None else None
        if found is not None and dtype is not None:
            for builder, parameter, value in sorted(found[1]):
                assumed.setdefault(builder, {})[parameter] = value
        return dtype


def dtype_of_path(path: str) -> str | None:
    """`pypto.language.FP16` / `pypto.language.DataType.FP16` (or `pl.` spelled) -> "FP16"."""
    parts = path.split(".")
    if len(parts) < 2 or parts[0] not in ("pypto", "pl") or parts[-1] not in ASCEND_DTYPES:
        return None
    return parts[-1] if parts[-2] in ("language", "DataType", "pl") else None


def _read_terms(node: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names, attribute chains and subscripts the kernel reads, by spelling, outermost first."""
    terms: dict[str, ast.expr] = {}
    parts: list[ast.AST] = [*node.args.defaults, *node.body]
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    parts += [argument.annotation for argument in arguments if argument.annotation is not None]
    if node.returns is not None:
        parts.append(node.returns)
    for part in parts:
        for inner in ast.walk(part):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                terms.setdefault(inner.id, inner)
            elif isinstance(inner, ast.Attribute | ast.Subscript) and _rooted(inner):
                terms.setdefault(ast.unparse(inner), inner)
    return terms


def _extent_like(node: ast.expr) -> bool:
    """A name, an attribute chain or a constant subscript of one (`N`, `M.hidden`, `SHAPES[1]`):
    what can stand for an extent, and so have a cause worth stating."""
    while isinstance(node, ast.Attribute) or (
        isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
    ):
        node = node.value
    return isinstance(node, ast.Name)


def _root_name(node: ast.expr) -> str:
    """The name an attribute or subscript chain starts from (`M` of `M.hidden[0]`)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _rooted(node: ast.expr) -> bool:
    """An attribute or subscript chain on a name, with no call in it."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name)
