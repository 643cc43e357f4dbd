"""Adapter throughput, parse + plan + print, for both adapters on generated inputs.

PyPTO: a printed program with 1,000 NZ loads, and a `@pl.jit` source file with 1,000 NZ
subscript windows (planned and reported as notes); the median (and p99) of each stage and
of the whole `plan_text` call, with ratios against `ast.parse` of the same text (the floor
any reader pays). TT-Lang: a module with 1,000 tile ops; the median (and p99) of
`plan_text` and of the `planner-opt` pipeline in process (parse, pass, canonical print),
with the ratio against xDSL parsing the same text with the same dialects (no site
recording, no planning), and the cold `planner-opt` command (interpreter start-up
included); a module of 1,000 ops, half of them data movement through a pipe, against the
same baseline (target: parse + plan + print <= 1.3x it). Wall and CPU time both (CPU time is
steadier on a shared machine), all measured in the same run. Target: each whole in-process
median <= 1 s. Not a test.

    .venv/bin/python benchmarks/bench_adapters.py [--loads 1000] [--ops 1000] [--repeats 15] [--only ttlang]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from unittest import mock

from xdsl.parser import Parser

from planner.adapters import pypto, ttlang
from planner.adapters.ttlang.reading import source
from planner.adapters.ttlang.reading.context import ttlang_context
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from planner.adapters.ttlang.writing.configure import SetComputeKernelConfig
from planner.adapters.ttlang.writing.mlir_printer import canonical_text
from planner.layout import plan

ROWS, COLS, TILE_ROWS, TILE_COLS = 4096, 2048, 256, 512
BUFFERS = ((0, "bf16"), (1, "bf16"), (2, "f32"), (3, "f32"), (4, "bf16"), (5, "f16"))
TARGET_SECONDS = 1.0


def generated_program(loads: int) -> str:
    """PyPTO loads on an INT8 NZ weight: half at constant offsets, half at loop-variable offsets."""
    lines = [
        "# pypto.program: Bench",
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class Bench:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def main(self, w: pl.Tensor[[{ROWS}, {COLS}], pl.INT8, pl.NZ]):",
        f"        for nb in pl.spmd({ROWS // TILE_ROWS}):",
        f"            n0: pl.Scalar[pl.INDEX] = nb * {TILE_ROWS}",
        f"            for k0 in pl.pipeline(0, {COLS}, {TILE_COLS}, stage=2):",
    ]
    tile = f"pl.Tile[[{TILE_ROWS}, {TILE_COLS}], pl.INT8, pl.Mem.Mat]"
    for index in range(loads):
        if index % 2:
            offsets = "[n0, k0]"
        else:
            row = (index // 2 * TILE_ROWS) % ROWS
            col = (index // 2 * TILE_COLS) % COLS
            offsets = f"[{row}, {col}]"
        lines.append(
            f"                t{index}: {tile} = pl.tile.load(w, {offsets}, [{TILE_ROWS}, {TILE_COLS}], "
            "target_memory=pl.Mem.Mat)"
        )
    lines.append("        return w")
    return "\n".join(lines) + "\n"


def generated_jit_source(loads: int) -> str:
    """A `@pl.jit` kernel whose NZ windows are subscripts feeding matmuls, half at loop-variable offsets."""
    lines = [
        "import pypto.language as pl",
        "",
        "",
        "@pl.jit",
        f"def bench(x: pl.Tensor[[64, {TILE_COLS}], pl.INT8],",
        f"          w: pl.Tensor[[{ROWS}, {COLS}], pl.INT8, pl.NZ]):",
        f"    for nb in pl.spmd({ROWS // TILE_ROWS}):",
        f"        n0 = nb * {TILE_ROWS}",
        f"        for k0 in pl.pipeline(0, {COLS}, {TILE_COLS}, stage=2):",
    ]
    for index in range(loads):
        if index % 2:
            window = f"n0 : n0 + {TILE_ROWS}, k0 : k0 + {TILE_COLS}"
        else:
            row = (index // 2 * TILE_ROWS) % ROWS
            col = (index // 2 * TILE_COLS) % COLS
            window = f"{row} : {row + TILE_ROWS}, {col} : {col + TILE_COLS}"
        lines.append(f"            a{index} = pl.matmul(x, w[{window}], b_trans=True)")
    lines.append("    return x")
    return "\n".join(lines) + "\n"


def _tile(dtype: str) -> str:
    return f"!ttcore.tile<32x32, {dtype}>"


def _tile_pattern(n: int, slot: int, dtype: str) -> list[str]:
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
    """A TT-Lang Blackhole kernel with `tile_ops` tile ops spread over six dataflow buffers."""
    args = ", ".join(f"%a{slot}: tensor<1x1x{_tile(dtype)}>" for slot, (_, dtype) in enumerate(BUFFERS))
    lines = [
        "module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {",
        f"  func.func @generated({args}) {{",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
    ]
    for slot, (index, dtype) in enumerate(BUFFERS):
        cb = f"!ttl.cb<[1, 1], {_tile(dtype)}, 2>"
        tensor = f"tensor<1x1x{_tile(dtype)}>"
        lines.append(f"    %cb{slot} = ttl.bind_cb {{cb_index = {index}, block_count = 2}} : {cb}")
        lines.append(f"    %t{slot} = ttl.attach_cb %a{slot}, %cb{slot} : ({tensor}, {cb}) -> {tensor}")
    for n in range(tile_ops // 4):
        slot = n % len(BUFFERS)
        lines.extend(_tile_pattern(n, slot, BUFFERS[slot][1]))
    lines.extend(["    return", "  }", "}", ""])
    return "\n".join(lines)


_LAYOUT = (
    "#ttl.layout<shape = [64, 64], element_type = !ttcore.tile<32x32, bf16>,\n"
    "            buffer = L1, grid = [1, 1]>"
)
_PIPE = "!ttl.pipe<src(0, 0) dst(1, 0) to(1, 0) net 0>"


def _movement_pattern(n: int) -> list[str]:
    """Six data-movement ops: reserve, tensor slice, copy, wait, raw element read and write."""
    tile = _tile("bf16")
    block = f"tensor<1x1x{tile}>"
    return [
        f"      %r{n} = ttl.cb_reserve %dfb : <[1, 1], {tile}, 2> -> {block}",
        f"      %v{n} = ttl.tensor_slice %input[%c0, %c1] : tensor<2x2x{tile}, #grid>"
        f" -> tensor<1x1x{tile}, #grid>",
        f"      %x{n} = ttl.copy %v{n}, %dfb : (tensor<1x1x{tile}, #grid>, !ttl.cb<[1, 1], {tile}, 2>)"
        " -> !ttl.transfer_handle<read>",
        f"      ttl.wait %x{n} : !ttl.transfer_handle<read>",
        f"      %f{n} = ttl.raw_element_read %r{n}[%c0, %c1] : {block} -> bf16",
        f"      ttl.raw_element_write %r{n}[%c1, %c0], %f{n} : {block}, bf16",
    ]


def generated_mixed_module(ops: int) -> str:
    """`ops` ops, half in a data-movement function sending through a pipe, half in a compute kernel."""
    compute = generated_module(ops // 2).splitlines()[1:-1]
    tile = _tile("bf16")
    lines = [
        f"#grid = {_LAYOUT}",
        "module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {",
        f"  func.func @reader(%input: tensor<2x2x{tile}, #grid>)"
        " attributes {ttl.kernel_thread = #ttkernel.thread<noc>} {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        f"    %dfb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : !ttl.cb<[1, 1], {tile}, 2>",
        f"    %pipe = ttl.create_pipe src(0, 0) dst(1, 0) to(1, 0) net 0 : {_PIPE}",
        f"    ttl.if_src %pipe : {_PIPE} {{",
    ]
    for n in range(ops // 2 // 6):
        lines.extend(_movement_pattern(n))
    lines.extend(["    }", "    return", "  }", *compute, "}", ""])
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Samples:
    """Sorted wall-clock and CPU seconds of repeated runs of one stage."""

    wall: list[float]
    cpu: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def p99(self) -> float:
        return self.wall[min(len(self.wall) - 1, round(0.99 * (len(self.wall) - 1)))]

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def measure(work: Callable[[], object], repeats: int) -> Samples:
    wall, cpu = [], []
    for _ in range(repeats):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return Samples(sorted(wall), sorted(cpu))


def report(
    title: str,
    stages: dict[str, Callable[[], object]],
    repeats: int,
    ratio_targets: dict[str, float] | None = None,
) -> None:
    """Time every stage; the first is the baseline, the last the whole parse + plan + print.

    `ratio_targets`: stages whose median must be at most that multiple of the baseline's."""
    results = {name: measure(work, repeats) for name, work in stages.items()}
    baseline = next(iter(results.values()))
    print(f"{title}; {repeats} runs each")
    for name, samples in results.items():
        cpu_ratio = samples.cpu_median / baseline.cpu_median
        print(
            f"  {name:30s} median {samples.median * 1e3:8.1f} ms  p99 {samples.p99 * 1e3:8.1f} ms"
            f"  x{samples.median / baseline.median:6.1f} of baseline"
            f"  (cpu median {samples.cpu_median * 1e3:8.1f} ms, x{cpu_ratio:6.1f})"
        )
    total = list(results.values())[-1].median
    verdict = "met" if total <= TARGET_SECONDS else "NOT met"
    print(
        f"  target parse+plan+print median <= {TARGET_SECONDS * 1e3:.0f} ms: {verdict} ({total * 1e3:.0f} ms)"
    )
    baseline_name = next(iter(results))
    for name, limit in (ratio_targets or {}).items():
        ratio = results[name].median / baseline.median
        verdict = "met" if ratio <= limit else "MISSED"
        print(f"  target {name} <= {limit}x {baseline_name}: {verdict} (x{ratio:.2f})")


def bench_pypto(loads: int, repeats: int) -> None:
    text = generated_program(loads)
    (function,) = pypto.build_requests(text)
    outcome = pypto.plan_text(text)
    assert outcome.ok, outcome.diagnostics
    stages = {
        "ast.parse (baseline)": lambda: ast.parse(text),
        "build_requests": lambda: pypto.build_requests(text),
        "layout.plan": lambda: plan(function.request),
        "plan_text (parse+plan+print)": lambda: pypto.plan_text(text),
    }
    report(f"PyPTO adapter, {loads} NZ loads, {len(text)} characters", stages, repeats)


def bench_pypto_source(loads: int, repeats: int) -> None:
    text = generated_jit_source(loads)
    outcome = pypto.plan_text(text)
    assert outcome.ok and outcome.notes, outcome.diagnostics
    stages = {
        "ast.parse (baseline)": lambda: ast.parse(text),
        "build_requests": lambda: pypto.build_requests(text),
        "plan_text (parse+plan+report)": lambda: pypto.plan_text(text),
    }
    report(f"PyPTO @pl.jit source, {loads} NZ subscript windows, {len(text)} characters", stages, repeats)


def _opt_pipeline(text: str) -> str:
    """What `planner-opt -p ttl-set-compute-kernel-config` does after start-up: parse, pass, print."""
    parsed = parse_chunk(Chunk(text, 0, 1), "bench.mlir")
    SetComputeKernelConfig().apply(ttlang_context(), parsed.module)
    return canonical_text(parsed.module)


def _cold_opt_seconds(text: str, runs: int) -> list[float]:
    """Wall seconds of whole `planner-opt` commands on the module, interpreter start-up included."""
    command = str(Path(sys.executable).parent / "planner-opt")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.mlir"
        path.write_text(text, encoding="utf-8")
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()
            arguments = [command, str(path), "-p", SetComputeKernelConfig.name]
            subprocess.run(arguments, check=True, capture_output=True)
            seconds.append(time.perf_counter() - start)
    return sorted(seconds)


@contextmanager
def _xdsl_reader_only() -> Iterator[None]:
    """`parse_chunk` as before the fast reader: xDSL's site-recording parser reads every chunk."""
    with mock.patch.object(source, "read_common_forms", lambda *arguments: None):
        yield


def _before(work: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        with _xdsl_reader_only():
            return work()

    return run


TTLANG_RATIO_TARGET = 0.8
"""TT-Lang parse + plan + print, and the `planner-opt` pipeline, against the xDSL parse of the text."""


def bench_ttlang(tile_ops: int, repeats: int) -> None:
    text = generated_module(tile_ops)
    outcome = ttlang.plan_text(text)
    assert outcome.ok, outcome.diagnostics
    printed = _opt_pipeline(text)
    assert "#ttl.tile_execution_strategy<fpu>" in printed
    with _xdsl_reader_only():
        assert ttlang.plan_text(text) == outcome and _opt_pipeline(text) == printed
    chunk = Chunk(text, 0, 1)
    stages = {
        "xDSL parse (baseline)": lambda: Parser(ttlang_context(), text).parse_module(),
        "parse_chunk, xDSL reader only": _before(lambda: parse_chunk(chunk, "bench.mlir")),
        "parse_chunk": lambda: parse_chunk(chunk, "bench.mlir"),
        "plan_text, xDSL reader only": _before(lambda: ttlang.plan_text(text)),
        "pipeline, xDSL reader only": _before(lambda: _opt_pipeline(text)),
        "plan_text (parse+plan+print)": lambda: ttlang.plan_text(text),
        "planner-opt pipeline in process": lambda: _opt_pipeline(text),
    }
    ratio_targets = {
        "plan_text (parse+plan+print)": TTLANG_RATIO_TARGET,
        "planner-opt pipeline in process": TTLANG_RATIO_TARGET,
    }
    report(f"TT-Lang adapter, {tile_ops} tile ops, {len(text)} characters", stages, repeats, ratio_targets)
    cold = _cold_opt_seconds(text, max(3, repeats // 5))
    median = statistics.median(cold)
    print(f"  planner-opt cold command (start-up included) median {median * 1e3:8.1f} ms ({len(cold)} runs)")


def bench_ttlang_mixed(ops: int, repeats: int) -> None:
    text = generated_mixed_module(ops)
    outcome = ttlang.plan_text(text)
    assert outcome.ok, outcome.diagnostics
    stages = {
        "xDSL parse (baseline)": lambda: Parser(ttlang_context(), text).parse_module(),
        "plan_text (parse+plan+print)": lambda: ttlang.plan_text(text),
        "planner-opt pipeline in process": lambda: _opt_pipeline(text),
    }
    title = f"TT-Lang module, {ops} ops, half data movement, {len(text)} characters"
    report(title, stages, repeats, {"plan_text (parse+plan+print)": 1.3})


MODEL_CONFIG = """\
from dataclasses import dataclass
from functools import partial


@dataclass(frozen=True)
class LayerConfig:
    hidden_size: int
    head_dim: int = 512
    rope_head_dim: int = 64

    @property
    def nope_head_dim(self) -> int:
        return self.head_dim - self.rope_head_dim


FLASH = LayerConfig(hidden_size=4096)
"""
MODEL_FILE_TARGET_SECONDS = 0.020


def generated_builder(index: int) -> str:
    """One builder file of a model library: its extents come from the shared `config` module."""
    tile = (64, 128, 256)[index % 3]
    return (
        "import pypto.language as pl\n\nfrom config import FLASH as M\n\n"
        "D = M.hidden_size\nN = M.nope_head_dim\n\n\n"
        f"def build_layer_{index}(batch=16):\n    K_TILE = {tile}\n\n"
        "    @pl.program\n    class Layer:\n        @pl.function(type=pl.FunctionType.InCore)\n"
        "        def project(self, x: pl.Tensor[[batch, D], pl.BF16], w: pl.Tensor[[N, D], pl.BF16, pl.NZ],"
        " out: pl.Out[pl.Tensor[[batch, N], pl.FP32]]):\n"
        "            for k0 in pl.range(0, D, K_TILE):\n"
        "                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[:, k0 : k0 + K_TILE], b_trans=True)\n"
        "                out[:, :] = acc\n            return out\n\n    return Layer\n"
    )


def bench_model_library(files: int) -> None:
    """A generated tree of builder files importing one config module, planned in process like
    `planner batch` plans each file: median CPU time per file after one warm-up pass."""
    from planner.adapters.pypto.constants.kernel_constants import ResolveContext
    from planner.adapters.pypto.constants.module_finder import FileModules, search_roots

    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "config.py").write_text(MODEL_CONFIG)
        paths = []
        for index in range(files):
            path = root / f"layer_{index}.py"
            path.write_text(generated_builder(index))
            paths.append(path)

        def plan_one(path: Path) -> None:
            context = ResolveContext(FileModules(search_roots(path, [], {}), 1 << 22))
            outcome = pypto.plan_text(path.read_text(), filename=str(path), context=context)
            assert outcome.ok, outcome.diagnostics

        for path in paths:
            plan_one(path)
        cpu = sorted(measure(partial(plan_one, path), 1).cpu[0] for path in paths)
    median = statistics.median(cpu)
    verdict = "met" if median <= MODEL_FILE_TARGET_SECONDS else "MISSED"
    print(f"PyPTO model library, {files} builder files importing one config module")
    print(
        f"  per file CPU median {median * 1e3:.1f} ms, p99 {cpu[round(0.99 * (len(cpu) - 1))] * 1e3:.1f} ms"
    )
    print(f"  target per file median <= {MODEL_FILE_TARGET_SECONDS * 1e3:.0f} ms: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=1000, help="NZ loads in each PyPTO input")
    parser.add_argument("--ops", type=int, default=1000, help="tile ops in the TT-Lang module")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--model-files", type=int, default=200, help="builder files in the model library")
    parser.add_argument("--only", choices=("pypto", "ttlang"), help="run one adapter's benches")
    args = parser.parse_args()
    if args.only != "ttlang":
        bench_model_library(args.model_files)
        bench_pypto(args.loads, args.repeats)
        bench_pypto_source(args.loads, args.repeats)
    if args.only != "pypto":
        bench_ttlang(args.ops, args.repeats)
        bench_ttlang_mixed(args.ops, args.repeats)


if __name__ == "__main__":
    main()
