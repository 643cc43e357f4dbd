"""Diagnostic codes of the PyPTO adapter, each defined once.

Every malformed or unsupported input is reported as an `AdapterInputError` carrying one of
these codes and the 1-based line and column of the offending text.
"""

from __future__ import annotations

SYNTAX_ERROR = "adapter.pypto.syntax_error"
"""The text is not Python syntax (or cannot be tokenised)."""

NOT_A_PROGRAM = "adapter.pypto.not_a_program"
"""No `import pypto.language as pl`, no kernel to plan, or a header without its one `@pl.program` class."""

UNSUPPORTED_CONSTRUCT = "adapter.pypto.unsupported_construct"
"""A statement or call form the printed-IR format (docs/design/nz-layout.md section 17) does not have."""

UNSUPPORTED_TYPE = "adapter.pypto.unsupported_type"
"""A type annotation that is not `pl.Tensor`, `pl.Tile`, `pl.Scalar` or a tuple of them."""

UNKNOWN_DTYPE = "adapter.pypto.unknown_dtype"
"""A `pl.<DTYPE>` the Ascend dtype table does not know."""

UNKNOWN_TILE_TYPE = "adapter.pypto.unknown_tile_type"
"""A store into an NZ tensor whose source tile has no known type (annotate the tile)."""

BAD_OPTION = "adapter.pypto.bad_option"
"""An adapter option that is unknown or has an unsupported value."""

INVALID_REQUEST = "adapter.pypto.invalid_request"
"""The function cannot be expressed as a valid `layout.plan` request (limits, names)."""

ND_ARGUMENT_FOR_NZ = "adapter.pypto.nd_argument_for_nz"
"""`planner suggest`: a call passes a kernel's would-be NZ parameter a value no annotation makes NZ."""

UNREADABLE_IMPORT = "adapter.pypto.unreadable_import"
"""A warning: a module the kernel file imports was found but cannot be read; its names stay symbolic."""

SKIPPED_KERNEL = "adapter.pypto.skipped_kernel"
"""A warning: a kernel written as text handed to a parser, or built by a decorator called as a function."""

UNEVALUATED_NZ = "adapter.pypto.unevaluated_nz"
"""A kernel refusal: an NZ decision (the dtype, shape or layout of an NZ tensor) rests on a construct
the reader cannot evaluate; the message names the construct and what would let it be read."""
