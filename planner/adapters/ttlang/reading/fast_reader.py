"""Reading the common shape of TT-Lang MLIR fast, with exactly the IR xDSL's parser builds.

A kernel repeats a few op shapes thousands of times (`%s7 = ttl.tile_add %x7, %y7 into
dst[%c0] : T, T -> T`), and xDSL's parser spends most of its time lexing the same types
again. Here each line holding one whole op is read by the site-recording xDSL parser once
per *shape*: the line with its SSA names numbered by first appearance, the enclosing
`module` / `func.func` nesting (it decides how a bare op name such as `return` resolves),
and which defined value (by identity, so by type) each name refers to. Later lines of that
shape are built from what the first one gave (op class, result types, properties,
attributes, location, attribute-dictionary site) with their own operands and result names.
An op may go on over lines while a bracket is open; `module` and `func.func` headers are
read by xDSL on their own, and top-level alias definitions are read before every piece.

Anything else (a block label, another op with a non-empty region, a name used before its
definition or defined twice, any error, more xDSL reading than a few times the text) returns
None, and the caller parses the whole chunk with xDSL, so diagnostics and their positions
stay xDSL's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects.builtin import LocationAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from planner.adapters.ttlang.reading.sites import OpSite, SiteRecordingParser, result_names

NewParser = Callable[[str, str, Context], SiteRecordingParser]
"""Makes the site-recording parser for a piece of text, with the file name, in the given context."""

_NAME = r"%([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
_TOKENS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|' + _NAME + r"|[{}()\[\]]")
"""String literals (skipped whole, each repeat over single characters so a long one costs no
stack), comments, SSA names and brackets."""
_RESULT = re.compile(r"\s*" + _NAME + r"(?::([0-9]+))?\s*([,=])")
_OP_NAME = re.compile(r'\s*"?([a-zA-Z_][a-zA-Z0-9_$.]*)')
_INDENT = " \t\r\f\v"
_WRAPPERS = {"builtin.module": "module {\n", "func.func": "func.func @wrapper() {\n"}
_PIECE_LINES = 32
"""The most lines one op may span here (each added line rescans the piece)."""
MIN_LINES = 64
"""Below this many lines a chunk repeats too little for the shapes to pay for their reading."""
_BUDGET_FACTOR = 4
"""xDSL reads at most this many times the chunk's length in pieces (aliases and wrappers included)."""
_NEXT_TOKEN = -1
"""An absent attribute dictionary placed at the token after the line (xDSL notes where it would go)."""


class NotCommonForm(Exception):
    """The text leaves the forms read here; xDSL's parser reads the chunk instead."""


@dataclass(frozen=True, slots=True)
class _Line:
    """One line of the chunk (with the lines after it while a bracket is open): where its text
    starts, the text, its shape, and its SSA name occurrences."""

    start: int
    text: str
    shape: str
    names: tuple[str, ...]
    """The distinct names, in order of first appearance (placeholder `%i` is `names[i]`)."""
    spans: tuple[tuple[int, int, int], ...]
    """Each occurrence: its end in the text, its length minus its placeholder's, its placeholder."""
    depth: int
    opens_region: bool


def _scan(start: int, text: str) -> _Line:
    pieces: list[str] = []
    order: dict[str, int] = {}
    spans: list[tuple[int, int, int]] = []
    depth = 0
    code_end = len(text)
    last = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        name = match.group(1)
        if name is not None:
            index = order.setdefault(name, len(order))
            placeholder = f"%{index}"
            pieces += (text[last : match.start()], placeholder)
            last = match.end()
            spans.append((match.end(), len(token) - len(placeholder), index))
        elif token.startswith("//"):
            code_end = match.start()
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
    pieces.append(text[last:])
    opens = text[:code_end].rstrip().endswith("{")
    return _Line(start, text, "".join(pieces), tuple(order), tuple(spans), depth, opens)


def _to_shape(line: _Line, position: int) -> int:
    return position - sum(delta for end, delta, _ in line.spans if end <= position)


def _to_text(line: _Line, position: int) -> int:
    shift = 0
    for end, delta, _ in line.spans:
        if end - shift - delta > position:
            break
        shift += delta
    return position + shift


@dataclass(frozen=True, slots=True)
class _Template:
    """What xDSL built for the first line of a shape, in placeholders and shape positions."""

    op_type: type[Operation]
    result_types: tuple[Attribute, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    location: LocationAttr
    empty_regions: int
    results: tuple[tuple[int, int], ...]
    """Per bound result name: its placeholder and how many results it names."""
    operands: tuple[tuple[int, int], ...]
    """Per operand: its placeholder and the index in the named value tuple."""
    site: OpSite


@dataclass
class _Frame:
    """An open `module` / `func.func` region (or the top level, `op` None)."""

    op: Operation | None
    site: OpSite | None
    scope: dict[str, tuple[SSAValue, ...]]
    ops: list[Operation] = field(default_factory=list)
    block_from_ops: bool = False
    """The header gave no entry block (no arguments): xDSL makes one when the body has an op."""


def _result_sizes(text: str) -> tuple[list[tuple[str, int]], int]:
    """The names an op line binds, with their sizes (`%a, %b:2 = ...`), and where its op name is."""
    bound: list[tuple[str, int]] = []
    position = 0
    while (match := _RESULT.match(text, position)) is not None:
        bound.append((match.group(1), int(match.group(2) or 1)))
        position = match.end()
        if match.group(3) == "=":
            return bound, position
    return [], 0


def _resolves_anywhere(text: str, position: int) -> bool:
    """Whether the op name at `position` has a dialect prefix, so the enclosing ops do not change
    which op it names: xDSL tries `func.<name>` and `builtin.<name>` only for a name it does not
    know, and neither dialect has an op whose name holds two dots."""
    match = _OP_NAME.match(text, position)
    return match is not None and "." in match.group(1)


class _Reader:
    def __init__(self, filename: str, ctx: Context, new_parser: NewParser, budget: int) -> None:
        self._filename = filename
        self._budget = budget
        self._ctx = ctx
        self._new_parser = new_parser
        self._templates: dict[tuple[object, ...], _Template] = {}
        self._type_numbers: dict[int, int] = {}
        self._types: list[Attribute] = []
        self.sites: dict[Operation, OpSite] = {}
        self._awaiting: list[Operation] = []
        self._aliases = ""
        self._aliases_read = True
        self.frames: list[_Frame] = [_Frame(None, None, {})]

    # -- lines --------------------------------------------------------------------------------

    def read_line(self, line: _Line) -> None:
        self._place_awaiting(line.start)
        text = line.text
        if text.rstrip(_INDENT) == "}":
            self._close()
        elif text[0] in "#!":
            self._alias(line)
        elif line.opens_region and line.depth == 1:
            self._open(line)
        elif line.depth == 0 and not line.opens_region:
            self.frames[-1].ops.append(self._op(line))
        else:
            raise NotCommonForm

    def _alias(self, line: _Line) -> None:
        """An alias definition at the top level: xDSL reads it before every piece read after it."""
        if len(self.frames) != 1 or line.depth != 0 or line.spans:
            raise NotCommonForm
        self._aliases += line.text + "\n"
        self._aliases_read = False

    def finish(self, end: int) -> ModuleOp:
        self._place_awaiting(end)
        if len(self.frames) != 1 or not self.frames[0].ops or not self._aliases_read:
            raise NotCommonForm
        ops = self.frames[0].ops
        if len(ops) == 1 and isinstance(ops[0], ModuleOp):
            return ops[0]
        return ModuleOp(ops)

    def _place_awaiting(self, position: int) -> None:
        for op in self._awaiting:
            site = self.sites[op]
            assert site.attr_dict is not None
            self.sites[op] = replace(site, attr_dict=replace(site.attr_dict, start=position, end=position))
        self._awaiting.clear()

    # -- parsing a piece with xDSL -------------------------------------------------------------

    def _parse(
        self, text: str, scope: dict[str, tuple[SSAValue, ...]], wrap: bool = True
    ) -> tuple[Operation, OpSite, int]:
        """xDSL's reading of one op written inside the open regions (`wrap`: written inside ops like
        them, for its name to resolve as there): the op, its site in `text`, and where the token
        after `text` is."""
        chain = self._chain() if wrap else ()
        prefix = self._aliases + "".join(_WRAPPERS[name] for name in chain)
        depth = len(chain)
        piece = prefix + text + "\n}" * depth
        self._budget -= len(piece)
        if self._budget < 0:
            raise NotCommonForm
        parser = self._new_parser(piece, self._filename, self._ctx)
        parser.ssa_values.update(scope)
        outer = parser.parse_module()
        self._aliases_read = True
        if parser.pos != len(prefix) + len(text) + 2 * depth or parser.forward_ssa_references:
            raise NotCommonForm
        op: Operation = outer
        for _ in range(depth + (outer not in parser.sites)):  # xDSL's implicit module, if it made one
            block = op.regions[0].block
            if block.first_op is None or block.first_op is not block.last_op:
                raise NotCommonForm
            op = block.detach_op(block.first_op)
        site = parser.sites[op]
        if site.start != len(prefix):
            raise NotCommonForm
        return op, _shifted(site, -len(prefix)), len(text) + (1 if depth else 0)

    def _chain(self) -> tuple[str, ...]:
        """The names of the ops whose regions are open, outermost first."""
        return tuple(frame.op.name for frame in self.frames if frame.op is not None)

    # -- regions ------------------------------------------------------------------------------

    def _open(self, line: _Line) -> None:
        frame = self.frames[-1]
        op, site, _ = self._parse(line.text + "\n}", {})
        if op.name not in _WRAPPERS or len(op.regions) != 1 or len(op.regions[0].blocks) > 1:
            raise NotCommonForm
        region = op.regions[0]
        arguments = region.block.args if region.blocks else ()
        if region.blocks and region.block.first_op is not None:
            raise NotCommonForm
        if not len(arguments) == len(line.names) == len(line.spans):
            raise NotCommonForm
        scope = dict(frame.scope)
        for name, argument in zip(line.names, arguments, strict=True):
            if name in scope:
                raise NotCommonForm
            scope[name] = (argument,)
        self.frames.append(_Frame(op, _shifted(site, line.start), scope, block_from_ops=not region.blocks))

    def _close(self) -> None:
        if len(self.frames) == 1:
            raise NotCommonForm
        frame = self.frames.pop()
        assert frame.op is not None and frame.site is not None
        if frame.ops:
            if frame.block_from_ops:
                frame.op.regions[0].add_block(Block())
            frame.op.regions[0].block.add_ops(frame.ops)
        self.sites[frame.op] = frame.site
        self.frames[-1].ops.append(frame.op)

    # -- one-line ops -------------------------------------------------------------------------

    def _op(self, line: _Line) -> Operation:
        scope = self.frames[-1].scope
        types = (self._type_key(scope.get(name)) for name in line.names)
        key = (self._aliases, self._chain(), line.shape, *types)
        template = self._templates.get(key)
        if template is None:
            op, template = self._learn(line, scope)
            self._templates[key] = template
        else:
            op = self._build(template, line, scope)
        site = template.site
        attr_dict = site.attr_dict
        if attr_dict is not None and attr_dict.start != _NEXT_TOKEN:
            start, end = _to_text(line, attr_dict.start), _to_text(line, attr_dict.end)
            attr_dict = replace(attr_dict, start=start + line.start, end=end + line.start)
        names = tuple(f"%{line.names[index]}" for index, _ in template.results)
        name_start = line.start + result_names(line.text, 0)[1]
        self.sites[op] = replace(
            site, start=line.start, result_names=names, attr_dict=attr_dict, name_start=name_start
        )
        if attr_dict is not None and attr_dict.start == _NEXT_TOKEN:
            self._awaiting.append(op)
        return op

    def _type_key(self, values: tuple[SSAValue, ...] | None) -> tuple[int, ...] | None:
        """The types of a defined value tuple, each as a small number naming the type object (so
        equal keys mean the very same types); None: the name is not defined."""
        if values is None:
            return None
        return tuple(self._type_number(value.type) for value in values)

    def _type_number(self, type_: Attribute) -> int:
        number = self._type_numbers.get(id(type_))
        if number is None:
            self._types.append(type_)
            number = self._type_numbers[id(type_)] = len(self._types)
        return number

    def _learn(self, line: _Line, scope: dict[str, tuple[SSAValue, ...]]) -> tuple[Operation, _Template]:
        """Read the first line of a shape with xDSL and record what it built."""
        used = {name: scope[name] for name in line.names if name in scope}
        bound, name_at = _result_sizes(line.text)
        op, site, next_token = self._parse(line.text, used, not _resolves_anywhere(line.text, name_at))
        placeholders = {name: index for index, name in enumerate(line.names)}
        results = tuple((placeholders.get(name, -1), size) for name, size in bound)
        if any(index < 0 or name in scope for (index, _), (name, _) in zip(results, bound, strict=True)):
            raise NotCommonForm
        if sum(size for _, size in results) != len(op.results) or op.successors:
            raise NotCommonForm
        if any(region.blocks for region in op.regions):
            raise NotCommonForm
        result_places = [index for index, _ in results]
        defined = ((placeholders[name], at, value) for name in used for at, value in enumerate(used[name]))
        by_value = {id(value): (index, at) for index, at, value in defined}
        operands = tuple(by_value.get(id(operand), (-1, 0)) for operand in op.operands)
        uses = sorted(index for _, _, index in line.spans if index not in result_places)
        if sorted(index for index, _ in operands) != uses or len(set(result_places)) != len(result_places):
            raise NotCommonForm
        if sorted(index for _, _, index in line.spans if index in result_places) != sorted(result_places):
            raise NotCommonForm
        template = _Template(
            type(op), tuple(op.result_types), dict(op.properties), dict(op.attributes), op.location,
            len(op.regions), results, operands, self._shape_site(line, site, next_token),
        )  # fmt: skip
        self._define(line, template, op, scope)
        return op, template

    def _shape_site(self, line: _Line, site: OpSite, next_token: int) -> OpSite:
        attr_dict = site.attr_dict
        if attr_dict is None:
            return site
        if not attr_dict.present and attr_dict.start >= next_token:
            return replace(site, attr_dict=replace(attr_dict, start=_NEXT_TOKEN, end=_NEXT_TOKEN))
        start, end = _to_shape(line, attr_dict.start), _to_shape(line, attr_dict.end)
        return replace(site, attr_dict=replace(attr_dict, start=start, end=end))

    def _build(self, template: _Template, line: _Line, scope: dict[str, tuple[SSAValue, ...]]) -> Operation:
        names = line.names
        op = template.op_type.create(
            operands=[scope[names[index]][at] for index, at in template.operands],
            result_types=template.result_types,
            properties=template.properties,
            attributes=template.attributes,
            location=template.location,
            regions=[Region() for _ in range(template.empty_regions)],
        )
        self._define(line, template, op, scope)
        for index, _ in template.results:
            name = names[index]
            if SSAValue.is_valid_name(name):
                for value in scope[name]:
                    value.name_hint = name
        return op

    def _define(
        self, line: _Line, template: _Template, op: Operation, scope: dict[str, tuple[SSAValue, ...]]
    ) -> None:
        taken = 0
        for index, size in template.results:
            scope[line.names[index]] = tuple(op.results[taken : taken + size])
            taken += size


def _shifted(site: OpSite, offset: int) -> OpSite:
    attr_dict = site.attr_dict
    if attr_dict is not None:
        attr_dict = replace(attr_dict, start=attr_dict.start + offset, end=attr_dict.end + offset)
    return replace(site, start=site.start + offset, attr_dict=attr_dict, name_start=site.name_start + offset)


def read_common_forms(
    text: str,
    filename: str,
    new_context: Callable[[], Context],
    new_parser: NewParser,
    min_lines: int = MIN_LINES,
) -> tuple[ModuleOp, dict[Operation, OpSite]] | None:
    """The module xDSL would parse from `text` and every op's site, or None when any part of
    the text leaves the common forms or it has fewer than `min_lines` lines (the caller then
    parses it with xDSL). The reading context is made only for a chunk long enough to read."""
    if text.count("\n") + 1 < min_lines:
        return None
    lines = text.split("\n")
    reader = _Reader(filename, new_context(), new_parser, _BUDGET_FACTOR * len(text) + 4096)
    position = 0
    try:
        index = 0
        while index < len(lines):
            raw = lines[index]
            content = raw.lstrip(_INDENT)
            start, end = position + len(raw) - len(content), position + len(raw)
            index, position = index + 1, end + 1
            if not content.rstrip(_INDENT) or content.startswith("//"):
                continue
            if content[0] in "^{":
                raise NotCommonForm
            line = _scan(start, content)
            first = index
            while line.depth > 0 and not (line.opens_region and line.depth == 1):
                if index == len(lines) or index - first == _PIECE_LINES:
                    raise NotCommonForm
                end += 1 + len(lines[index])
                index, position = index + 1, end + 1
                line = _scan(start, text[start:end])
            reader.read_line(line)
        module = reader.finish(len(text))
    except Exception:  # anything unexpected is xDSL's to report
        return None
    return module, reader.sites
