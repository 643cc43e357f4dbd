"""Service round trips through `PlannerClient` and `planner --help` cold start.

Round trips: median and p99 of a 10-op `kernelcfg.resolve`, a one-load `layout.plan` with
symbolic offsets (four proof obligations) and the same load at constant offsets (no
obligations: what is left is service and planner overhead), against `planner.version`
(the transport floor) measured in the same server. Target: <= 1 ms each. Cold start: median
of `planner --help` (target <= 0.3 s) against a bare `python -c pass` in the same run.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from planner.service.client import PlannerClient

BIN = Path(sys.executable).parent
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "json"
ROUND_TRIPS = 500
COLD_STARTS = 15

KERNEL = {
    "arch": "blackhole",
    "dfbs": [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "f32"}],
    "ops": [
        {
            "id": f"add{i}",
            "op": "tile_add",
            "operands": [{"dfb": 0}, {"dfb": 1}],
            "result_dtype": "f32",
            "same_tile_coords": True,
        }
        for i in range(10)
    ],
}
LAYOUT_SYMBOLIC: dict[str, Any] = json.loads((EXAMPLES / "layout-plan.json").read_text())["params"]
LAYOUT_CONSTANT = {
    **LAYOUT_SYMBOLIC,
    "bindings": [],
    "ops": [{**LAYOUT_SYMBOLIC["ops"][0], "offsets": [0, 0]}],
}
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "planner.version": ("planner.version", {}),
    "kernelcfg.resolve": ("kernelcfg.resolve", KERNEL),
    "layout.plan symbolic": ("layout.plan", LAYOUT_SYMBOLIC),
    "layout.plan constant": ("layout.plan", LAYOUT_CONSTANT),
}


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def round_trips(client: PlannerClient, method: str, params: dict[str, Any]) -> list[float]:
    """Seconds per request/reply over the pipes, one request in flight at a time."""
    samples = []
    for _ in range(ROUND_TRIPS):
        started = time.perf_counter()
        client.call(method, params)
        samples.append(time.perf_counter() - started)
    return samples


def check_cases(client: PlannerClient) -> None:
    """The layout cases plan, and only the symbolic one carries proof obligations."""
    symbolic = client.call("layout.plan", LAYOUT_SYMBOLIC)
    constant = client.call("layout.plan", LAYOUT_CONSTANT)
    assert symbolic["ok"] and constant["ok"], (symbolic, constant)
    assert len(symbolic["obligations"]) == 4 and constant["obligations"] == [], constant


def cold_start(argv: list[str]) -> float:
    samples = []
    for _ in range(COLD_STARTS):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> int:
    with PlannerClient() as client:
        check_cases(client)
        for method, params in CASES.values():  # warm up imports and caches
            round_trips(client, method, params)
        timings = {name: round_trips(client, method, params) for name, (method, params) in CASES.items()}
    floor = statistics.median(timings["planner.version"])
    print(f"stdio round trip through PlannerClient, {ROUND_TRIPS} requests each (baseline: planner.version)")
    for name, samples in timings.items():
        median = statistics.median(samples)
        print(
            f"  {name:22s} median {median * 1e3:7.3f} ms  p99 {percentile(samples, 0.99) * 1e3:7.3f} ms"
            f"  x{median / floor:5.2f} of baseline"
        )
    symbolic, constant = (
        statistics.median(timings[f"layout.plan {kind}"]) for kind in ("symbolic", "constant")
    )
    print(f"  proof share of layout.plan symbolic: {(symbolic - constant) * 1e3:.3f} ms")
    python = cold_start([sys.executable, "-c", "pass"])
    planner = cold_start([str(BIN / "planner"), "--help"])
    print(f"cold start, median of {COLD_STARTS} (baseline: python -c pass)")
    print(f"  python -c pass   {python * 1e3:7.1f} ms")
    print(f"  planner --help   {planner * 1e3:7.1f} ms  x{planner / python:5.2f} of baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
