"""A program as its text reads after a few edits, built from the unedited program's one parse.

`planner suggest` plans each candidate weight as if its annotation said `pl.NZ`. Reading the
whole edited file again costs the file's size per candidate; instead only the functions an
edit falls inside are parsed again, from their own lines of the edited text, so their nodes
carry the positions the edited file gives them. Everything else (module constants, imports,
the constants each kernel reads, the other functions, what a call by name reaches) is the
unedited reading, which an edit of a parameter's annotation does not change. Edits never add
or remove a line break, so every line keeps its number and only the edited lines' text changes.
"""

from __future__ import annotations

import ast
import copy
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TypeAlias

from planner.adapters.pypto.base.splicing import LINE_BREAK, Edit, SourceText
from planner.adapters.pypto.reading.program import Program, ProgramFunction

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BLOCK = "if 1:\n"  # lets an indented definition parse on its own


# A function read again, by its index and the edits inside it: what it reads as does not depend
# on edits elsewhere (they move no line, and no column of its lines), so the candidates of one
# program that edit a function alike (a caller annotated along with each of its callees'
# weights) share one reading of it.
KeptFunctions: TypeAlias = dict[tuple[int, frozenset[Edit]], ProgramFunction]


def edited_program(
    program: Program, edits: Sequence[Edit], functions: Iterable[int], kept: KeptFunctions | None = None
) -> Program:
    """The program of the edited text; `functions` are the indices of those the edits fall inside.
    `kept`: the functions read again for earlier edits of this same program, added to here."""
    source = program.source.edited(edits)
    read = list(program.functions)
    for index in set(functions):
        read[index] = _read_again(program.source, source, read[index], (index, edits), kept)
    spelled = frozenset(word for edit in edits for word in _WORD.findall(edit.text))
    identifiers = program.identifiers if spelled <= program.identifiers else program.identifiers | spelled
    return replace(program, source=source, functions=tuple(read), identifiers=identifiers)


def _read_again(
    original: SourceText,
    edited: SourceText,
    function: ProgramFunction,
    edited_at: tuple[int, Sequence[Edit]],
    kept: KeptFunctions | None,
) -> ProgramFunction:
    """The function as the edited text reads; a signature read again alone is kept (and found)
    by the function's index and the edits inside it (`edited_at`: that index and every edit)."""
    index, edits = edited_at
    key = (index, _edits_inside(original, function, edits))
    if kept is not None and key in kept:
        return kept[key]
    grafted = _reparsed_signature(original, edited, function.node)
    if grafted is None:  # read from the text around it too: not kept
        return _reparsed(original, edited, function)
    again = replace(function, node=grafted)
    if kept is not None:
        kept[key] = again
    return again


def _edits_inside(source: SourceText, function: ProgramFunction, edits: Sequence[Edit]) -> frozenset[Edit]:
    """The edits within the definition's text, from its first decorator's line to its end."""
    start = source.offset(_first_line_node(function).lineno, 0)  # type: ignore[attr-defined]
    end = source.end(function.node)
    return frozenset(edit for edit in edits if start <= edit.start and edit.end <= end)


def _first_line_node(function: ProgramFunction) -> ast.AST:
    """The first decorator, or the `def` itself: where the definition's text begins."""
    node = function.node
    return min([node, *node.decorator_list], key=lambda item: item.lineno)  # type: ignore[attr-defined]


def _reparsed(original: SourceText, edited: SourceText, function: ProgramFunction) -> ProgramFunction:
    """The function with its node parsed again from its lines of the edited text."""
    first = _first_line_node(function)
    first_line: int = first.lineno  # type: ignore[attr-defined]
    last_line = function.node.end_lineno or first_line
    lead = original.text[original.offset(first_line, 0) : original.start(first)]  # indent (and `@`)
    indented = lead.removesuffix(lead.lstrip(" \t\f"))
    if lead[len(indented) :].removeprefix("@" if first is not function.node else "").strip(" \t\f"):
        # other code precedes the definition on its line: read the whole text
        return replace(function, node=_found(_parse(edited.text), function.node))
    start = edited.offset(first_line, 0)
    last = LINE_BREAK.search(edited.text, edited.offset(last_line, 0))
    lines = edited.text[start : last.end() if last else len(edited.text)]
    if not indented:
        node, parsed_line = _parse(lines).body[0], 1
    else:
        block = _parse(_BLOCK + lines).body[0]
        node, parsed_line = block.body[0], 2  # type: ignore[attr-defined]
    assert isinstance(node, ast.FunctionDef)
    # renumbered by a walk of the function, not by parsing blank lines for every line above it:
    # each candidate then costs its function's size, not the file's
    return replace(function, node=ast.increment_lineno(node, first_line - parsed_line))


def _reparsed_signature(
    original: SourceText, edited: SourceText, node: ast.FunctionDef
) -> ast.FunctionDef | None:
    """The definition with its parameters parsed again from the edited lines of its signature, and
    its decorators, return type and body the very nodes it had: the body starts on a later line
    than every parameter ends, so no edit of a parameter moves it (and what was found of it once
    still holds). None when the body starts on a parameter's line or code precedes `def` on its line."""
    ends = [parameter.end_lineno or parameter.lineno for parameter in _parameters(node.args)]
    indent = original.text[original.offset(node.lineno, 0) : original.start(node)]
    if node.body[0].lineno <= max(ends, default=node.lineno) or indent.strip(" \t\f"):
        return None
    start = edited.offset(node.lineno, 0)
    lines = edited.text[start : edited.offset(node.body[0].lineno, 0)]
    stub = lines + indent + " pass\n"  # the signature's own lines, and a body that parses
    if not indent:
        parsed, parsed_line = _parse(stub).body[0], 1
    else:
        parsed, parsed_line = _parse(_BLOCK + stub).body[0].body[0], 2  # type: ignore[attr-defined]
    assert isinstance(parsed, ast.FunctionDef)
    grafted = copy.copy(node)
    grafted.args = ast.increment_lineno(parsed.args, node.lineno - parsed_line)
    return grafted


def _parameters(arguments: ast.arguments) -> list[ast.arg]:
    packed = [parameter for parameter in (arguments.vararg, arguments.kwarg) if parameter is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *packed]


def _found(module: ast.Module, node: ast.FunctionDef) -> ast.FunctionDef:
    """The definition at the same line as `node` in the parsed text."""
    return next(
        item for item in ast.walk(module) if isinstance(item, ast.FunctionDef) and item.lineno == node.lineno
    )


def _parse(text: str) -> ast.Module:
    """Parse as the program itself was parsed: the text is data, not code to run, so no warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)
