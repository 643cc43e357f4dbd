"""The public path of the `planner-opt` console script (`planner.adapters.ttlang.opt_main:main` in
pyproject.toml); the tool is written in `tool.opt_main`."""

from __future__ import annotations

from planner.adapters.ttlang.tool.opt_main import main

__all__ = ["main"]
