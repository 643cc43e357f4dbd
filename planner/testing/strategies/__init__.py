"""Hypothesis strategies producing the protocol's pydantic request models.

- `expressions`: offsets, binding lists and `proofs.check` requests.
- `nz`: NZ tensors with loads, slices and stores; accepted requests and refused ones with their code.
- `kernels`: `kernelcfg.resolve` requests over the whole op vocabulary and every policy knob.
- `regions`: requests aimed at known bug regions (offsets that wrap; a DFB shared by an SFPU
  consumer and an FPU-eligible op).

Names are imported on first use. The offset strategy `expressions` is not re-exported: the
package attribute of that name is its submodule; import it from
`planner.testing.strategies.expressions`.
"""

from planner.testing.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "expressions": ("binding_lists", "constants", "proof_requests"),
        "nz": (
            "acc_stores",
            "aligned_loads",
            "c0_of",
            "leading_windows",
            "nz_tensor_specs",
            "refused_layout_requests",
            "valid_layout_requests",
        ),
        "kernels": ("conflicting_kernel_requests", "kernel_requests"),
        "regions": ("shared_dfb_kernel_requests", "wraparound_layout_requests", "wrapping_product"),
    },
)
