"""PyPTO loops: deep nests read in bounded time, countdown loops bind the values they run over."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.adapters.pypto import build_requests, plan_text
from planner.proofs.protocol import ForBinding

PLANNER = str(Path(sys.executable).with_name("planner"))
HEAD = "import pypto.language as pl\n\n\n"


def nested_loops(depth: int, weight_layout: str) -> str:
    """A kernel whose one matmul sits under `depth` nested `pl.range(4)` loops."""
    lines = [
        "@pl.jit.incore",
        "def kernel(",
        "    x: pl.Tensor[[64, 64], pl.FP16],",
        f"    w: pl.Tensor[[64, 64], pl.FP16{weight_layout}],",
        "    out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],",
        "):",
    ]
    for level in range(depth):
        lines.append("    " * (level + 1) + f"for i{level} in pl.range(4):")
    lines.append("    " * (depth + 1) + "out[:, :] = pl.matmul(x[:, :], w[:, :], out_dtype=pl.FP32)")
    lines.append("    return out")
    return HEAD + "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("command", "layout", "expected"),
    [
        ("plan", ", pl.NZ", "tile.load into Mat"),
        ("suggest", "", "w in kernel: eligible"),
        ("batch", ", pl.NZ", '"exit":0'),
    ],
)
def test_thirty_nested_loops_are_read_in_bounded_time(
    tmp_path: Path, command: str, layout: str, expected: str
) -> None:
    """Each loop body is analysed once: 2^30 walks would never end within the timeout."""
    program = tmp_path / "deep.py"
    program.write_text(nested_loops(30, layout))
    arguments = [PLANNER, command, str(program)]
    if command == "batch":
        arguments.append("--quiet")
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def loop_binding(loop: str) -> ForBinding:
    text = HEAD + f"@pl.jit\ndef kernel(n: pl.Scalar[pl.INDEX]):\n    for i in {loop}:\n        pass\n"
    (request,) = build_requests(text, filename="k.py")
    bindings = [b for b in request.request.bindings if b.name == "i"]
    assert len(bindings) == 1 and isinstance(bindings[0], ForBinding)
    return bindings[0]


@given(st.integers(-40, 40), st.integers(-40, 40), st.integers(-7, -1))
def test_a_constant_countdown_is_bound_as_written(start: int, stop: int, step: int) -> None:
    """The proofs read a countdown (`planner.proofs.loops`); the reader does not rewrite it."""
    binding = loop_binding(f"pl.range({start}, {stop}, {step})")
    assert (binding.start, binding.stop, binding.step) == (start, stop, step)


@pytest.mark.parametrize(
    ("loop", "written"), [("pl.range(n, 0, -2)", ("n", 0, -2)), ("pl.range(0, 64, n)", (0, 64, "n"))]
)
def test_a_symbolic_bound_or_step_is_bound_as_written(loop: str, written: tuple[int | str, ...]) -> None:
    binding = loop_binding(loop)
    assert (binding.start, binding.stop, binding.step) == written


def test_a_zero_step_binds_no_range() -> None:
    text = HEAD + "@pl.jit\ndef kernel():\n    for i in pl.range(0, 64, 0):\n        pass\n"
    (request,) = build_requests(text, filename="k.py")
    (binding,) = [b for b in request.request.bindings if b.name == "i"]
    assert binding.kind == "param"


def test_a_countdown_loop_plans_like_the_ascending_one() -> None:
    """`range(3, -1, -1)` visits k-tiles 3..0 of an NZ weight: the same proofs as 0..3."""
    body = textwrap.dedent(
        """\
        @pl.jit.incore
        def kernel(
            x: pl.Tensor[[64, 1024], pl.FP16],
            w: pl.Tensor[[256, 1024], pl.FP16, pl.NZ],
            out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
        ):
            for k in pl.range({loop}):
                acc = pl.matmul(x[:, k * 256 : k * 256 + 256], w[:, k * 256 : k * 256 + 256], b_trans=True)
                out[:, :] = acc
            return out
        """
    )
    down = plan_text(HEAD + body.format(loop="3, -1, -1"), filename="k.py")
    up = plan_text(HEAD + body.format(loop="0, 4, 1"), filename="k.py")
    assert down.ok and up.ok
    assert down.notes == up.notes
