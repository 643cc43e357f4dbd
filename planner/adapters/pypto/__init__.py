"""PyPTO adapter: read with `ast` (never executed), plan NZ layouts, then apply or report.

Printed IR (`# pypto.program:` header) is rewritten; user source (`@pl.jit` functions,
headerless `@pl.program` classes) is reported as notes at source positions.
Public API: `plan_text` (plan a file's text into an `AdapterOutcome`) and
`build_requests` (the per-function `layout.plan` requests with source positions).

The adapter's stages, each a sub-package that imports only the ones listed before it:
`base` (codes, positions, expressions), `constants` (static constant resolution), `reading`
(the file's module level, kernels and types), `requests` (function bodies -> `layout.plan`
requests) and `writing` (rewritten IR, notes, diagnostics). This package and `driver`, which
runs the stages in order, are the adapter's face: they may import every stage, no stage
imports them.
"""

from planner.adapters.pypto.base.splicing import SourcePosition
from planner.adapters.pypto.driver import DEFAULT_TARGET, LayoutPlanner, build_requests, plan_text
from planner.adapters.pypto.requests.model import FunctionRequest

__all__ = [
    "DEFAULT_TARGET",
    "FunctionRequest",
    "LayoutPlanner",
    "SourcePosition",
    "build_requests",
    "plan_text",
]
