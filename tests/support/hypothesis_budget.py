"""Example budgets for expensive properties: lowered under the `ci` profile, full under `soak`."""

from __future__ import annotations

import os

from hypothesis import settings


def lowered(ci_examples: int) -> int:
    """`ci_examples` in everyday runs; the active profile's full count under `make soak`."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "soak":
        return settings.default.max_examples
    return ci_examples
