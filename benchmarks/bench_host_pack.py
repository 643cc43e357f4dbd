"""Host packing bandwidth: `planner.layout.host.pack` / `unpack` against `numpy.copy` of the same array.

Two weights: a 4096 x 4096 INT8 matrix and an 8 x 2048 x 7168 BF16 stack (held as 16-bit
words, numpy having no BF16). For each, the median of `pack`, `unpack` and `numpy.copy` over
the repeats, all in the same run, in GB/s of logical bytes, and the ratio to the copy.
Packing reads every 32-byte C0 line once and writes it once, like the copy, but in a
transposed order. Target: pack >= 0.3x the copy's bandwidth. Not a test.

    .venv/bin/python benchmarks/bench_host_pack.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from planner.layout.host import pack, unpack

WEIGHTS = (("INT8", (4096, 4096), np.int8), ("BF16", (8, 2048, 7168), np.uint16))
TARGET_RATIO = 0.3


def median_seconds(run: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    worst = float("inf")
    for dtype, shape, words in WEIGHTS:
        logical = np.random.default_rng(0).integers(0, 1 << 15, size=shape).astype(words)
        packed = pack(logical, dtype)
        assert np.array_equal(unpack(packed, shape, dtype), logical)
        gigabytes = logical.nbytes / 1e9
        copy = median_seconds(lambda: np.copy(logical), args.repeats)  # noqa: B023
        timings = {
            "pack": median_seconds(lambda: pack(logical, dtype), args.repeats),  # noqa: B023
            "unpack": median_seconds(lambda: unpack(packed, shape, dtype), args.repeats),  # noqa: B023
        }
        print(f"{dtype} {list(shape)} ({logical.nbytes / 2**20:.0f} MiB):")
        print(f"  numpy.copy {gigabytes / copy:6.2f} GB/s  median {copy * 1e3:7.1f} ms")
        for name, seconds in timings.items():
            ratio = copy / seconds
            print(
                f"  {name:10} {gigabytes / seconds:6.2f} GB/s  median {seconds * 1e3:7.1f} ms  "
                f"{ratio:.2f}x copy"
            )
        worst = min(worst, copy / timings["pack"])
    verdict = "meets" if worst >= TARGET_RATIO else "misses"
    print(f"pack: worst {worst:.2f}x copy bandwidth, {verdict} the {TARGET_RATIO}x target")


if __name__ == "__main__":
    main()
