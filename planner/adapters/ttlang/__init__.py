"""The TT-Lang MLIR adapter: compute-kernel configuration for `func.func`s written in TTL.

`plan_text` reads a file (custom or generic MLIR syntax, `// -----` chunks), resolves every
function with `planner.kernelcfg.resolve` and writes the plans back as attributes;
`build_requests` gives the per-function requests without resolving them.
"""

from __future__ import annotations

from planner.adapters.ttlang.requests.pass_options import parse_pass_options
from planner.adapters.ttlang.writing.planning import build_requests, plan_text, plan_text_with

__all__ = ["build_requests", "parse_pass_options", "plan_text", "plan_text_with"]
