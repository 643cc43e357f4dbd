"""Optional extras, imported on demand: a missing one is a typed error naming the extra to install."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from planner import request_codes
from planner.errors import RequestError


def _require(module: str, extra: str, purpose: str) -> Any:
    if importlib.util.find_spec(module.partition(".")[0]) is None:
        raise RequestError(
            request_codes.MISSING_EXTRA, f"{purpose} needs {module}: pip install 'tile-planner[{extra}]'"
        )
    return importlib.import_module(module)


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend (`tile-planner[viz]`)."""
    _require("matplotlib", "viz", "drawing a PNG").use("Agg")
    return importlib.import_module("matplotlib.pyplot")


def dask_distributed() -> Any:
    """dask.distributed (`tile-planner[dask]`)."""
    return _require("dask.distributed", "dask", "--dask")
