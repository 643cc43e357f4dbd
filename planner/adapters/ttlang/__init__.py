"""The TT-Lang MLIR adapter: compute-kernel configuration for `func.func`s written in TTL.

`plan_text` reads a file (custom or generic MLIR syntax, `// -----` chunks), resolves every
function with `planner.kernelcfg.resolve` and writes the plans back as attributes;
`build_requests` gives the per-function requests without resolving them.

The work is done in stages, each a sub-package importing only the ones before it: `base`,
`dialects`, `reading`, `requests`, `writing`, `tool`. The modules directly here are the
adapter's face, above every stage: this package, `universe` (xDSL's plugin entry point) and the
public paths `configure` (the pass) and `opt_main` (the `planner-opt` console script).
"""

from __future__ import annotations

from planner.adapters.ttlang.requests.pass_options import parse_pass_options
from planner.adapters.ttlang.writing.planning import build_requests, plan_text, plan_text_with

__all__ = ["build_requests", "parse_pass_options", "plan_text", "plan_text_with"]
