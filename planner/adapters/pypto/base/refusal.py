"""A construct the reader cannot evaluate that reaches an NZ decision (docs/design/nz-layout.md 17).

Such a construct (a dtype held in a builder parameter on an NZ tensor, a layout slot the reader
does not know) refuses its kernel, exit 1, with what would let it be read. The same construct on
a tensor that is not NZ is read as opaque and never stops anything.
"""

from __future__ import annotations

from planner.adapters.outcome import AdapterInputError


class KernelRefusal(AdapterInputError):
    """The kernel was read far enough to know it needs an NZ decision it cannot make."""
