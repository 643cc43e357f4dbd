"""Reading source: what a PyPTO file's text says before any function body is walked: its module level,
printed IR or user source (`program`), where its kernels are (`kernels`), and what a type annotation
says (`types`), and the kernels built in ways the reader does not follow (`skipped`).

Rank 2 of the adapter: may import `base` and `constants` (a kernel's constants are resolved as the
file is read).
"""
