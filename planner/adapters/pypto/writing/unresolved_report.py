"""A dynamic-extent refusal says why each name in it stays symbolic (docs/design/nz-layout.md 19):
a note beside the diagnostic, and `unresolved` in the kernel's report entry."""

from __future__ import annotations

import ast

from planner.adapters.protocol import UnresolvedExtent
from planner.adapters.pypto.constants.extent_causes import Cause, diagnostic_causes
from planner.adapters.pypto.reading.program import ProgramFunction
from planner.adapters.pypto.requests.model import FunctionModel
from planner.adapters.pypto.writing.diagnostics import diagnostic_position
from planner.layout.protocol import Diagnostic


def _causes(model: FunctionModel, diagnostic: Diagnostic) -> list[tuple[str, Cause]]:
    resolved = model.function.constants
    if resolved is None:
        return []
    return diagnostic_causes(diagnostic.code, diagnostic.message, model.planned.spelling, resolved.causes)


def cause_notes(filename: str, model: FunctionModel, diagnostic: Diagnostic) -> list[str]:
    """`file:line:col: note: N_EXPERTS is not static: declared dynamic: pl.dynamic(..) at config.py:41`."""
    position = diagnostic_position(model.planned, diagnostic)
    location = f"{filename}:{position.line}:{position.column}"
    return [
        f"{location}: note: {name} is not static: {cause.message}"
        for name, cause in _causes(model, diagnostic)
    ]


def unresolved_extents(model: FunctionModel, diagnostics: list[Diagnostic]) -> list[UnresolvedExtent]:
    """Every cause the kernel's dynamic-extent diagnostics name, once each, in order."""
    found: dict[str, UnresolvedExtent] = {}
    for diagnostic in diagnostics:
        for name, cause in _causes(model, diagnostic):
            found.setdefault(name, cause.named(name))
    return list(found.values())


def parameter_unresolved(function: ProgramFunction, parameter: str) -> list[UnresolvedExtent]:
    """Why each symbolic name in a parameter's annotation stays symbolic (`suggest --json`)."""
    resolved = function.constants
    arguments = function.node.args
    annotation = next(
        (
            a.annotation
            for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            if a.arg == parameter
        ),
        None,
    )
    if resolved is None or annotation is None:
        return []
    spelled = [
        ast.unparse(inner)
        for inner in ast.walk(annotation)
        if isinstance(inner, ast.Name | ast.Attribute | ast.Subscript)
    ]
    kept: list[str] = []
    for key in dict.fromkeys(spelled):  # outermost first: `LISTED[0]`, not also its root `LISTED`
        if key in resolved.causes and not any(outer.startswith((f"{key}.", f"{key}[")) for outer in kept):
            kept.append(key)
    return [resolved.causes[key].named(key) for key in kept]
