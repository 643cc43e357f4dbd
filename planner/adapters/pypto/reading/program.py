"""The module level of a PyPTO file: printed IR or user source (docs/design/nz-layout.md sections 17, 18).

Printed IR: `# pypto.program: NAME`, `import pypto.language as pl`, one `@pl.program class NAME:`
whose `@pl.function(...)` methods are the functions to plan. Source: a file that imports
`pypto.language as pl` and uses its decorators without the printer's header; its kernels are
the `@pl.jit` family of module-level functions and the methods of every `@pl.program` class.
Module-level integer assignments are program constants. The text is only parsed with `ast`;
any other module-level statement is neither read nor run.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Final, Literal, TypeAlias

from pydantic import JsonValue

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.expressions import constant_value, dotted_name
from planner.adapters.pypto.base.splicing import LINE_BREAK, SourceText
from planner.adapters.pypto.constants.kernel_constants import FileConstants, KernelConstants, ResolveContext
from planner.adapters.pypto.constants.resolver import ImportWarning
from planner.adapters.pypto.reading.kernels import (
    FUNCTION_DECORATORS,
    JIT_DECORATORS,
    FoundKernel,
    decorator_name,
    find_kernels,
)
from planner.adapters.pypto.reading.skipped import SkippedKernel, find_skipped

# Python's whitespace (space, tab, form feed) may stand before and after the comment.
_HEADER = re.compile(r"[ \t\f]*#[ \t\f]*pypto\.program:[ \t\f]*([A-Za-z_][A-Za-z0-9_]*)[ \t\f]*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STAMP = "nz_tensor_views_blocked"
_KERNEL_DECORATORS: Final = frozenset({"pl.jit.incore"})
_INCORE: Final = "pl.FunctionType.InCore"

Form: TypeAlias = Literal["printed", "source"]


@dataclass(frozen=True)
class ProgramFunction:
    """One function to plan: a `@pl.function` method or a `@pl.jit` function, with its attributes.

    `kernel`: the whole body runs on a core (an InCore function or `@pl.jit.incore`), so a
    tensor window read there is a tile load (section 18)."""

    node: ast.FunctionDef
    decorator: ast.expr
    attrs: dict[str, JsonValue]
    attrs_node: ast.Dict | None
    method: bool = True
    kernel: bool = False
    name: str = ""  # as notes and reports name it (`kernels`); the function's own name when empty
    scopes: tuple[ast.FunctionDef, ...] = ()  # enclosing function scopes, outermost first
    constants: KernelConstants | None = None  # source: what it reads that resolves (section 19)
    program_class: str = ""  # of a method: its `@pl.program` class, whose methods `self.f` calls reach

    @property
    def qualified(self) -> str:
        return self.name or self.node.name

    def reached_from(self, caller: ProgramFunction, *, via_self: bool) -> bool:
        """Whether a call by this function's name in `caller` reaches it: `self.f` the methods of the
        caller's own program class (a file may hold many classes with an `f`), a bare `f` the
        functions that are not methods."""
        if via_self:
            return self.method and self.program_class == caller.program_class
        return not self.method


@dataclass(frozen=True)
class Callees:
    """What a call by a function's name reaches, found once per program: every function read
    looks it up, so reading n kernels costs n lookups, not n passes over the functions. An
    edit of a parameter's annotation changes neither the names nor which functions declare a
    return type, so an edited program keeps its program's."""

    free: frozenset[str]  # functions that are not methods: a source call by a bare name calls one
    returning: Mapping[str, tuple[int, ...]]  # by name, the functions declaring a return type, in file order

    @classmethod
    def of(cls, functions: tuple[ProgramFunction, ...]) -> Callees:
        returning: dict[str, list[int]] = {}
        for index, function in enumerate(functions):
            if function.node.returns is not None:
                returning.setdefault(function.node.name, []).append(index)
        free = frozenset(function.node.name for function in functions if not function.method)
        return cls(free, {name: tuple(indices) for name, indices in returning.items()})


@dataclass(frozen=True)
class Program:
    name: str
    source: SourceText
    constants: dict[str, int]
    functions: tuple[ProgramFunction, ...]
    identifiers: frozenset[str]  # every name spelled in the text: fresh names avoid them
    callees: Callees  # of `functions`
    form: Form = "printed"
    warnings: tuple[ImportWarning, ...] = ()  # imported modules that could not be read
    skipped: tuple[SkippedKernel, ...] = ()  # kernels defined in a way the reader does not follow


def parse_program(text: str, filename: str, context: ResolveContext | None = None) -> Program:
    """Parse (never execute) the text and find the program's parts, or raise `AdapterInputError`.
    `context` says where the modules a source file imports come from (none by default)."""
    source = SourceText(text)
    module = _parse_module(text, filename)
    header = next(filter(None, map(_HEADER.fullmatch, LINE_BREAK.split(text))), None)
    if not any(_is_pl_import(statement) for statement in module.body):
        raise _not_a_program("missing 'import pypto.language as pl'")
    if header is None:
        return _source_program(source, module, filename, context or ResolveContext())
    for jit in _jit_functions(module):
        raise source.error(
            codes.UNSUPPORTED_CONSTRUCT,
            f"unsupported construct: @pl.jit function {jit.name!r} in a printed program "
            "(a '# pypto.program:' file holds one @pl.program class)",
            jit,
        )
    program_class = _program_class(module)
    if program_class.name != header.group(1):
        raise source.error(
            codes.NOT_A_PROGRAM,
            f"the header names program {header.group(1)!r} "
            f"but the @pl.program class is {program_class.name!r}",
            program_class,
        )
    functions = _methods(source, program_class)
    identifiers = _identifiers(text)
    return Program(
        program_class.name, source, _constants(module), functions, identifiers, Callees.of(functions)
    )


def _source_program(
    source: SourceText, module: ast.Module, filename: str, context: ResolveContext
) -> Program:
    """Section 18: every kernel of the file, wherever it is defined (`kernels`), in file order,
    with the constants it reads (section 19)."""
    kernels = find_kernels(module)
    skipped = tuple(find_skipped(module, source))
    if not kernels and not skipped:
        raise _not_a_program("no @pl.jit function, no @pl.program class and no '# pypto.program:' header")
    resolved = FileConstants(module, source.text, filename, context)
    functions = tuple(
        replace(_source_function(source, kernel), constants=resolved.of(kernel.node, kernel.scopes))
        for kernel in kernels
    )
    name = PurePath(filename).stem if filename != "<input>" else "<input>"
    identifiers = _identifiers(source.text)
    warnings = tuple(resolved.warnings)
    callees = Callees.of(functions)
    return Program(
        name, source, _constants(module), functions, identifiers, callees, "source", warnings, skipped
    )


def _source_function(source: SourceText, kernel: FoundKernel) -> ProgramFunction:
    """A `@pl.function` without `self` (a host function of a program, or one outside any class) is
    read like a `@pl.jit` function."""
    node = kernel.node
    positional = [*node.args.posonlyargs, *node.args.args]
    method = bool(kernel.program_class) and bool(positional) and positional[0].arg == "self"
    owner = kernel.program_class if method else ""
    if kernel.spelled in FUNCTION_DECORATORS:
        function = _program_function(source, node, kernel.decorator, opaque_attrs=True)
        return replace(function, method=method, name=kernel.name, scopes=kernel.scopes, program_class=owner)
    incore = kernel.spelled in _KERNEL_DECORATORS
    return ProgramFunction(
        node, kernel.decorator, {}, None, method, incore, kernel.name, kernel.scopes, program_class=owner
    )


def _methods(source: SourceText, program_class: ast.ClassDef) -> tuple[ProgramFunction, ...]:
    return tuple(
        replace(_program_function(source, statement, decorator), program_class=program_class.name)
        for statement in program_class.body
        if isinstance(statement, ast.FunctionDef)
        for decorator in statement.decorator_list
        if _is_decorator(decorator, "pl.function")
    )


def _jit_functions(module: ast.Module) -> list[ast.FunctionDef]:
    """Module-level functions decorated with the `@pl.jit` family."""
    return [
        statement
        for statement in module.body
        if isinstance(statement, ast.FunctionDef)
        and any(decorator_name(d) in JIT_DECORATORS for d in statement.decorator_list)
    ]


def _parse_module(text: str, filename: str) -> ast.Module:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning: the text is data here, not code to run
            return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise AdapterInputError(
            codes.SYNTAX_ERROR, f"not Python syntax: {exc.msg}", exc.lineno, exc.offset
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise AdapterInputError(codes.SYNTAX_ERROR, f"cannot parse the text: {exc}") from None


def _not_a_program(reason: str) -> AdapterInputError:
    return AdapterInputError(codes.NOT_A_PROGRAM, f"not a PyPTO program: {reason}", 1, 1)


def _is_pl_import(statement: ast.stmt) -> bool:
    """`import pypto.language as pl` or `from pypto import language as pl`."""
    if isinstance(statement, ast.ImportFrom) and statement.module == "pypto" and not statement.level:
        return any(alias.name == "language" and alias.asname == "pl" for alias in statement.names)
    return isinstance(statement, ast.Import) and any(
        alias.name == "pypto.language" and alias.asname == "pl" for alias in statement.names
    )


def _is_decorator(node: ast.expr, name: str) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return dotted_name(target) == name


def _program_class(module: ast.Module) -> ast.ClassDef:
    classes = [
        statement
        for statement in module.body
        if isinstance(statement, ast.ClassDef)
        and any(_is_decorator(decorator, "pl.program") for decorator in statement.decorator_list)
    ]
    if len(classes) != 1:
        found = "none" if not classes else f"{len(classes)}"
        raise _not_a_program(f"expected exactly one @pl.program class, found {found}")
    return classes[0]


def _program_function(
    source: SourceText, node: ast.FunctionDef, decorator: ast.expr, *, opaque_attrs: bool = False
) -> ProgramFunction:
    """`opaque_attrs` (source): attrs that are not a literal dict of string keys are not read;
    only printed IR carries the attribute planning reads (`STAMP`), always as a literal."""
    attrs_node: ast.Dict | None = None
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg != "attrs":
                continue
            literal = isinstance(keyword.value, ast.Dict) and all(
                isinstance(key, ast.Constant) and isinstance(key.value, str) for key in keyword.value.keys
            )
            if not literal and opaque_attrs:
                continue
            if not isinstance(keyword.value, ast.Dict):
                raise source.error(
                    codes.UNSUPPORTED_CONSTRUCT, "@pl.function attrs must be a literal dict", keyword.value
                )
            attrs_node = keyword.value
    incore = isinstance(decorator, ast.Call) and any(
        keyword.arg == "type" and dotted_name(keyword.value) == _INCORE for keyword in decorator.keywords
    )
    return ProgramFunction(node, decorator, _literal_attrs(source, attrs_node), attrs_node, True, incore)


def _literal_attrs(source: SourceText, node: ast.Dict | None) -> dict[str, JsonValue]:
    """A literal `{"key": value}` dict; non-literal values are kept as their source text."""
    if node is None:
        return {}
    attrs: dict[str, JsonValue] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            message = "@pl.function attrs keys must be strings"
            raise source.error(codes.UNSUPPORTED_CONSTRUCT, message, key or value)
        attrs[key.value] = json_literal(value)
    return attrs


def json_literal(node: ast.expr) -> JsonValue:
    """A literal constant as JSON; anything else as its source text (it is never evaluated)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool | int | float | str | type(None)):
        return node.value
    return ast.unparse(node)


def _constants(module: ast.Module) -> dict[str, int]:
    """`NAME = <integer expression over earlier constants>` at module level (section 7.3)."""
    constants: dict[str, int] = {}
    for statement in module.body:
        target, value = _simple_assignment(statement)
        if target is None or value is None:
            continue
        folded = constant_value(value, constants)
        if folded is None:
            constants.pop(target, None)
        else:
            constants[target] = folded
    return constants


def _simple_assignment(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        return (target.id if isinstance(target, ast.Name) else None), statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id, statement.value
    return None, None


def _identifiers(text: str) -> frozenset[str]:
    """Every identifier-like word of the text (a superset of its names: comments and strings count)."""
    return frozenset(_WORD.findall(text))


def imports_pypto(text: str) -> bool:
    """The text imports some `pypto` module (or is not Python at all: the reader says so then)."""
    try:
        module = _parse_module(text.removeprefix("\ufeff"), "<input>")
    except AdapterInputError:
        return True
    return any(
        (
            isinstance(node, ast.Import)
            and any(alias.name.partition(".")[0] == "pypto" for alias in node.names)
        )
        or (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and (node.module or "").partition(".")[0] == "pypto"
        )
        for node in ast.walk(module)
    )
