"""Brute-force references the planner is checked against, independent of its own algorithms.

- `arith`: exhaustive evaluation of offsets with wraparound (widths up to 16 bits).
- `nz_bytes`: the NZ host packer/unpacker and a window reader through blocked strides.
- `kernel_enum`: every kernel configuration of a small kernel, checked requirement by requirement
  (`kernel_enum_needs` reads a request into its requirements).

Names are imported on first use.
"""

from planner.testing.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "arith": ("OracleLimitExceeded", "OracleOutcome", "assignments", "evaluate", "oracle_check", "wrap"),
        "nz_bytes": ("nz_c0", "pack_nz", "read_window", "unpack_nz"),
        "kernel_enum": ("Assignment", "EnumOracle", "Need", "Refusal", "enum_oracle", "refusal"),
    },
)
