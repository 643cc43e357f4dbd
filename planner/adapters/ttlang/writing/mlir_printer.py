"""MLIR's printing conventions for `planner-opt`, on xDSL's public printer API.

`mlir-opt` / `ttlang-opt` output differs from xDSL's printer in ways a lit CHECK line and
upstream's parser see; this printer follows MLIR where xDSL does not:

- an op of the enclosing op's default dialect is printed without its prefix (`module` at the
  top and inside a module, `return` / `call` inside `func.func`), as MLIR's `printOpName`;
- affine maps and integer sets are printed as `#map` / `#set` aliases defined at the top;
- integers of type i64 and floats of type f64 inside an array drop their type (`[0, 1]`);
- results written as one group (`%r:2`) or unnamed (`%0:2`) print as one group, used as
  `%r#0`; other results keep the names they were written with (MLIR renumbers, we do not);
- every region keeps its terminator unless its op re-creates it on reading
  (`SingleBlockImplicitTerminator`): xDSL's `scf.execute_region` drops its `scf.yield`;
- dictionaries are sorted by name, as MLIR stores them;
- with `debuginfo`, every op's location is printed as `loc(#locN)`, the aliases defined after
  the module, numbered as MLIR numbers them (in order of the walk, composite locations after
  the ones they hold); block arguments carry theirs inline and have their aliases at the top.
  Without it, locations are dropped, as in `mlir-opt`.

Each distinct attribute's text is made once per print (a kernel repeats a few tile and tensor
types thousands of times).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    CallSiteLoc,
    FloatAttr,
    FusedLoc,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    UnregisteredOp,
    f64,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, SingleBlockImplicitTerminator

DEFAULT_DIALECTS = {"builtin.module": "builtin", "func.func": "func"}
"""The ops whose regions have a default dialect (MLIR's `OpAsmOpInterface::getDefaultDialect`)."""
_TOP_DIALECT = "builtin"
_RECREATES_TERMINATOR = frozenset({"affine.for"})
"""Ops whose xDSL reader adds the terminator its printer leaves out, without declaring
`SingleBlockImplicitTerminator`."""
_ALIASED = {AffineMapAttr: "map", AffineSetAttr: "set"}


def _children(location: Attribute) -> tuple[Attribute, ...]:
    """The locations a composite location holds (none for a file position or `unknown`)."""
    if isinstance(location, CallSiteLoc):
        return location.callee, location.caller
    if isinstance(location, FusedLoc) and isinstance(location.locations, ArrayAttr):
        return tuple(location.locations.data)
    if isinstance(location, NameLoc) and not isinstance(location.location, NoneAttr):
        return (location.location,)
    return ()


@dataclass
class _Locations:
    """Location aliases as MLIR numbers them: a first print only notes each printed op's and block
    argument's location, in the order MLIR's alias pass visits them (an op before its regions);
    then the aliases are numbered, deeper composites after the locations they hold."""

    recording: bool = True
    depths: dict[Attribute, int] = field(default_factory=dict)
    on_arguments: set[Attribute] = field(default_factory=set)
    names: dict[Attribute, str] = field(default_factory=dict)

    def note(self, location: Attribute, *, on_argument: bool = False) -> None:
        if on_argument:
            self.on_arguments.add(location)
        if location in self.depths:
            return
        self.depths[location] = 0
        self.depths[location] = max((self._depth(child) + 1 for child in _children(location)), default=0)

    def _depth(self, location: Attribute) -> int:
        self.note(location)
        return self.depths[location]

    def number(self) -> None:
        order = sorted(self.depths, key=lambda location: self.depths[location])  # stable: walk order
        self.names = {
            location: "#loc" + (str(index) if index else "") for index, location in enumerate(order)
        }
        self.recording = False


@dataclass
class _Tables:
    """What one print shares across the printers that make attribute texts."""

    texts: dict[Attribute, str] = field(default_factory=dict)
    aliases: dict[Attribute, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    locations: _Locations = field(default_factory=_Locations)

    def alias(self, attribute: Attribute, prefix: str) -> str:
        name = self.aliases.get(attribute)
        if name is None:
            count = self.counts.get(prefix, 0)
            self.counts[prefix] = count + 1
            name = self.aliases[attribute] = f"#{prefix}{count or ''}"
        return name


class MlirPrinter(Printer):
    """xDSL's printer following MLIR's conventions (module docstring)."""

    def __init__(self, stream: StringIO, *, debuginfo: bool = False, tables: _Tables | None = None) -> None:
        super().__init__(stream=stream)
        self.debuginfo = debuginfo
        self._tables = _Tables() if tables is None else tables
        self._names: dict[SSAValue, str] = {}
        self._groups: dict[Operation, list[tuple[str, int]]] = {}
        self._hint_counts: list[dict[str, int]] = [{}]
        self._next_number: list[int] = [0]
        self._dialects: list[str] = [_TOP_DIALECT]
        self._in_location = False

    # -----------------------------------------------------------------------------------------
    # Values

    def print_ssa_value(self, value: SSAValue) -> str:
        if value not in self._names:
            if isinstance(value, OpResult):
                self._name_results(value.op)
            else:
                self._names[value] = self._fresh(value.name_hint)
        name = self._names[value]
        self.print_string(f"%{name}")
        return name

    def _fresh(self, hint: str | None) -> str:
        """A new name: the hint (with `_N` when it was used in this scope), else the next number."""
        if hint is None:
            self._next_number[-1] += 1
            return str(self._next_number[-1] - 1)
        count = self._hint_counts[-1].get(hint, 0)
        self._hint_counts[-1][hint] = count + 1
        return f"{hint}_{count}" if count else hint

    def _name_results(self, op: Operation) -> list[tuple[str, int]]:
        """`op`'s result groups, named on first use: runs of one hint, or of unnamed results."""
        groups = self._groups.get(op)
        if groups is not None:
            return groups
        groups = self._groups[op] = []
        results = list(op.results)
        index = 0
        while index < len(results):
            hint = results[index].name_hint
            end = index + 1
            while end < len(results) and results[end].name_hint == hint:
                end += 1
            name = self._fresh(hint)
            for offset, result in enumerate(results[index:end]):
                self._names[result] = f"{name}#{offset}" if end - index > 1 else name
            groups.append((name, end - index))
            index = end
        return groups

    def enter_scope(self) -> None:
        super().enter_scope()
        self._hint_counts.append(dict(self._hint_counts[-1]))
        self._next_number.append(self._next_number[-1])

    def exit_scope(self) -> None:
        super().exit_scope()
        self._hint_counts.pop()
        self._next_number.pop()

    # -----------------------------------------------------------------------------------------
    # Ops and regions

    def print_op(self, op: Operation) -> None:
        if op.results:
            groups = [f"%{name}:{size}" if size > 1 else f"%{name}" for name, size in self._name_results(op)]
            self.print_string(", ".join(groups) + " = ")
        locations = self._tables.locations
        if self.debuginfo and locations.recording:
            locations.note(op.location)
        scoped = bool(op.get_traits_of_type(IsolatedFromAbove))
        if scoped:
            self.enter_scope()
        if isinstance(op, UnregisteredOp):
            self.print_string(f'"{op.op_name.data}"')
            op_name = op.attributes.pop("op_name__")
            try:
                self.print_op_with_default_format(op)
            finally:
                op.attributes["op_name__"] = op_name
        elif self.print_generic_format or Operation.print is type(op).print:
            self.print_string(f'"{op.name}"')
            self.print_op_with_default_format(op)
        else:
            self.print_string(self._short_name(op.name))
            op.print(self)
        if self.debuginfo and not locations.recording:
            self.print_string(f" loc({locations.names[op.location]})")
        if scoped:
            self.exit_scope()

    def _short_name(self, name: str) -> str:
        """The op name without the default dialect's prefix, as MLIR's `printOpName` drops it."""
        dialect, _, rest = name.partition(".")
        return rest if dialect == self._dialects[-1] and "." not in rest else name

    def print_region(
        self,
        region: Region,
        print_entry_block_args: bool = True,
        print_empty_block: bool = True,
        print_block_terminators: bool = True,
    ) -> None:
        parent = region.parent_op()
        implicit = parent is not None and (
            parent.name in _RECREATES_TERMINATOR
            or bool(parent.get_traits_of_type(SingleBlockImplicitTerminator))
        )
        self._dialects.append(DEFAULT_DIALECTS.get(parent.name, "") if parent is not None else "")
        try:
            super().print_region(
                region, print_entry_block_args, print_empty_block, print_block_terminators or not implicit
            )
        finally:
            self._dialects.pop()

    def print_block_argument(self, arg: BlockArgument, print_type: bool = True) -> None:
        """A region argument, its location inline (with `debuginfo`). Without its type, only
        `affine.for`'s induction variable has one: MLIR prints it as a region argument, while
        xDSL's other untyped arguments (`scf.for`, `iter_args`, function arguments, which print
        their own) are values MLIR prints bare."""
        self.print_ssa_value(arg)
        if print_type:
            self.print_string(": ")
            self.print_attribute(arg.type)
        if not self.debuginfo or not (print_type or _is_affine_induction_variable(arg)):
            return
        if self._tables.locations.recording:
            self._tables.locations.note(arg.location, on_argument=True)
        else:
            self.print_string(" ")
            self._print_location_text(arg.location)

    # -----------------------------------------------------------------------------------------
    # Attributes

    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        super().print_attr_dict(dict(sorted(attr_dict.items())))

    def print_attribute(self, attribute: Attribute) -> None:
        if self._in_location:
            self._print_location_part(attribute)
            return
        text = self._tables.texts.get(attribute)
        if text is None:
            text = self._tables.texts[attribute] = self._attribute_text(attribute)
        self.print_string(text)

    def _print_location_part(self, attribute: Attribute) -> None:
        """A part of a location: by its alias, or in full without a `loc(...)` of its own (MLIR reads
        `loc` only around a whole location); a fused location's list part by part."""
        name = self._tables.locations.names.get(attribute)
        if name is not None:
            self.print_string(name)
        elif isinstance(attribute, ArrayAttr):
            self._print_array(attribute, self.print_attribute)
        else:
            Printer.print_attribute(self, attribute)

    def _attribute_text(self, attribute: Attribute) -> str:
        prefix = _ALIASED.get(type(attribute))
        if prefix is not None:
            return self._tables.alias(attribute, prefix)
        stream = StringIO()
        printer = MlirPrinter(stream, tables=self._tables)
        if isinstance(attribute, ArrayAttr):
            printer._print_array(attribute, printer.print_element)
        else:
            Printer.print_attribute(printer, attribute)
        return stream.getvalue()

    def _print_array(self, array: ArrayAttr[Attribute], print_element: Callable[[Attribute], None]) -> None:
        self.print_string("[")
        self.print_list(array.data, print_element)
        self.print_string("]")

    def print_element(self, element: Attribute) -> None:
        """An array element: i64 integers and f64 floats without their type, as MLIR elides them."""
        if isinstance(element, IntegerAttr) and element.type == i64:
            self.print_int(element.value.data)
        elif isinstance(element, FloatAttr) and element.type == f64:
            self.print_float(element.value.data, f64)
        else:
            self.print_attribute(element)

    def _print_location_text(self, location: Attribute) -> None:
        """A location in full (`loc(...)`), the locations it holds by their aliases."""
        stream = StringIO()
        printer = MlirPrinter(stream, tables=self._tables)
        printer._in_location = True
        Printer.print_attribute(printer, location)
        self.print_string(stream.getvalue())

    def alias_definitions(self, *, at_end: bool) -> str:
        """The alias lines: maps, sets and block arguments' locations at the top, others at the end."""
        tables = self._tables
        lines: list[tuple[str, str]] = []
        if self.debuginfo:
            for location, name in tables.locations.names.items():
                if (location in tables.locations.on_arguments) != at_end:
                    stream = StringIO()
                    MlirPrinter(stream, tables=tables)._print_location_text(location)
                    lines.append((name, f"{name} = {stream.getvalue()}"))
        if not at_end:
            for attribute, name in tables.aliases.items():
                stream = StringIO()
                Printer.print_attribute(MlirPrinter(stream, tables=tables), attribute)
                lines.append((name, f"{name} = {stream.getvalue()}"))
        return "".join(line + "\n" for _, line in sorted(lines, key=_alias_order))


def _alias_order(entry: tuple[str, str]) -> tuple[str, int]:
    """`#loc`, `#loc1`, ..., `#map`, `#map1`, ...: by prefix, then number."""
    name = entry[0].lstrip("#")
    stem = name.rstrip("0123456789")
    return stem, int(name[len(stem) :] or 0)


def _is_affine_induction_variable(arg: BlockArgument) -> bool:
    owner = arg.block.parent_op()
    return arg.index == 0 and owner is not None and owner.name == "affine.for"


def canonical_text(module: ModuleOp, *, debuginfo: bool = False) -> str:
    """The module as `planner-opt` prints it, ending with a newline."""
    tables = _Tables()
    if debuginfo:
        MlirPrinter(StringIO(), debuginfo=True, tables=tables).print_op(module)
        tables.locations.number()
    stream = StringIO()
    printer = MlirPrinter(stream, debuginfo=debuginfo, tables=tables)
    printer.print_op(module)
    body = stream.getvalue().rstrip("\n") + "\n"
    return printer.alias_definitions(at_end=False) + body + printer.alias_definitions(at_end=True)
