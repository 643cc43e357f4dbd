"""IR adapters: PyPTO printed programs and TT-Lang MLIR. This module picks one for a file.

Detection looks only at the file name's extension and the text itself (never executes it):
the PyPTO printer's header or import marks a program, MLIR's `func.func` / `module` marks
TT-Lang.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, Literal, TypeAlias

from planner.adapters.outcome import AdapterInputError, AdapterOutcome

__all__ = [
    "UNKNOWN_FORMAT",
    "AdapterInputError",
    "AdapterName",
    "AdapterOutcome",
    "detect_adapter",
    "plan_with",
]

AdapterName: TypeAlias = Literal["pypto", "ttlang"]

UNKNOWN_FORMAT = "adapter.unknown_format"

_BY_EXTENSION: dict[str, AdapterName] = {".py": "pypto", ".pypto": "pypto", ".mlir": "ttlang"}
_CONTENT_MARKERS: tuple[tuple[str, AdapterName], ...] = (
    ("# pypto.program:", "pypto"),
    ("import pypto.language", "pypto"),
    ("from pypto import language", "pypto"),
    ("@pl.program", "pypto"),
    ("func.func", "ttlang"),
    ("ttl.", "ttlang"),
)


def detect_adapter(filename: str, text: str) -> AdapterName:
    """The adapter for a file: by extension first, then by the markers its text carries."""
    by_extension = _BY_EXTENSION.get(PurePath(filename).suffix.lower())
    if by_extension is not None:
        return by_extension
    for marker, adapter in _CONTENT_MARKERS:
        if marker in text:
            return adapter
    raise AdapterInputError(
        UNKNOWN_FORMAT,
        f"cannot tell which IR {PurePath(filename).name} holds; expected a PyPTO program "
        "(.py, '# pypto.program:' header) or TT-Lang MLIR (.mlir, 'func.func')",
    )


def plan_with(
    adapter: AdapterName, text: str, *, filename: str, options: Mapping[str, Any], context: Any = None
) -> AdapterOutcome:
    """Plan `text` with the named adapter (imported on first use); `context` tells the PyPTO
    adapter where a file's imported modules come from."""
    module = importlib.import_module(f"planner.adapters.{adapter}")
    extra = {"context": context} if context is not None and adapter == "pypto" else {}
    outcome: AdapterOutcome = module.plan_text(text, filename=filename, options=dict(options), **extra)
    return outcome
