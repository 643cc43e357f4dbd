"""The requests the kernel-config core answers: each `func.func` collected as `kernelcfg.resolve`
ops (`collect`), the policy and target read from attributes and pass options (`pass_options`),
and each kernel's request and answer (`kernels`).

May import `base`, `dialects` and `reading`.
"""
