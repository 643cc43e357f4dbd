"""Every kernel of a PyPTO source file, wherever it is defined (docs/design/nz-layout.md section 18).

Model libraries define their programs inside builder functions, test files inside `def test_...`
functions and test-class methods, several per file. The search walks the whole module (not
entering the bodies of the kernels themselves) and finds the `@pl.jit` family, `@jit` imported
from `pypto.jit`, module-level or nested `@pl.function` and `@pl.inline` functions, and the
`@pl.function` / `@pl.inline` methods of every `@pl.program` class. Each is named as Python
spells its qualified name (`build.<locals>.Decode.layer`); a kernel at module level, or a method
of a module-level program class, keeps its plain name, as the report already names the program.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from planner.adapters.pypto.base.expressions import dotted_name

# `@pl.jit` and its variants (PyPTO user guide, "Functions and Programs"); `.incore` is a kernel.
JIT_DECORATORS: Final = frozenset(
    {"pl.jit", "pl.jit.incore", "pl.jit.inline", "pl.jit.opaque", "pl.jit.host", "pl.jit.graph"}
)
FUNCTION_DECORATORS: Final = frozenset({"pl.function", "pl.inline"})
_JIT_MODULES: Final = ("pypto.jit", "pypto.jit.decorator", "pypto")


@dataclass(frozen=True)
class FoundKernel:
    """A kernel's definition, its canonical decorator spelling and where it sits."""

    node: ast.FunctionDef
    decorator: ast.expr
    spelled: str  # the decorator as `pl.jit.incore`, `pl.function`, ... whatever alias the file used
    name: str  # the name notes and reports use
    scopes: tuple[ast.FunctionDef, ...]  # enclosing function scopes, outermost first
    program_class: str  # the `@pl.program` class it is a method of, as Python qualifies it; "" outside one


def find_kernels(module: ast.Module) -> list[FoundKernel]:
    """The file's kernels in source order."""
    aliases = jit_aliases(module)
    found = list(_walk(module.body, "", (), aliases, top=True))
    found.sort(key=lambda kernel: (kernel.node.lineno, kernel.node.col_offset))
    return found


def decorator_name(node: ast.expr, aliases: dict[str, str] | None = None) -> str | None:
    """`@pl.function(type=...)` -> "pl.function"; a `jit` alias -> its `pl.jit` spelling."""
    spelled = dotted_name(node.func if isinstance(node, ast.Call) else node)
    if spelled is None or not aliases:
        return spelled
    head, _, rest = spelled.partition(".")
    return f"{aliases[head]}.{rest}".rstrip(".") if head in aliases else spelled


def is_program_class(node: ast.ClassDef) -> bool:
    return any(decorator_name(decorator) == "pl.program" for decorator in node.decorator_list)


def jit_aliases(module: ast.Module) -> dict[str, str]:
    """Names bound by `from pypto.jit(.decorator) import jit [as j]` -> "pl.jit"."""
    aliases: dict[str, str] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module in _JIT_MODULES and not node.level:
            for alias in node.names:
                if alias.name == "jit":
                    aliases[alias.asname or alias.name] = "pl.jit"
    return aliases


def _kernel_decorator(
    node: ast.FunctionDef, aliases: dict[str, str], allowed: frozenset[str]
) -> tuple[ast.expr, str] | None:
    for decorator in node.decorator_list:
        spelled = decorator_name(decorator, aliases)
        if spelled in allowed:
            return decorator, spelled
    return None


def _walk(
    statements: list[ast.stmt],
    prefix: str,
    scopes: tuple[ast.FunctionDef, ...],
    aliases: dict[str, str],
    *,
    top: bool,
) -> Iterator[FoundKernel]:
    for statement in statements:
        if isinstance(statement, ast.FunctionDef):
            found = _kernel_decorator(statement, aliases, JIT_DECORATORS | FUNCTION_DECORATORS)
            if found is not None:
                name = statement.name if top else prefix + statement.name
                yield FoundKernel(statement, found[0], found[1], name, scopes, "")
                continue
            inner = f"{prefix}{statement.name}.<locals>."
            yield from _walk(statement.body, inner, (*scopes, statement), aliases, top=False)
        elif isinstance(statement, ast.ClassDef):
            yield from _class(statement, prefix, scopes, aliases, top=top)
        elif isinstance(statement, ast.AsyncFunctionDef):
            continue  # a coroutine defines no kernel PyPTO traces
        else:
            for block in ("body", "orelse", "finalbody", "handlers"):
                nested = getattr(statement, block, [])
                blocks = [handler.body for handler in nested] if block == "handlers" else [nested]
                for inner_block in blocks:
                    yield from _walk(inner_block, prefix, scopes, aliases, top=top)


def _class(
    node: ast.ClassDef,
    prefix: str,
    scopes: tuple[ast.FunctionDef, ...],
    aliases: dict[str, str],
    *,
    top: bool,
) -> Iterator[FoundKernel]:
    """A program class's kernel methods; any other class is searched like a module (class scopes are
    not enclosing scopes of their methods)."""
    inner = f"{prefix}{node.name}."
    if not is_program_class(node):
        yield from _walk(node.body, inner, scopes, aliases, top=False)
        return
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef):
            found = _kernel_decorator(statement, aliases, FUNCTION_DECORATORS)
            if found is not None:
                name = statement.name if top else inner + statement.name
                yield FoundKernel(statement, found[0], found[1], name, scopes, inner.removesuffix("."))
