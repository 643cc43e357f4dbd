"""`layout.plan` request pieces the tests share: an NZ tensor, and a `tile.load` of it into Mat."""

from __future__ import annotations

from typing import Any


def tensor(
    name: str = "w", shape: list[Any] | None = None, dtype: str = "INT8", **extra: Any
) -> dict[str, Any]:
    return {"name": name, "shape": shape or [256, 512], "dtype": dtype, "layout": "NZ", **extra}


def load(offsets: list[Any], shapes: list[Any], op_id: str = "l0", **extra: Any) -> dict[str, Any]:
    return {
        "id": op_id,
        "op": "tile.load",
        "source": "w",
        "offsets": offsets,
        "shapes": shapes,
        "target_memory": "Mat",
        **extra,
    }
