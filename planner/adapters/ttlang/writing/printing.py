"""Canonical MLIR printing for `planner-opt`: xDSL's printer with dictionaries sorted by name.

MLIR prints a dictionary attribute's entries sorted by name, so FileCheck tests written
against an opt tool's output (`CHECK-SAME: dst_full_sync_en = true` after
`CHECK-SAME: fp32_dest_acc_en`) hold for ours too. Everything else is xDSL's printing: one
line per op, a function's signature and attributes on one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.printer import Printer


class CanonicalPrinter(Printer):
    """xDSL's printer, dictionaries sorted; each distinct attribute's text is made once per print
    (a kernel repeats a few tile and tensor types thousands of times)."""

    def __init__(self, stream: StringIO) -> None:
        super().__init__(stream=stream)
        self._texts: dict[Attribute, str] = {}

    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        super().print_attr_dict(dict(sorted(attr_dict.items())))

    def print_attribute(self, attribute: Attribute) -> None:
        text = self._texts.get(attribute)
        if text is None:
            stream = StringIO()
            printer = CanonicalPrinter(stream)
            printer._texts = self._texts
            Printer.print_attribute(printer, attribute)
            text = self._texts[attribute] = stream.getvalue()
        self.print_string(text)


def canonical_text(module: ModuleOp) -> str:
    """The module as `planner-opt` prints it, ending with a newline."""
    stream = StringIO()
    CanonicalPrinter(stream).print_op(module)
    return stream.getvalue().rstrip("\n") + "\n"
