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
    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        super().print_attr_dict(dict(sorted(attr_dict.items())))


def canonical_text(module: ModuleOp) -> str:
    """The module as `planner-opt` prints it, ending with a newline."""
    stream = StringIO()
    CanonicalPrinter(stream=stream).print_op(module)
    return stream.getvalue().rstrip("\n") + "\n"
