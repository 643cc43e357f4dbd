"""Writing back: a plan's answer as text: printed IR rewritten (`apply`), source reported as
notes (`report`), a refusal as compiler-style diagnostic lines (`diagnostics`).

Rank 4 of the adapter: may import `base`, `constants`, `reading` and `requests`.
"""
