"""Per-obligation latency of the prover: warm, cached and fresh-solver, in one run.

- warm: one shared `Prover` (one solver, push/pop), every obligation distinct, so no cache hit;
- cached: the same obligations asked again of that prover;
- fresh: a new Z3-only `Prover` (new solver, bindings re-asserted) per obligation -- the baseline;
- warm, Z3 only: the shared prover without the range/residue fast path (`abstract=False`).
- floor vs either: the obligations that contain `//` or `%`, asked of warm provers under
  `division="floor"` and under `"either"` (both roundings must hold), with and without the
  fast path.

Prints median and p99 per obligation and the ratios between them. Targets: warm median
<= 0.5 ms, cached median <= 20 us, `either` at most 2x `floor` on the dividing obligations.
Run: `.venv/bin/python benchmarks/bench_proofs.py [count]`.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from pydantic import TypeAdapter

from planner.proofs import Prover
from planner.proofs.protocol import Binding

BINDINGS = TypeAdapter(list[Binding]).validate_python(
    [
        {"kind": "assign", "name": "N_TILE", "expr": 256},
        {"kind": "spmd", "name": "nb", "extent": 16},
        {"kind": "assign", "name": "n0", "expr": "nb * N_TILE"},
        {"kind": "for", "name": "k0", "start": 512, "stop": 4096, "step": 512},
        {"kind": "block_idx", "name": "blk"},
        {"kind": "for", "name": "ob", "start": "blk", "stop": 64, "step": 4},
        {"kind": "assign", "name": "o0", "expr": "ob * 256"},
    ]
)
SHAPES = (
    "n0 + {i} * 16",
    "k0 * {i} + 32",
    "(blk % 2) * {i} * 32",
    "((blk - 1) % 4) * {i} * 16",
    "min({i} * 16 + 800 - o0, 256)",
    "(blk // 2) * 128 + {i}",
    "nb * 256 - {i}",
)
Obligation = tuple[str, str, int]


def obligations(count: int) -> list[Obligation]:
    """`count` distinct obligations cycling over the shapes the layout planner poses."""
    made: list[Obligation] = []
    for i in range(count):
        shape = SHAPES[i % len(SHAPES)].format(i=i // len(SHAPES) + 1)
        made.append((shape, "multiple_of" if i % 2 == 0 else "non_negative", 16))
    return made


def timed(run: Callable[[Obligation], object], work: list[Obligation]) -> list[float]:
    """Seconds per obligation."""
    samples = []
    for obligation in work:
        start = time.perf_counter()
        run(obligation)
        samples.append(time.perf_counter() - start)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    """(median, p99) in microseconds."""
    ordered = sorted(samples)
    return statistics.median(ordered) * 1e6, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e6


def report(name: str, samples: list[float]) -> tuple[float, float]:
    """Print one mode's median and p99; return them."""
    median, p99 = summary(samples)
    print(f"{name:>17}: median {median:9.1f} us   p99 {p99:9.1f} us   ({len(samples)} obligations)")
    return median, p99


def main(count: int) -> None:
    work = obligations(count)
    shared = Prover(BINDINGS, target="a2a3")
    shared.check("0", "non_negative")  # solver start-up outside the measurement
    warm_samples = timed(lambda o: shared.check(*o), work)  # type: ignore[arg-type]
    cached_samples = timed(lambda o: shared.check(*o), work)  # type: ignore[arg-type]
    solver_only = Prover(BINDINGS, target="a2a3", abstract=False)
    solver_only.check("0", "non_negative")
    z3_samples = timed(lambda o: solver_only.check(*o), work)  # type: ignore[arg-type]
    fresh_samples = timed(
        lambda o: Prover(BINDINGS, target="a2a3", abstract=False).check(*o),  # type: ignore[arg-type]
        work,
    )
    statuses = [shared.check(*o).status for o in work]  # type: ignore[arg-type]
    fresh = report("fresh (baseline)", fresh_samples)
    z3_warm = report("warm, Z3 only", z3_samples)
    warm = report("warm", warm_samples)
    for status in ("proven", "refuted"):
        report(f"warm, {status}", [t for t, s in zip(warm_samples, statuses, strict=True) if s == status])
    cached = report("cached", cached_samples)
    print(f"warm vs fresh: {fresh[0] / warm[0]:.1f}x faster (median), {fresh[1] / warm[1]:.1f}x (p99)")
    print(f"warm vs warm Z3 only: {z3_warm[0] / warm[0]:.1f}x faster (median)")
    print(f"cached vs warm: {warm[0] / cached[0]:.0f}x faster (median)")
    fast, solver = division_costs([o for o in work if "//" in o[0] or "%" in o[0]])
    print(f"targets: warm median <= 500 us: {warm[0] <= 500}; cached median <= 20 us: {cached[0] <= 20}")
    print(f"         either <= 2x floor: {fast <= 2} (fast path on), {solver <= 2} (Z3 only)")


def division_costs(work: list[Obligation]) -> list[float]:
    """Median cost of `either` over `floor` on dividing obligations (fast path on, then Z3 only)."""
    ratios = []
    for abstract in (True, False):
        medians = []
        for division in ("floor", "either"):
            prover = Prover(BINDINGS, target="a2a3", abstract=abstract)
            prover.check("0", "non_negative")
            samples = timed(lambda o, p=prover, d=division: p.check(*o, d), work)  # type: ignore[misc]
            medians.append(report(f"{division}{'' if abstract else ', Z3 only'}", samples)[0])
        ratios.append(medians[1] / medians[0])
        print(f"either vs floor{'' if abstract else ', Z3 only'}: {ratios[-1]:.2f}x (median)")
    return ratios


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 700)
