"""Planning cost of `layout.plan`: constant offsets (baseline), Z3-proven symbolic offsets, many loads.

Prints the median and p99 of each case and its ratio to the constant-offset baseline measured in
the same run. Not a test: nothing here passes or fails.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest

REPEATS = 200


def _request(
    offsets: list[Any], loads: int = 1, bindings: list[dict[str, Any]] | None = None
) -> LayoutPlanRequest:
    ops = [
        {
            "id": f"l{index}",
            "op": "tile.load",
            "source": "w",
            "offsets": offsets,
            "shapes": [1, 256, 512],
            "target_memory": "Mat",
        }
        for index in range(loads)
    ]
    body = {
        "target": "a2a3",
        "tensors": [{"name": "w", "shape": [8, 4096, 4096], "dtype": "INT8", "layout": "NZ"}],
        "bindings": bindings or [],
        "ops": ops,
    }
    return LayoutPlanRequest.model_validate(body)


SYMBOLIC = [
    {"name": "nb", "kind": "spmd", "extent": 16},
    {"name": "n0", "kind": "assign", "expr": "nb * 256"},
    {"name": "k0", "kind": "for", "start": 512, "stop": 4096, "step": 512},
]
CASES: dict[str, LayoutPlanRequest] = {
    "constant offsets, 1 load (baseline)": _request([1, 256, 512]),
    "symbolic offsets, 1 load (4 proof obligations)": _request(["e", "n0", "k0"], bindings=SYMBOLIC),
    "constant offsets, 64 loads": _request([1, 256, 512], loads=64),
    "symbolic offsets, 64 loads (cached verdicts)": _request(["e", "n0", "k0"], loads=64, bindings=SYMBOLIC),
}


def _timings(run: Callable[[], object]) -> list[float]:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return sorted(samples)


def main() -> None:
    results = {name: _timings(lambda request=request: plan(request)) for name, request in CASES.items()}
    baseline = statistics.median(next(iter(results.values())))
    print(f"{'case':48} {'median':>10} {'p99':>10} {'ratio':>8}")
    for name, samples in results.items():
        median = statistics.median(samples)
        p99 = samples[int(0.99 * (len(samples) - 1))]
        print(f"{name:48} {median * 1e3:8.3f}ms {p99 * 1e3:8.3f}ms {median / baseline:7.1f}x")


if __name__ == "__main__":
    main()
