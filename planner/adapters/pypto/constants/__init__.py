"""Resolving constants: what a kernel's names are worth, read statically through its scopes and the
modules it imports, never run (docs/design/nz-layout.md section 19): where modules come from
(`module_finder`), what a body binds (`scopes`), the safe evaluator (`constant_eval`), the resolver
itself (`resolver`) and the constants one kernel reads (`kernel_constants`), and why a name stays
unresolved (`extent_causes`).

Rank 1 of the adapter: may import `base` only.
"""
