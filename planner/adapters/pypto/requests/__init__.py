"""Building requests: one function body walked into one `layout.plan` request (`reader`), with
its ops and their arguments, loops, windows, the value flow to matmul operands, and the model
of what sits where in the text (`model`) that writing back uses.

Rank 3 of the adapter: may import `base`, `constants` and `reading`.
"""
