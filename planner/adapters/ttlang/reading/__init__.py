"""Reading text into IR: the reading context (`context`), the site-recording parser (`sites`) with
MLIR's location forms and aliases (`locations`), the sections of an IR-printing log (`ir_log`), the
fast reader of the common forms (`fast_reader`), chunks parsed and verified (`source`), the bounds
checked before parsing (`nesting`, `numbers`), SSA dominance (`dominance`), and diagnostics at the
places read (`diagnostics`).

May import `base` and `dialects`.
"""
