"""`planner batch` over 1,000 generated files: the process pool against `--dask local`.

Both run as the `planner batch` command with two workers, alternating, in the same run:
`--workers 2` (the process pool) and `--dask local --workers 2` (a local cluster of two
one-thread worker processes, started and stopped by the command, so its start-up counts).
The corpus is tests/support/batch_corpus.py's (PyPTO, TT-Lang and JSON inputs; planned, refused and
unreadable). Reports the median wall time of each and the ratio dask / pool, and checks
that both wrote the same bytes; then each runner's fixed cost (the median over one file:
interpreter, pool or cluster start and stop) and the ratio with it taken off, which is what
a larger batch tends to. Target: ratio <= 1.5. Not a test.

    .venv/bin/python benchmarks/bench_batch.py [--files 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.batch_corpus import write_corpus

TARGET_RATIO = 1.5
PLANNER = [sys.executable, "-m", "planner.cli", "batch", "--quiet", "--workers", "2"]
RUNNERS = {"process pool": [], "dask local": ["--dask", "local"]}


def timed(argv: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    return time.perf_counter() - start, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        per_copy = len(write_corpus(Path(root) / "probe"))
        copies = -(-args.files // per_copy)
        files = [str(path) for path in write_corpus(Path(root) / "corpus", copies)[: args.files]]
        seconds: dict[str, list[float]] = {name: [] for name in RUNNERS}
        fixed: dict[str, list[float]] = {name: [] for name in RUNNERS}
        outputs: dict[str, set[bytes]] = {name: set() for name in RUNNERS}
        for _ in range(args.repeats):
            for name, extra in RUNNERS.items():
                elapsed, out = timed([*PLANNER, *extra, *files])
                seconds[name].append(elapsed)
                outputs[name].add(out)
                fixed[name].append(timed([*PLANNER, *extra, files[0]])[0])
    medians = {name: statistics.median(times) for name, times in seconds.items()}
    fixed_medians = {name: statistics.median(times) for name, times in fixed.items()}
    for name, median in medians.items():
        print(
            f"{name:13s} {len(files)} files: median {median:6.2f} s over {args.repeats} runs; "
            f"one file: {fixed_medians[name]:5.2f} s"
        )
    ratio = medians["dask local"] / medians["process pool"]
    print(f"dask local / process pool: {ratio:.2f} (target <= {TARGET_RATIO})")
    work = {name: medians[name] - fixed_medians[name] for name in RUNNERS}
    print(f"the same with each one-file time taken off: {work['dask local'] / work['process pool']:.2f}")
    same = len(outputs["process pool"] | outputs["dask local"]) == 1
    print("outputs: byte-identical" if same else "outputs: DIFFER")
    return 0 if same and ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
