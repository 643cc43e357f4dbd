"""The answers written back: as text edits at the attribute dictionaries read (`apply`, driven by
`planning`, the `planner plan` face), into the IR by the `ttl-set-compute-kernel-config` pass
(`configure`, the `planner-opt` face), and printing in MLIR's conventions (`mlir_printer`).

May import `base`, `dialects`, `reading` and `requests`.
"""
