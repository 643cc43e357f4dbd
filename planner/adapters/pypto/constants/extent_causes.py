"""Why a name a kernel reads stays symbolic (docs/design/nz-layout.md section 19).

The planner sees only the request: "got a dynamic extent N_EXPERTS". The cause is known where
the name was resolved, so the resolver records it (`Cause`), with the file and line that make
it so, and the adapter prints it as a note beside a dynamic-extent diagnostic and reports it as
`unresolved` (`UnresolvedExtent`) in the plan report and in `suggest --json`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from planner.adapters.protocol import ExtentCauseKind, UnresolvedExtent
from planner.adapters.pypto.base.expressions import dotted_name

# Reads that make a value depend on how the process was started: chosen when the module is imported.
_IMPORT_TIME: Final = frozenset(
    {"os.environ", "os.getenv", "os.environb", "sys.argv", "environ", "getenv", "argv"}
)
_DYNAMIC: Final = frozenset({"pl.dynamic", "dynamic", "pypto.language.dynamic"})
_EXTENT_CODES: Final = frozenset({"nz.dynamic_trailing_extent", "nz.dynamic_leading_extent"})
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Cause:
    """One reason a binding has no certain value, where it is written."""

    kind: ExtentCauseKind
    file: str
    line: int | None
    message: str

    def named(self, name: str) -> UnresolvedExtent:
        return UnresolvedExtent(
            name=name, cause=self.kind, file=self.file, line=self.line, message=self.message
        )


def binding_cause(
    name: str, value: ast.expr, file: str, called: Mapping[str, ast.FunctionDef] | None = None
) -> Cause:
    """Why `name = value` has no value the reader computes. `called`: the module's functions the
    value calls, by name (`ACTIVE_VARIANT = _consume_variant_argv()` reads `sys.argv` in one)."""
    line = value.lineno
    if isinstance(value, ast.Call) and dotted_name(value.func) in _DYNAMIC:
        return Cause("dynamic", file, line, f"declared dynamic: {ast.unparse(value)} at {file}:{line}")
    read = next((spelled for spelled in _spellings(value) if spelled in _IMPORT_TIME), None)
    if read is not None:
        message = f"chosen at import time: {name} reads {read} at {file}:{line}"
        return Cause("import_time", file, line, message)
    for function_name, function in (called or {}).items():
        inner = next((each for each in _reads(function) if each[0] in _IMPORT_TIME), None)
        if inner is not None:
            message = (
                f"chosen at import time: {name} = {ast.unparse(value)} at {file}:{line} calls "
                f"{function_name}, which reads {inner[0]} at {file}:{inner[1]}"
            )
            return Cause("import_time", file, inner[1], message)
    message = f"{name} = {ast.unparse(value)} at {file}:{line} is not evaluated statically"
    return Cause("not_evaluated", file, line, message)


def parameter_cause(builder: str, parameter: str, line: int, file: str) -> Cause:
    message = (
        f"{parameter} is a parameter of builder {builder} at {file}:{line} without a default; "
        f"--bind {parameter}=VALUE gives it one"
    )
    return Cause("builder_parameter", file, line, message)


def mutation_cause(name: str, scope: ast.AST | None, file: str) -> Cause:
    """A name bound more than once, or changed after it is bound: the first such line."""
    line = _second_binding(name, scope) if scope is not None else None
    where = f"{file}:{line}" if line is not None else file
    return Cause("mutated", file, line, f"{name} is bound again or changed after it is bound, at {where}")


def import_cause(name: str, module: str, reason: str, file: str, line: int | None) -> Cause:
    message = f"{name} is read from module {module}, which {reason}"
    return Cause("unreadable_import", file, line, message)


def diagnostic_causes(
    code: str, message: str, spelling: dict[str, str], causes: dict[str, Cause]
) -> list[tuple[str, Cause]]:
    """The causes of the names a dynamic-extent diagnostic's message spells, in order."""
    if code not in _EXTENT_CODES or not causes:
        return []
    found: dict[str, Cause] = {}
    for word in _WORD.findall(message):
        spelled = spelling.get(word, word)
        if spelled in causes:
            found.setdefault(spelled, causes[spelled])
    return list(found.items())


def _reads(function: ast.FunctionDef) -> list[tuple[str, int]]:
    """Every name and attribute chain a function's body spells, with its line, in order."""
    found = [
        (spelled, each.lineno)
        for statement in function.body
        for each in ast.walk(statement)
        if isinstance(each, ast.expr) and (spelled := dotted_name(each)) is not None
    ]
    return sorted(found, key=lambda read: read[1])


def _spellings(node: ast.expr) -> list[str]:
    """Every name and attribute chain the expression spells."""
    inner = [each for each in ast.walk(node) if isinstance(each, ast.expr)]
    return [spelled for each in inner if (spelled := dotted_name(each)) is not None]


def _second_binding(name: str, scope: ast.AST) -> int | None:
    """The line of the name's second store, or of the first change through it (`X.append`, `X[0] =`)."""
    stores: list[int] = []
    changes: list[int] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store | ast.Del):
            stores.append(node.lineno)
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if _root(node) == name:
                changes.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _root(node.func) == name:
            changes.append(node.lineno)
    stores.sort()
    candidates = sorted([*stores[1:], *changes])
    return candidates[0] if candidates else (stores[0] if stores else None)


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
