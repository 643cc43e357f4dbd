"""`planner-opt`, the opt tool: xDSL's opt driver around the pass (`opt_main`) and MLIR's
`-verify-diagnostics` (`expected`).

May import every stage below it: `base`, `dialects`, `reading`, `requests` and `writing`.
"""
