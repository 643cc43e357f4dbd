"""PyPTO adapter: read with `ast` (never executed), plan NZ layouts, then apply or report.

Printed IR (`# pypto.program:` header) is rewritten; user source (`@pl.jit` functions,
headerless `@pl.program` classes) is reported as notes at source positions.
Public API: `plan_text` (plan a file's text into an `AdapterOutcome`) and
`build_requests` (the per-function `layout.plan` requests with source positions).
"""

from planner.adapters.pypto.driver import DEFAULT_TARGET, LayoutPlanner, build_requests, plan_text
from planner.adapters.pypto.model import FunctionRequest
from planner.adapters.pypto.splicing import SourcePosition

__all__ = [
    "DEFAULT_TARGET",
    "FunctionRequest",
    "LayoutPlanner",
    "SourcePosition",
    "build_requests",
    "plan_text",
]
