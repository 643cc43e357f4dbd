"""Kernel-config resolver: the search against python-constraint's own solver, and `planner serve` end to end.

Kernels (Blackhole, 5,000 ops by default):
- sparse: blocks of add/exp/mul/store over 32 DFB pairs; every third pair has an exp pinning
  unpack-to-DST;
- dense: 64 DFBs, every third bf16 and the rest f32; ops cycle through add, mul and sub of
  two random DFBs (f32 results), an exp of the previous op and a store of the previous op.

Every step prints medians of wall-clock and CPU time (`time.process_time`): the machine may
be shared, and CPU time is what a busy neighbour disturbs least.

Search: the same python-constraint problem (built afresh for every run from the same
request) is solved by `KernelSolver` and by `OptimizedBacktrackingSolver`; the time is the
solver's `getSolution` alone (timed by a wrapping solver), after the problem's shared
preparation. Target: >= 25x (CPU) at the largest size, for both kernels.

End to end: the dense kernel as a `kernelcfg.resolve` request through `planner serve` over
stdio (`PlannerClient`), request validation included (wall-clock, client to reply). Beside
it, in this process: the server's work on the same message (read, validate, resolve, dump)
and the request validation alone, with its share of that work. Targets: <= 0.3 s at the
largest size and <= 12x the smallest size's time.

Precision: the dense kernel of the largest size resolved with `precision=exact` (every f32
operand lossless: its f32 binary ops run on the SFPU) against the default resolve, CPU
medians of alternating runs. Target: <= 1.5x.

Refused kernels (`--refused-sizes`): the sparse blocks with a row broadcast of an unpacked
DFB inserted half-way. Printed: the `resolve()` median including the minimal conflict and
the verified corrections; the same kernel without the broadcast (plans: the baseline); and
QuickXplain over every record (no focus on the conflict's component) against the focused
search `resolve()` runs. Target: <= 1 s at 5,000 ops. Not a test.

    .venv/bin/python benchmarks/bench_resolver.py [--sizes 500 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any

import constraint

from planner.kernelcfg import resolve
from planner.kernelcfg.minimal_conflict import minimal_conflict, quickxplain
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.records import build_records, satisfiable
from planner.kernelcfg.resolver import kernel_problem, resolve_with
from planner.kernelcfg.solver import KernelSolver
from planner.limits import Limits
from planner.service.client import PlannerClient
from planner.service.jsonrpc import handle_message

PAIRS = 32  # DFB pairs (2j, 2j + 1) on Blackhole's 64 indices


def synthetic_ops(ops: int, pairs: int = PAIRS) -> list[dict[str, Any]]:
    """Blocks of add/exp/mul/store over DFB pairs; every third pair has an exp pinning unpack-to-DST."""
    op_list: list[dict[str, Any]] = []
    block = 0
    while len(op_list) < ops:
        pair = block % pairs
        a, b = 2 * pair, 2 * pair + 1
        add, exp, mul = f"add{block}", f"exp{block}", f"mul{block}"
        exp_input: dict[str, Any] = {"dfb": b} if pair % 3 == 0 else {"value": add}
        op_list += [
            {
                "id": add,
                "op": "tile_add",
                "operands": [{"dfb": a}, {"dfb": b}],
                "result_dtype": "f32",
                "same_tile_coords": True,
            },
            {"id": exp, "op": "tile_exp", "operands": [exp_input], "result_dtype": "f32"},
            {
                "id": mul,
                "op": "tile_mul",
                "operands": [{"value": add}, {"value": exp}],
                "result_dtype": "f32",
            },
            {"id": f"st{block}", "op": "tile_store", "operands": [{"value": mul}]},
        ]
        block += 1
    return op_list[:ops]


def blackhole_request(op_list: list[dict[str, Any]], pairs: int = PAIRS) -> KernelcfgResolveRequest:
    dfbs = [{"index": i, "dtype": "f32"} for i in range(2 * pairs)]
    return KernelcfgResolveRequest.model_validate({"arch": "blackhole", "dfbs": dfbs, "ops": op_list})


def synthetic_request(ops: int) -> KernelcfgResolveRequest:
    return blackhole_request(synthetic_ops(ops))


REFUSED_PAIRS = PAIRS - 1  # leaves two indices free for the split corrections
CONFLICT = {"id": "bcast_mid", "op": "tile_bcast", "operands": [{"dfb": 1}], "attrs": {"kind": "row"}}


def refused_requests(ops: int) -> tuple[KernelcfgResolveRequest, KernelcfgResolveRequest]:
    """A kernel refused half-way (a row broadcast of DFB 1, which exps unpack) and its planning twin."""
    op_list = synthetic_ops(ops - 1, REFUSED_PAIRS)
    middle = len(op_list) // 8 * 4  # a block boundary near the middle
    refused = blackhole_request([*op_list[:middle], CONFLICT, *op_list[middle:]], REFUSED_PAIRS)
    return refused, blackhole_request(op_list, REFUSED_PAIRS)


DENSE_DFBS = 64
BINARY = ("tile_add", "tile_mul", "tile_sub")


def dense_request(ops: int, seed: int = 0) -> KernelcfgResolveRequest:
    return KernelcfgResolveRequest.model_validate(dense_params(ops, seed))


def dense_params(ops: int, seed: int = 0) -> dict[str, Any]:
    """The dense kernel as request JSON: binary ops on random DFB pairs, each followed by exp and store."""
    rng = random.Random(seed)
    dfbs = [{"index": i, "dtype": "bf16" if i % 3 == 0 else "f32"} for i in range(DENSE_DFBS)]
    op_list: list[dict[str, Any]] = []
    for number in range(ops):
        kind, previous = number % 5, f"op{number - 1}"
        if kind < 3:
            a, b = rng.sample(range(DENSE_DFBS), 2)
            operands: list[dict[str, Any]] = [{"dfb": a}, {"dfb": b}]
            op_list.append(
                {
                    "id": f"op{number}",
                    "op": BINARY[kind],
                    "operands": operands,
                    "result_dtype": "f32",
                    "same_tile_coords": True,
                }
            )
        elif kind == 3:
            op_list.append({"id": f"op{number}", "op": "tile_exp", "operands": [{"value": previous}]})
        else:
            op_list.append({"id": f"op{number}", "op": "tile_store", "operands": [{"value": previous}]})
    return {"arch": "blackhole", "dfbs": dfbs, "ops": op_list}


class TimedSolver(constraint.Solver):  # type: ignore[misc]
    """Times another solver's `getSolution`: the search alone, after the problem's preparation."""

    def __init__(self, inner: constraint.Solver) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def getSolution(
        self,
        domains: dict[Hashable, Any],
        constraints: list[tuple[Any, Any]],
        vconstraints: dict[Hashable, Any],
    ) -> dict[Hashable, Any] | None:
        start, cpu_start = time.perf_counter(), time.process_time()
        solution: dict[Hashable, Any] | None = self.inner.getSolution(domains, constraints, vconstraints)
        self.seconds = time.perf_counter() - start
        self.cpu_seconds = time.process_time() - cpu_start
        return solution


@dataclass(frozen=True)
class Timing:
    """Medians of a measured step: wall-clock and CPU (this process) seconds."""

    wall: float
    cpu: float

    @staticmethod
    def of(walls: list[float], cpus: list[float]) -> Timing:
        return Timing(statistics.median(walls), statistics.median(cpus))

    def __str__(self) -> str:
        return f"{self.wall * 1e3:9.2f} ms wall {self.cpu * 1e3:9.2f} ms CPU"


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def time_search(
    request: KernelcfgResolveRequest, make_solver: Callable[[], constraint.Solver], repeats: int
) -> Timing:
    """Per run, on a fresh copy of the resolver's problem: the solver's `getSolution` time."""
    walls, cpus = [], []
    for _ in range(repeats):
        kernel = kernel_problem(request)
        timed = TimedSolver(make_solver())
        kernel.csp.setSolver(timed)
        gc.collect()  # the same clean heap for every solver
        assert kernel.csp.getSolution() is not None
        walls.append(timed.seconds)
        cpus.append(timed.cpu_seconds)
    return Timing.of(walls, cpus)


def time_served(client: PlannerClient, params: dict[str, Any], repeats: int) -> float:
    """`kernelcfg.resolve` round trips through `planner serve`: JSON, validation, resolution, reply."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        reply = client.call("kernelcfg.resolve", params)
        times.append(time.perf_counter() - start)
        assert reply["ok"], reply
    return statistics.median(times)


def time_steps(step: Callable[[], object], repeats: int) -> Timing:
    walls, cpus = [], []
    for _ in range(repeats):
        gc.collect()
        start, cpu_start = time.perf_counter(), time.process_time()
        step()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu_start)
    return Timing.of(walls, cpus)


def server_work(message: bytes) -> None:
    """What `planner serve` does for one request, in this process: read, validate, resolve, dump."""
    reply = handle_message(message, Limits())
    assert reply is not None and '"ok":true' in reply.replace(" ", "")


def time_resolve(request: KernelcfgResolveRequest, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        assert resolve(request).ok
        times.append(time.perf_counter() - start)
    return times


def time_refusal(request: KernelcfgResolveRequest, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        response = resolve(request)
        times.append(time.perf_counter() - start)
        assert response.conflict is not None and response.conflict.minimal_conflict
        assert any(correction.resolves for correction in response.conflict.corrections)
    return times


def time_minimal_conflict(request: KernelcfgResolveRequest, repeats: int, focused: bool) -> list[float]:
    """The minimal-conflict search alone: focused on the conflict's component, or over every record."""
    resolution = resolve_with(request)
    assert resolution.error is not None and resolution.target is not None
    assert resolution.requirements is not None
    items = build_records(resolution, resolution.requirements)
    target, error = resolution.target, resolution.error

    def consistent(subset: Any) -> bool:
        return satisfiable(subset, target, frozenset())

    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        if focused:
            minimal_conflict(items, error, consistent, target)
        else:
            quickxplain(items, consistent)
        times.append(time.perf_counter() - start)
    return times


def report_refusals(sizes: list[int], repeats: int) -> None:
    print(
        f"\n{'ops':>6} {'refused resolve()':>18} {'planning twin':>14} {'ratio':>7}"
        f" {'QX focused':>11} {'QX all records':>15} {'speedup':>8}"
    )
    for size in sizes:
        refused, twin = refused_requests(size)
        whole = statistics.median(time_refusal(refused, repeats))
        base = statistics.median(time_resolve(twin, repeats))
        focused = statistics.median(time_minimal_conflict(refused, repeats, focused=True))
        unfocused = statistics.median(time_minimal_conflict(refused, repeats, focused=False))
        print(
            f"{size:>6} {whole * 1e3:>15.1f} ms {base * 1e3:>11.1f} ms {whole / base:>6.1f}x"
            f" {focused * 1e3:>8.1f} ms {unfocused * 1e3:>12.1f} ms {unfocused / focused:>7.1f}x"
        )


SEARCH_SPEEDUP = 25.0  # KernelSolver against OptimizedBacktracking at the largest size
SERVED_SECONDS = 0.3  # a dense kernel of the largest size through `planner serve`
SERVED_GROWTH = 12.0  # from the smallest size to the largest


def report_search(sizes: list[int], repeats: int, baseline_repeats: int) -> None:
    """Search alone (the solvers' `getSolution`), CPU medians; the ratio is of CPU time."""
    print(f"{'kernel':>6} {'ops':>5} {'KernelSolver':>32} {'OptimizedBacktracking':>32} {'speedup':>8}")
    for name, make in (("sparse", synthetic_request), ("dense", dense_request)):
        whole = time_steps(partial(resolve, make(max(sizes))), repeats)
        for size in sizes:
            request = make(size)
            mine = time_search(request, KernelSolver, repeats)
            base = time_search(request, constraint.OptimizedBacktrackingSolver, baseline_repeats)
            speedup = base.cpu / mine.cpu
            target = ""
            if size == max(sizes):
                target = f"  target >= {SEARCH_SPEEDUP:g}x: {verdict(speedup >= SEARCH_SPEEDUP)}"
            print(f"{name:>6} {size:>5} {mine} {base} {speedup:>7.1f}x{target}")
        print(f"{name:>6} resolve() at {max(sizes)} ops: {whole}")


def report_served(sizes: list[int], repeats: int) -> None:
    """The dense kernel through `planner serve` (wall: client to reply), and the server's work in
    this process (CPU: read, validate, resolve, dump), of which request validation."""
    print(f"\n{'dense ops':>9} {'planner serve':>14} {'server work':>32} {'validation':>32} {'share':>6}")
    served: dict[int, float] = {}
    work: dict[int, Timing] = {}
    with PlannerClient() as client:
        for size in sizes:
            params = dense_params(size)
            message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "kernelcfg.resolve", "params": params})
            time_served(client, params, 1)  # warm up
            served[size] = time_served(client, params, repeats)
            work[size] = time_steps(partial(server_work, message.encode()), repeats)
            validation = time_steps(partial(KernelcfgResolveRequest.model_validate, params), repeats)
            share = validation.cpu / work[size].cpu
            print(f"{size:>9} {served[size] * 1e3:>11.1f} ms {work[size]} {validation} {share:>5.0%}")
    small, large = min(served), max(served)
    met = verdict(served[large] <= SERVED_SECONDS)
    print(f"served {large} ops in {served[large] * 1e3:.1f} ms: target <= {SERVED_SECONDS:g} s: {met}")
    if small != large:
        growth, cpu_growth = served[large] / served[small], work[large].cpu / work[small].cpu
        print(
            f"growth {small} -> {large} ops: {growth:.1f}x served (server work CPU {cpu_growth:.1f}x):"
            f" target <= {SERVED_GROWTH:g}x: {verdict(growth <= SERVED_GROWTH)}"
        )


EXACT_RATIO = 1.5  # precision=exact resolve of the dense kernel against the default resolve


def report_precision(size: int, repeats: int) -> None:
    """The dense kernel resolved by default and with precision=exact, alternating runs."""
    params = dense_params(size)
    default = KernelcfgResolveRequest.model_validate(params)
    exact = KernelcfgResolveRequest.model_validate({**params, "policy": {"precision": "exact"}})
    plan = resolve(exact).plan
    assert plan is not None, "the dense kernel has an SFPU route for every f32 op"
    assert resolve(default).ok
    walls: dict[str, list[float]] = {"default": [], "exact": []}
    cpus: dict[str, list[float]] = {"default": [], "exact": []}
    for _ in range(repeats):
        for name, request in (("default", default), ("exact", exact)):
            timing = time_steps(partial(resolve, request), 1)
            walls[name].append(timing.wall)
            cpus[name].append(timing.cpu)
    mine, base = Timing.of(walls["exact"], cpus["exact"]), Timing.of(walls["default"], cpus["default"])
    ratio = mine.cpu / base.cpu
    sfpu = sum(strategy == "sfpu" for strategy in plan.strategies.values())
    print(f"\ndense {size} ops, default resolve():         {base}")
    on_sfpu = f"{sfpu} of {len(plan.strategies)} on the SFPU"
    print(f"dense {size} ops, precision=exact resolve(): {mine}  ({on_sfpu})")
    print(f"exact / default (CPU): {ratio:.2f}x: target <= {EXACT_RATIO:g}x: {verdict(ratio <= EXACT_RATIO)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-repeats", type=int, default=3)
    parser.add_argument("--refused-sizes", type=int, nargs="+", default=[1000, 5000])
    args = parser.parse_args()
    report_search(args.sizes, args.repeats, args.baseline_repeats)
    report_precision(max(args.sizes), args.repeats)
    report_served(args.sizes, args.repeats)
    report_refusals(args.refused_sizes, args.repeats)


if __name__ == "__main__":
    main()
