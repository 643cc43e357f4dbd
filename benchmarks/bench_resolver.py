"""Kernel-config resolver: time to first plan on synthetic kernels of 100 to 5,000 ops.

For each size the same python-constraint model (built afresh for every run from the same
request) is solved by `KernelSolver` and by python-constraint2's `OptimizedBacktrackingSolver`:
time to first plan is what `Problem.getSolution()` takes. Medians are printed with the ratio
between them, the median of the part both share (python-constraint's model preparation),
the end-to-end `resolve()` median (request to plan, including requirement collection), and
the growth of `KernelSolver` time per 10x ops. Targets: 5,000 ops <= 0.3 s, >= 25x
faster than OptimizedBacktracking, <= 12x time for 10x ops.

Refused kernels (`--refused-sizes`): the same blocks with a row broadcast of an unpacked DFB
inserted half-way. Printed: the `resolve()` median including the minimal conflict and the
verified corrections; the same kernel without the broadcast (plans: the baseline); and
QuickXplain over every record (no focus on the conflict's component) against the focused
search `resolve()` runs. Target: <= 1 s at 5,000 ops. Not a test.

    .venv/bin/python benchmarks/bench_resolver.py [--sizes 100 500 1000 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import constraint

from planner.kernelcfg import resolve
from planner.kernelcfg.csp import KernelSolver, build_problem
from planner.kernelcfg.explain import build_records, minimal_conflict, quickxplain, satisfiable
from planner.kernelcfg.policy import normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import request_target, resolve_with, search_model

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


def fresh_problem(request: KernelcfgResolveRequest, solver: constraint.Solver) -> constraint.Problem:
    """Steps 1-5 of the resolver, then the CSP model handed to `solver`."""
    target = request_target(request)
    model = search_model(target, normalize_policy(request.policy, target), collect_requirements(request))
    return build_problem(model, solver)


def time_first_solution(
    request: KernelcfgResolveRequest, make_solver: Callable[[], Any], repeats: int
) -> tuple[list[float], list[float]]:
    """Per run: `Problem.getSolution()` time (to the first solution) and the shared part of it.

    The shared part is python-constraint's preparation of the model (`Problem._getArgs`:
    domains, constraints, vconstraints), identical for every solver; the rest is the solver's.
    """
    totals, prepare = [], []
    for _ in range(repeats):
        solver = make_solver()
        problem = fresh_problem(request, solver)
        gc.collect()  # the same clean heap for every solver
        start = time.perf_counter()
        domains, constraints, vconstraints = problem._getArgs()
        middle = time.perf_counter()
        solution = solver.getSolution(domains, constraints, vconstraints)
        totals.append(time.perf_counter() - start)
        prepare.append(middle - start)
        assert solution is not None
    return totals, prepare


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000, 5000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-repeats", type=int, default=3)
    parser.add_argument("--refused-sizes", type=int, nargs="+", default=[1000, 5000])
    args = parser.parse_args()
    ours: dict[int, float] = {}
    header = f"{'KernelSolver':>14} {'OptimizedBT':>14} {'speedup':>9} {'shared prep':>13} {'resolve()':>11}"
    print(f"{'ops':>6} {header}")
    for size in args.sizes:
        request = synthetic_request(size)
        totals, prepare = time_first_solution(request, KernelSolver, args.repeats)
        mine = statistics.median(totals)
        base = statistics.median(
            time_first_solution(request, constraint.OptimizedBacktrackingSolver, args.baseline_repeats)[0]
        )
        whole = statistics.median(time_resolve(request, args.repeats))
        ours[size] = mine
        row = f"{mine * 1e3:>11.2f} ms {base * 1e3:>11.2f} ms {base / mine:>8.1f}x"
        print(f"{size:>6} {row} {statistics.median(prepare) * 1e3:>10.2f} ms {whole * 1e3:>8.2f} ms")
    for small in sorted(ours):
        if small * 10 in ours:
            print(
                f"growth {small} -> {small * 10} ops: {ours[small * 10] / ours[small]:.1f}x time for 10x ops"
            )
    report_refusals(args.refused_sizes, args.repeats)


if __name__ == "__main__":
    main()
