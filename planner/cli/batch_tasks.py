"""What `planner batch` hands between its runners: one file's answer, and how many files one task takes.

The process pool (`planner.cli.batch`) and dask (`planner.cli.batch_dask`) both cut the inputs
into tasks of `chunk_size` files and answer each file with a `FileResult`; this module sits
below both so neither imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHUNKS_PER_WORKER = 8
MAX_CHUNK = 32  # files per task


@dataclass(frozen=True, slots=True)
class FileResult:
    """One input's outcome: `exit` is what `planner plan` / `planner call` would return for it."""

    input: str
    exit: int
    kind: str | None = None
    diagnostics: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None


def chunk_size(files: int, workers: int) -> int:
    """Files per task: enough tasks that every worker stays busy to the end, each worth its overhead."""
    return max(1, min(MAX_CHUNK, -(-files // (max(workers, 1) * CHUNKS_PER_WORKER))))
