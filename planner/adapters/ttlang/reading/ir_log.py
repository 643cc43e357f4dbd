"""MLIR's IR-printing log read as the IR it dumps, not as a split file.

`--mlir-print-ir-before-all` / `-after-all` (TT-Lang's `TTLANG_VERBOSE_PASSES=1`) write one
section per pass run, each under a header line

    // -----// IR Dump Before <Pass> (<pass-argument>) ('<op>' operation: @<symbol>) //----- //

(the scope part absent or `('builtin.module' operation)` for a module pass; `After <Pass>
Failed` after a failure). The header starts with `// -----`, which `-split-input-file` takes
for a chunk separator; in a log it is not one. What is planned is the IR as it reached the
config pass: the sections dumped just before `ttl-set-compute-kernel-config`, one per function
when the pass runs on functions (each holds its function alone, or its whole module under
`--mlir-print-ir-module-scope`; either way function `@f` is taken from its own section; a
header without the function's name, as TT-Lang 1.1.1's bindings print, holds the function
alone), else the last dump. `section` (`--section TEXT`) picks the first section whose header holds TEXT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.base.codes import NO_IR_DUMP
from planner.adapters.ttlang.reading.source import Chunk, ParsedChunk, is_blank, parse_chunk, split_chunks
from planner.targets.tenstorrent import KNOWN_TARGETS

_HEADER = re.compile(r"^// -----// IR Dump (Before|After) (.*?)//----- //[ \t]*$", re.MULTILINE)
_PASS_ARGUMENT = re.compile(r"\(([^()'\s]+)\)")
_SCOPE = re.compile(r"\('([^']+)' operation(?:: @([^)\s]+))?\)")
_MODULE = re.compile(r"^(?:builtin\.)?module\b", re.MULTILINE)
CONFIG_PASS = "ttl-set-compute-kernel-config"


@dataclass(frozen=True)
class DumpSection:
    """One dump: its header line, whether it was dumped before the pass, the pass's argument,
    the function it was dumped for (None: a module dump), and the IR after the header."""

    header: str
    before: bool
    pass_argument: str | None
    function: str | None
    chunk: Chunk

    @property
    def header_line(self) -> int:
        return self.chunk.first_line - 1


@dataclass(frozen=True)
class ChunkToPlan:
    """A chunk to plan, the functions to plan in it (None: all), and, for a dump of functions
    alone, the module header whose attributes (target, system description) they ran under."""

    chunk: Chunk
    functions: frozenset[str] | None = None
    module_header: Chunk | None = None
    module_known: bool = True


@dataclass(frozen=True)
class InputChunks:
    """What a file gives to plan: its chunks, and, for a log, the notes saying which dumps
    were taken."""

    chunks: tuple[ChunkToPlan, ...]
    notes: tuple[str, ...] = ()


def is_ir_log(text: str) -> bool:
    """Whether `text` holds an IR-printing header."""
    return _HEADER.search(text) is not None


def dump_sections(text: str) -> list[DumpSection]:
    """Every dump of a log, in order; each runs from after its header to the next header."""
    headers = list(_HEADER.finditer(text))
    sections: list[DumpSection] = []
    for index, header in enumerate(headers):
        start = header.end() + 1 if text.startswith("\n", header.end()) else header.end()
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        title = header.group(2)
        argument = _PASS_ARGUMENT.search(title)
        scope = _SCOPE.search(title)
        chunk = Chunk(text[start:end], start, text.count("\n", 0, start) + 1)
        sections.append(
            DumpSection(
                header.group(0).rstrip(),
                header.group(1) == "Before",
                argument.group(1) if argument is not None else None,
                scope.group(2) if scope is not None and scope.group(1) == "func.func" else None,
                chunk,
            )
        )
    return sections


def _holds_module(found: DumpSection) -> bool:
    """Whether a dump holds a whole module (MLIR prints it at the start of a line) rather than
    one function alone."""
    return _MODULE.search(found.chunk.text) is not None


def _chosen(sections: list[DumpSection], section: str | None) -> list[DumpSection]:
    """The sections to plan: the one `section` names, else those before the config pass, else
    the last dump that holds IR.

    Before the config pass: the first section of each function its header names; without names,
    every section when each holds one function alone (the pass ran on each function), else the
    first (it ran on the module).
    """
    if section is not None:
        return [found for found in sections if section in found.header][:1]
    config = [found for found in sections if found.before and found.pass_argument == CONFIG_PASS]
    if config:
        if all(found.function is not None for found in config):
            first_per_function = {found.function: found for found in reversed(config)}
            return sorted(first_per_function.values(), key=lambda found: found.chunk.offset)
        if not any(_holds_module(found) for found in config):
            return config
        return config[:1]
    holding_ir = [found for found in sections if not is_blank(found.chunk.text)]
    return holding_ir[-1:]


def _module_header(sections: list[DumpSection], found: DumpSection) -> Chunk | None:
    """For a dump of functions alone: the last earlier dump of the module, cut after its header
    line and closed, so reading it gives the module's attributes (and the aliases before it)."""
    if _holds_module(found):
        return None
    earlier = [
        other for other in sections if other.chunk.offset < found.chunk.offset and _holds_module(other)
    ]
    if not earlier:
        return None
    chunk = earlier[-1].chunk
    header = _MODULE.search(chunk.text)
    assert header is not None
    line_end = chunk.text.find("\n", header.start())
    head = chunk.text[: len(chunk.text) if line_end < 0 else line_end]
    if not head.rstrip().endswith("{"):
        return None
    return Chunk(head + "\n}\n", chunk.offset, chunk.first_line)


def _module_line(header: Chunk) -> int:
    """The line of the module op in a module header chunk."""
    found = _MODULE.search(header.text)
    assert found is not None
    return header.first_line + header.text.count("\n", 0, found.start())


def input_chunks(text: str, filename: str, section: str | None = None) -> InputChunks:
    """A split file's chunks, or the sections of an IR-printing log to plan (with the note)."""
    if not is_ir_log(text):
        if section is not None:
            message = f"{filename}: --section picks a dump of an IR-printing log; {_LOOKED_FOR}"
            raise AdapterInputError(NO_IR_DUMP, message)
        return InputChunks(tuple(ChunkToPlan(chunk) for chunk in split_chunks(text)[0]))
    sections = dump_sections(text)
    chosen = _chosen(sections, section)
    if not chosen or all(is_blank(found.chunk.text) for found in chosen):
        missing = f"no dump's header holds '{section}'" if section is not None else "no dump holds IR"
        raise AdapterInputError(NO_IR_DUMP, f"{filename}: {missing}; {_LOOKED_FOR}")
    picked: list[ChunkToPlan] = []
    notes: list[str] = []
    for found in chosen:
        only = frozenset({found.function}) if found.function is not None and section is None else None
        header = _module_header(sections, found)
        known = header is not None or _holds_module(found)
        picked.append(ChunkToPlan(found.chunk, only, header, known))
        borrowed = f"; with the attributes of the module at line {_module_line(header)}" if header else ""
        if not known:
            borrowed = (
                "; it holds functions alone and no earlier dump shows their module, so the module's "
                "attributes (its target) are not known: a function is planned only where its plan is "
                f"the same under every target ({', '.join(KNOWN_TARGETS)}), unless --target-arch names "
                "the target; print the log with --mlir-print-ir-module-scope to show them"
            )
        notes.append(
            f"{filename}:{found.header_line}:1: note: planned the IR dumped under '{found.header}' "
            f"(line {found.header_line} of the log{borrowed})"
        )
    return InputChunks(tuple(picked), tuple(notes))


def read_chunk(planned: ChunkToPlan, filename: str) -> ParsedChunk:
    """Parse a chunk to plan; functions dumped alone get the attributes of the module they ran in."""
    parsed = parse_chunk(planned.chunk, filename)
    parsed.module_known = planned.module_known
    if planned.module_header is not None:
        header = parse_chunk(planned.module_header, filename).module
        module = header.ops.first if isinstance(header.ops.first, ModuleOp) else header
        for name, value in module.attributes.items():
            parsed.module.attributes.setdefault(name, value)
    return parsed


_LOOKED_FOR = "looked for MLIR's '// -----// IR Dump Before|After <Pass> (<arg>) //----- //' sections"
