"""Writing back: a plan's answer as text: printed IR rewritten (`apply`), source reported as notes
(`report`), a refusal as compiler-style diagnostic lines (`diagnostics`), each kernel's status
(`kernel_report`) and its unresolved extents (`unresolved_report`).

Rank 4 of the adapter: may import `base`, `constants`, `reading` and `requests`.
"""
