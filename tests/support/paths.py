"""The repository root, found once: a test file at any depth names files as `ROOT / "examples" / ...`."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
