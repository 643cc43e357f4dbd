"""Compiler-style diagnostic lines for a refused plan (docs/design/nz-layout.md section 13).

`file:line:col: error: [nz.code] message`, located at the op the diagnostic names, else at
the tensor's declaration, else at the function; a counterexample follows as a note on the
same location, in source spelling and sorted by name.
"""

from __future__ import annotations

from planner.adapters.pypto.base.splicing import SourcePosition
from planner.adapters.pypto.requests.model import FunctionRequest
from planner.layout.protocol import Diagnostic


def render_diagnostic(filename: str, function: FunctionRequest, diagnostic: Diagnostic) -> list[str]:
    """The lines for one planner diagnostic."""
    position = diagnostic_position(function, diagnostic)
    location = f"{filename}:{position.line}:{position.column}"
    lines = [f"{location}: {diagnostic.severity}: [{diagnostic.code}] {diagnostic.message}"]
    if diagnostic.counterexample:
        assignment = sorted(
            (function.spelling.get(name, name), value) for name, value in diagnostic.counterexample.items()
        )
        values = ", ".join(f"{name}={value}" for name, value in assignment)
        lines.append(f"{location}: note: counterexample: {values}")
    return lines


def diagnostic_position(function: FunctionRequest, diagnostic: Diagnostic) -> SourcePosition:
    """The offending op, else the offending tensor's declaration, else the function."""
    if diagnostic.op is not None and diagnostic.op in function.op_positions:
        return function.op_positions[diagnostic.op]
    if diagnostic.tensor is not None and diagnostic.tensor in function.tensor_positions:
        return function.tensor_positions[diagnostic.tensor]
    return function.position
