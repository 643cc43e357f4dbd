"""TT-Lang adapter throughput on a generated 1,000-tile-op module: parse + plan + print.

Prints the median (and p99) of `plan_text` and, as the baseline measured in the same run,
of xDSL parsing the same text with the same dialects (no site recording, no planning).
Target: the plan median stays at or under 1 s.

    .venv/bin/python benchmarks/bench_adapters_ttlang.py [--ops 1000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from xdsl.parser import Parser

from planner.adapters.ttlang import plan_text
from planner.adapters.ttlang.source import ttlang_context

_BUFFERS = ((0, "bf16"), (1, "bf16"), (2, "f32"), (3, "f32"), (4, "bf16"), (5, "f16"))


def _tile(dtype: str) -> str:
    return f"!ttcore.tile<32x32, {dtype}>"


def _pattern(n: int, slot: int, dtype: str) -> list[str]:
    """Four tile ops: an FPU-eligible add, an exp, an SFPU-only multiply, and a store."""
    tile = _tile(dtype)
    return [
        f"    %x{n} = tensor.extract %t{slot}[%c0, %c0] : tensor<1x1x{tile}>",
        f"    %y{n} = tensor.extract %t{slot}[%c0, %c0] : tensor<1x1x{tile}>",
        f"    %s{n} = ttl.tile_add %x{n}, %y{n} into dst[%c0] : {tile}, {tile} -> {tile}",
        f"    %e{n} = ttl.tile_exp %x{n} into dst[%c1] : {tile} -> {tile}",
        f"    %m{n} = ttl.tile_mul %s{n}, %e{n} into dst[%c0] : {tile}, {tile} -> {tile}",
        f"    ttl.tile_store %m{n}, %t{slot}[%c0, %c0] from dst[%c0] : {tile}, tensor<1x1x{tile}>",
    ]


def generated_module(tile_ops: int) -> str:
    """A Blackhole kernel with `tile_ops` tile ops spread over six dataflow buffers."""
    args = ", ".join(f"%a{slot}: tensor<1x1x{_tile(dtype)}>" for slot, (_, dtype) in enumerate(_BUFFERS))
    lines = [
        "module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {",
        f"  func.func @generated({args}) {{",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
    ]
    for slot, (index, dtype) in enumerate(_BUFFERS):
        cb = f"!ttl.cb<[1, 1], {_tile(dtype)}, 2>"
        tensor = f"tensor<1x1x{_tile(dtype)}>"
        lines.append(f"    %cb{slot} = ttl.bind_cb {{cb_index = {index}, block_count = 2}} : {cb}")
        lines.append(f"    %t{slot} = ttl.attach_cb %a{slot}, %cb{slot} : ({tensor}, {cb}) -> {tensor}")
    for n in range(tile_ops // 4):
        slot = n % len(_BUFFERS)
        lines.extend(_pattern(n, slot, _BUFFERS[slot][1]))
    lines.extend(["    return", "  }", "}", ""])
    return "\n".join(lines)


def _timings(work: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """Sorted wall-clock and CPU seconds per run (CPU time is steadier on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return sorted(wall), sorted(cpu)


def _p99(samples: list[float]) -> float:
    return samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]


def _line(label: str, wall: list[float], cpu: list[float]) -> str:
    return (
        f"{label:<22} wall median {statistics.median(wall) * 1e3:8.1f} ms  p99 {_p99(wall) * 1e3:8.1f} ms   "
        f"cpu median {statistics.median(cpu) * 1e3:8.1f} ms"
    )


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--ops", type=int, default=1000)
    cli.add_argument("--repeat", type=int, default=15)
    args = cli.parse_args()
    text = generated_module(args.ops)
    outcome = plan_text(text)
    assert outcome.ok, outcome.diagnostics
    base_wall, base_cpu = _timings(lambda: Parser(ttlang_context(), text).parse_module(), args.repeat)
    plan_wall, plan_cpu = _timings(lambda: plan_text(text), args.repeat)
    plan_median = statistics.median(plan_wall)
    print(
        f"module: {args.ops} tile ops, {len(text.splitlines())} lines, {len(text)} bytes; {args.repeat} runs"
    )
    print(_line("baseline xDSL parse", base_wall, base_cpu))
    print(_line("parse + plan + print", plan_wall, plan_cpu))
    print(
        f"ratio plan/baseline    wall {plan_median / statistics.median(base_wall):.2f}x   "
        f"cpu {statistics.median(plan_cpu) / statistics.median(base_cpu):.2f}x   "
        f"target wall median <= 1000 ms: {'met' if plan_median <= 1.0 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
