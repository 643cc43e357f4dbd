"""Service round trips over stdio and `planner --help` cold start.

Round trips: median and p99 of a 10-op `kernelcfg.resolve` and a one-load `layout.plan`
(target <= 1 ms each), against `planner.version` (the transport floor) measured in the same
server. Cold start: median of `planner --help` (target <= 0.3 s) against a bare
`python -c pass` in the same run.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
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
LAYOUT = {
    "target": "a2a3",
    "tensors": [{"name": "w", "shape": [256, 512], "dtype": "INT8", "layout": "NZ"}],
    "bindings": [
        {"name": "nb", "kind": "spmd", "extent": 2},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
        {"name": "k0", "kind": "for", "start": 512, "stop": 4096, "step": 512},
    ],
    "ops": [
        {
            "id": "l0",
            "op": "tile.load",
            "source": "w",
            "offsets": ["n0", "k0"],
            "shapes": [256, 512],
            "target_memory": "Mat",
        }
    ],
}


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def round_trips(server: subprocess.Popen[bytes], method: str, params: dict[str, Any]) -> list[float]:
    """Seconds per request/reply over the pipes, one request in flight at a time."""
    assert server.stdin is not None and server.stdout is not None
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode() + b"\n"
    samples = []
    for _ in range(ROUND_TRIPS):
        started = time.perf_counter()
        server.stdin.write(line)
        server.stdin.flush()
        reply = server.stdout.readline()
        samples.append(time.perf_counter() - started)
    assert b'"result"' in reply, reply[:300]
    return samples


def cold_start(argv: list[str]) -> float:
    samples = []
    for _ in range(COLD_STARTS):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> int:
    server = subprocess.Popen([str(BIN / "planner"), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        cases = {"planner.version": {}, "kernelcfg.resolve": KERNEL, "layout.plan": LAYOUT}
        for method, params in cases.items():  # warm up imports and caches
            round_trips(server, method, params)
        timings = {method: round_trips(server, method, params) for method, params in cases.items()}
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait()
    floor = statistics.median(timings["planner.version"])
    print(f"stdio round trip, {ROUND_TRIPS} requests each (baseline: planner.version)")
    for method, samples in timings.items():
        median = statistics.median(samples)
        print(
            f"  {method:18s} median {median * 1e3:7.3f} ms  p99 {percentile(samples, 0.99) * 1e3:7.3f} ms"
            f"  x{median / floor:5.2f} of baseline"
        )
    python = cold_start([sys.executable, "-c", "pass"])
    planner = cold_start([str(BIN / "planner"), "--help"])
    print(f"cold start, median of {COLD_STARTS} (baseline: python -c pass)")
    print(f"  python -c pass   {python * 1e3:7.1f} ms")
    print(f"  planner --help   {planner * 1e3:7.1f} ms  x{planner / python:5.2f} of baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
