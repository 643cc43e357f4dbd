"""TTL ops defined from small records: one `OpSpec` per op, its syntax upstream's assembly format.

Upstream's `TTLOps.td` gives each op its operands, results, attributes, regions and a
declarative assembly format; an `OpSpec` states the same in a few strings and `define` makes
the xDSL op from it, so the dialect is a table rather than a class per op. The spec strings:

- operands and results: `name`, `name?` (optional), `name*` (variadic), each optionally
  `name:index` / `:i1` / `:i32` when the format leaves the type unwritten;
- properties: `name:kind`, `name?:kind` (optional); kinds `any`, `i64`, `f32`, `str`,
  `dense` (a dense i64 array written `[1, 2]`), `unit`, `bool`, `symbol` (a symbol name written
  `@f`), `symref` (a reference to one), `fntype` (a function type);
- regions: names; `body_trait` says whether the single region ends with a terminator.

Where upstream prints a TTL type or attribute without its prefix (`<[1, 1], T, 2>` for a
`!ttl.cb`), the format names a directive of `stripped_directive`; both spellings read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, OpTrait
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator

from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.dialects.raw_body import RawBodyAttr, parse_optional_body, raw_value
from planner.adapters.ttlang.dialects.ttl_attrs import CBType


@dataclass(frozen=True)
class OpSpec:
    """One op: its mnemonic (without `ttl.`), assembly format, and what the format names."""

    mnemonic: str
    format: str
    operands: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    props: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    terminator: bool = False
    no_terminator: bool = False
    doc: str = ""


_VALUE_TYPES: dict[str, Attribute] = {"index": IndexType(), "i1": IntegerType(1), "i32": IntegerType(32)}
_PROP_KINDS: dict[str, Any] = {
    "any": AnyAttr(),
    "i64": IntegerAttr.constr(type=I64),
    "f32": FloatAttr.constr(type=f32),
    "str": StringAttr,
    "dense": DenseArrayBase.constr(i64),
    "unit": UnitAttr,
    "bool": BoolAttr,
    "symbol": SymbolNameConstraint(),
    "symref": SymbolRefAttr,
    "fntype": FunctionType,
}


def _split(entry: str) -> tuple[str, str, str]:
    """`name?:kind` as (name, `?`/`*`/``, kind)."""
    name, _, kind = entry.partition(":")
    arity = name[-1] if name[-1] in "?*" else ""
    return name.rstrip("?*"), arity, kind


def _value_defs(entries: Sequence[str], single: Any, optional: Any, variadic: Any) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for entry in entries:
        name, arity, kind = _split(entry)
        constraint = _VALUE_TYPES[kind] if kind else None
        make = {"": single, "?": optional, "*": variadic}[arity]
        defs[name] = make(constraint) if constraint is not None else make()
    return defs


def _prop_defs(entries: Sequence[str]) -> dict[str, Any]:
    """Properties; one named like an op field (`name`) is held by the field `<name>_`."""
    defs: dict[str, Any] = {}
    for entry in entries:
        name, arity, kind = _split(entry)
        constraint = _PROP_KINDS[kind or "any"]
        make = opt_prop_def if arity == "?" else prop_def
        field = f"{name}_" if name in _OP_FIELDS else name
        defs[field] = make(constraint, prop_name=name) if field != name else make(constraint)
    return defs


_OP_FIELDS = frozenset({"name", "traits", "parent", "results", "operands", "regions", "attributes"})


def define(spec: OpSpec, module: str, base: type[IRDLOperation] = IRDLOperation) -> type[IRDLOperation]:
    """The xDSL op `ttl.<mnemonic>` that `spec` describes."""
    body: dict[str, Any] = {"name": f"ttl.{spec.mnemonic}", "__module__": module, "__doc__": spec.doc or None}
    body |= _value_defs(spec.operands, operand_def, opt_operand_def, var_operand_def)
    body |= _value_defs(spec.results, result_def, opt_result_def, var_result_def)
    body |= _prop_defs(spec.props)
    body |= {name: region_def() for name in spec.regions}
    traits: list[OpTrait] = [IsTerminator()] if spec.terminator else []
    traits += [NoTerminator()] if spec.no_terminator else []
    body["traits"] = traits_def(*traits)
    if sum(_split(entry)[1] != "" for entry in spec.operands) > 1:
        body["irdl_options"] = (AttrSizedOperandSegments(as_property=True),)
    body["assembly_format"] = spec.format
    named = dict.fromkeys(_CUSTOM.findall(spec.format))
    body["custom_directives"] = tuple(stripped_directive(name) for name in named)
    class_name = "".join(part.title() for part in spec.mnemonic.replace(".", "_").split("_")) + "Op"
    return irdl_op_definition(type(class_name, (base,), body))


# ---------------------------------------------------------------------------------------------
# Stripped TTL types and attributes


def _raw_type(name: str) -> Callable[[AttrParser], Attribute]:
    return lambda parser: raw_value(name, parse_optional_body(parser)[1:-1], is_type=True)


def _stripped_text(attr: Attribute) -> str | None:
    """The stripped spelling (`<...>`) of a type or attribute read as body text, if it has a body."""
    return attr.body.data or None if isinstance(attr, RawBodyAttr) else None


def _stripped_type_directive(class_name: str, parse_stripped: Callable[[AttrParser], Attribute]) -> type:
    """A `custom<Name>(type($x))` directive reading the type written in full or stripped."""

    class StrippedType(CustomDirective):
        types: TypeDirective

        def parse(self, parser: Parser, state: ParsingState) -> None:
            stripped = peek_tokens(parser, 1)[0].text == "<"
            self.types.set(state, (parse_stripped(parser) if stripped else parser.parse_type(),))

        def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
            state.print_whitespace(printer)
            for type_ in self.types.get(op):
                if isinstance(type_, CBType):
                    type_.print_parameters(printer)
                elif (text := _stripped_text(type_)) is not None:
                    printer.print_string(text)
                else:
                    printer.print_attribute(type_)

    StrippedType.__name__ = StrippedType.__qualname__ = class_name
    return irdl_custom_directive(StrippedType)


def _stripped_attr_directive(class_name: str, attr_name: str) -> type:
    """A `custom<Name>($a)` directive reading `#ttl.<name><...>`, its stripped `<...>`, or any attribute."""

    class StrippedAttr(CustomDirective):
        attr: AttributeVariable

        def parse(self, parser: Parser, state: ParsingState) -> None:
            if peek_tokens(parser, 1)[0].text == "<":
                self.attr.set(state, raw_value(attr_name, parse_optional_body(parser)[1:-1], is_type=False))
            else:
                self.attr.set(state, parser.parse_attribute())

        def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
            attr = self.attr.get(op)
            if attr is None:
                return
            state.print_whitespace(printer)
            text = _stripped_text(attr) if attr.name == attr_name else None
            printer.print_string(text) if text is not None else printer.print_attribute(attr)

    StrippedAttr.__name__ = StrippedAttr.__qualname__ = class_name
    return irdl_custom_directive(StrippedAttr)


def _parse_stripped_cb(parser: AttrParser) -> Attribute:
    return CBType.new(CBType.parse_parameters(parser))


_STRIPPED_TYPES: dict[str, Callable[[AttrParser], Attribute]] = {
    "CB": _parse_stripped_cb,
    "Pipe": _raw_type("ttl.pipe"),
    "PipeToken": _raw_type("ttl.pipe_token"),
}
_STRIPPED_ATTRS = {
    "BcastType": "ttl.bcast_type",
    "ReduceType": "ttl.reduce_type",
    "Combiner": "ttl.accumulation_combiner",
    "DeviceRef": "ttl.device_ref",
    "DeviceDomain": "ttl.device_domain",
    "DeviceRange": "ttl.device_range",
    "DfbReconfiguration": "ttl.dfb_reconfiguration",
    "DfbStorage": "ttl.dfb_storage",
    "DfbPolicy": "ttl.dfb_policy",
}
_CUSTOM = re.compile(r"custom<(\w+)>")


@cache
def stripped_directive(name: str) -> type:
    """The directive `custom<name>` of a format, `custom<CB>(type($cb))` and so on: every TTL type
    in `_STRIPPED_TYPES`, every attribute in `_STRIPPED_ATTRS`. Made on first use (each is a
    dataclass, about a millisecond to build)."""
    if name in _STRIPPED_TYPES:
        return _stripped_type_directive(name, _STRIPPED_TYPES[name])
    return _stripped_attr_directive(name, _STRIPPED_ATTRS[name])
