"""The `adapter.*` diagnostic codes of the TT-Lang MLIR adapter (each defined here only)."""

from __future__ import annotations

PARSE_ERROR = "adapter.parse_error"
"""The text is not MLIR in the TT-Lang subset (docs/design/kernel-config.md section 10)."""

INVALID_IR = "adapter.invalid_ir"
"""The text parses but breaks an op's structural rules (operand counts, terminators)."""

OPTION_UNKNOWN = "adapter.option_unknown"
"""A pass option that ttl-set-compute-kernel-config does not have."""

OPTION_INVALID = "adapter.option_invalid"
"""A boolean pass option whose value is not true/false/1/0."""

ATTRIBUTE_INVALID = "adapter.attribute_invalid"
"""An op attribute outside its allowed values (e.g. a broadcast kind other than 1, 2, 3)."""

REQUEST_REJECTED = "adapter.request_rejected"
"""The resolver refused the request built from the IR (an IR construct it cannot describe)."""

UNKNOWN_TILE_OP = "adapter.unknown_tile_op"
"""An op of another dialect, read only in generic form, that reads or produces tiles."""

NO_IR_DUMP = "adapter.no_ir_dump"
"""An IR-printing log with no dump to plan (none holds IR, or none matches `--section`)."""

TARGET_UNKNOWN = "adapter.target_unknown"
"""A kernel refusal (exit 1): a function dumped alone, its module's attributes not in the log,
whose plan differs between the targets the module could name."""

TARGET_MISMATCH = "adapter.target_mismatch"
"""The target given on the command line (`--target-arch`) contradicts the module's own."""
