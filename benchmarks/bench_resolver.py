"""Kernel-config resolver: time to first plan on synthetic kernels of 100 to 5,000 ops.

For each size the same python-constraint model (built afresh for every run from the same
request) is solved by `KernelSolver` and by python-constraint2's `OptimizedBacktrackingSolver`:
time to first plan is what `Problem.getSolution()` takes. Medians are printed with the ratio
between them, the median of the part both share (python-constraint's model preparation),
the end-to-end `resolve()` median (request to plan, including requirement collection), and
the growth of `KernelSolver` time per 10x ops. Targets: 5,000 ops <= 0.3 s, >= 25x
faster than OptimizedBacktracking, <= 12x time for 10x ops. Not a test.

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
from planner.kernelcfg.policy import normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import request_target, search_model

PAIRS = 32  # DFB pairs (2j, 2j + 1) on Blackhole's 64 indices


def synthetic_request(ops: int) -> KernelcfgResolveRequest:
    """Blocks of add/exp/mul/store over DFB pairs; every third pair has an exp pinning unpack-to-DST."""
    op_list: list[dict[str, Any]] = []
    block = 0
    while len(op_list) < ops:
        pair = block % PAIRS
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
    dfbs = [{"index": i, "dtype": "f32"} for i in range(2 * PAIRS)]
    return KernelcfgResolveRequest.model_validate({"arch": "blackhole", "dfbs": dfbs, "ops": op_list[:ops]})


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000, 5000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-repeats", type=int, default=3)
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


if __name__ == "__main__":
    main()
