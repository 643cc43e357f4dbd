"""Property-based checks of users' own passes against the planner, and the pieces they use.

- `check_layout_pass`, `check_kernelcfg_pass`, `check_proofs_pass`: compare an implementation
  (a Python callable or a command line, JSON in and out) with the planner on generated
  requests and raise `PassDisagreement` with the shrunk request (`planner.testing.harness`).
- `planner.testing.strategies`: hypothesis strategies producing the protocol's requests.
- `planner.testing.oracles`: brute-force references (wrapping arithmetic, NZ bytes, kernel
  configurations by enumeration); `planner.testing.literal_search`: the resolver's search
  written out step by step, checked against the resolver's own problem.
- the pytest plugin `planner.testing.plugin` offers the helpers as fixtures.

Names are imported on first use, so importing this package costs nothing.
"""

from planner.testing.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "harness": ("check_kernelcfg_pass", "check_layout_pass", "check_pass", "check_proofs_pass"),
        "disagreement": ("Disagreement", "Finding", "PassDisagreement"),
        "impl": ("Implementation", "ImplementationError"),
    },
)
