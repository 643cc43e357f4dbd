"""Source positions and byte-exact splicing (docs/design/nz-layout.md 17: unmodified text round-trips).

`ast` reports columns as UTF-8 byte offsets into a line, while the text is edited and
diagnostics are printed in characters; this module is the one place that converts. Every
character outside an edited span is copied through unchanged.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import overload

from planner.adapters.outcome import AdapterInputError

# The line terminators Python's tokenizer recognises (a lone CR included).
LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SourcePosition:
    """A 1-based line and a 1-based column counted in characters."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the characters `[start, end)` of the text by `text`."""

    start: int
    end: int
    text: str


class SourceText:
    """The input text with character offsets for `ast` node positions."""

    def __init__(self, text: str, line_starts: Sequence[int] | None = None) -> None:
        self.text = text
        self._line_starts = line_starts or [0, *(match.end() for match in LINE_BREAK.finditer(text))]

    def edited(self, edits: Iterable[Edit]) -> SourceText:
        """The text after `edits`, none of which adds or removes a line break: each line start is
        this text's, moved by the edits before it, never searched for again."""
        ordered = sorted(edits, key=lambda item: (item.start, item.end))
        moves = [
            (bisect_right(self._line_starts, edit.start), len(edit.text) - (edit.end - edit.start))
            for edit in ordered
        ]
        return SourceText(apply_edits(self.text, ordered), _MovedStarts(self._line_starts, moves))

    def offset(self, line: int, byte_column: int) -> int:
        """Character offset of a (1-based line, UTF-8 byte column) pair as `ast` reports it."""
        start = self._line_starts[line - 1]
        stop = self._line_starts[line] if line < len(self._line_starts) else len(self.text)
        line_text = self.text[start:stop]
        if line_text.isascii():
            return start + byte_column
        return start + len(line_text.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]

    def position(self, node: ast.AST) -> SourcePosition:
        line = node.lineno  # type: ignore[attr-defined]
        return SourcePosition(line, self.start(node) - self._line_starts[line - 1] + 1)

    def error(self, code: str, message: str, node: ast.AST) -> AdapterInputError:
        """A typed input error located at the node."""
        position = self.position(node)
        return AdapterInputError(code, message, position.line, position.column)

    def line_indent(self, node: ast.AST) -> str | None:
        """The node's indentation, or None when other code precedes it on its line."""
        line_start = self._line_starts[node.lineno - 1]  # type: ignore[attr-defined]
        prefix = self.text[line_start : self.start(node)]
        return prefix if prefix.strip(" \t\f") == "" else None

    def line_break_after(self, node: ast.AST) -> str:
        """The terminator of the node's last line, so inserted lines match the file's style."""
        match = LINE_BREAK.search(self.text, self.end(node))
        return match.group(0) if match else "\n"


class _MovedStarts(Sequence[int]):
    """Line starts after edits within lines: `base[i]` plus the length change of every edit before line i."""

    def __init__(self, base: Sequence[int], moves: list[tuple[int, int]]) -> None:
        self._base = base
        self._moves = moves  # (first line index the edit moves, its length change), in text order

    def __len__(self) -> int:
        return len(self._base)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        position = index + len(self) if index < 0 else index
        return self._base[index] + sum(change for first, change in self._moves if position >= first)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Splice non-overlapping edits into the text; every other character is kept."""
    pieces: list[str] = []
    cursor = 0
    for edit in sorted(edits, key=lambda item: (item.start, item.end)):
        if edit.start < cursor:
            raise ValueError(f"overlapping edits at character {edit.start}")
        pieces.append(text[cursor : edit.start])
        pieces.append(edit.text)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)
