"""Every numeric option has a stated range, checked as the command line is read; limits are never
dropped: `--max-memory` below what a command needs is refused, `--timeout inf` is no deadline
(its watchdog does not die), and `--bind` must name a builder parameter.

The ranges below are the README's "Limits" table, restated here as the oracle."""

from __future__ import annotations

import math
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.cli.parser import build_parser
from tests.support.commands import PLANNER, PLANNER_OPT
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
TTLANG = EXAMPLES / "ttlang" / "f32_unpack.mlir"
INF = math.inf

# option: (the command reading it, low, high, whole numbers only, values outside [low, high] for unlimited)
RANGES: dict[str, tuple[list[str], float, float, bool, tuple[float, ...]]] = {
    "--workers": (["batch", "x.py"], 1, 64, True, ()),
    "--max-bytes": (["plan", "x.py"], 1, 1 << 30, True, ()),
    "--max-memory": (["plan", "x.py"], 1, 1 << 62, True, (0,)),
    "--timeout": (["plan", "x.py"], 0.001, 1_000_000, False, (0, INF)),
    "--max-depth": (["call", "proofs.check"], 1, 10_000, True, ()),
    "--read-timeout": (["serve"], 0.001, 1_000_000, False, ()),
    "--idle-timeout": (["serve"], 0.001, 1_000_000, False, ()),
    "--max-connections": (["serve"], 1, 65_536, True, ()),
    "--max-per-address": (["serve"], 1, 65_536, True, ()),
}
SERVE_WORKERS = (["serve"], 1, 64, True, ())


def _accepted(value: str, low: float, high: float, whole: bool, unlimited: tuple[float, ...]) -> bool:
    """Python's own spelling of an int (whole) or float, within the range or one of its unlimited values."""
    try:
        number = int(value) if whole else float(value)
    except ValueError:
        return False
    return number in unlimited or low <= number <= high


def _boundary_values(low: float, high: float, whole: bool) -> st.SearchStrategy[str]:
    step = 1 if whole else 0.0005
    near = [low - step, low, low + step, high - step, high, high + step, 0, -1, -0.0]
    spelled = st.sampled_from(near).map(lambda v: str(int(v)) if whole and float(v).is_integer() else repr(v))
    odd = st.sampled_from(["nan", "inf", "-inf", "1e400", "", "ten", "0x10", "1_0", " 5", "2.5"])
    return st.one_of(spelled, odd, st.integers(-(10**20), 10**20).map(str))


@st.composite
def _option_value(draw: st.DrawFn) -> tuple[str, list[str], str, float | None]:
    option = draw(st.sampled_from([*sorted(RANGES), "serve --workers"]))
    command, low, high, whole, unlimited = SERVE_WORKERS if option == "serve --workers" else RANGES[option]
    value = draw(_boundary_values(low, high, whole))
    accepted = _accepted(value, low, high, whole, unlimited)
    return option.split()[-1], command, value, (int(value) if whole else float(value)) if accepted else None


@given(_option_value())
def test_every_numeric_option_accepts_exactly_its_stated_range(
    case: tuple[str, list[str], str, float | None],
) -> None:
    option, command, value, accepted = case
    argv = [*command, f"{option}={value}"]
    if accepted is not None:
        parsed = build_parser(argv).parse_args(argv)
        assert getattr(parsed, option.lstrip("-").replace("-", "_")) == accepted
    else:
        with pytest.raises(SystemExit) as refused:
            build_parser(argv).parse_args(argv)
        assert refused.value.code == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["batch", str(TTLANG), "--workers", "0"],
        ["batch", str(TTLANG), "--workers", "-3"],
        ["batch", str(TTLANG), "--workers", "100000000"],
        ["plan", str(TTLANG), "--timeout", "nan"],
        ["plan", str(TTLANG), "--timeout", "-1"],
        ["plan", str(TTLANG), "--max-bytes", "-1"],
        ["plan", str(TTLANG), "--max-bytes", "0"],
        ["call", "proofs.check", "--max-depth", "-1"],
        ["serve", "--max-depth", "-1"],
        ["serve", "--workers", "0"],
        ["serve", "--read-timeout", "0"],
    ],
)
def test_an_out_of_range_value_is_a_usage_error_naming_the_range(argv: list[str]) -> None:
    done = subprocess.run(
        [*PLANNER, *argv], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stdout == ""
    message = done.stderr.splitlines()[-1]
    assert message.startswith(f"planner {argv[0]}: error: argument {argv[-2]}: ")
    assert " to " in message and "Traceback" not in done.stderr


@pytest.mark.parametrize("tool", ["planner", "planner-opt"])
@pytest.mark.parametrize("cap", ["1", "60000000"])
def test_a_memory_cap_below_what_the_command_needs_is_refused_naming_the_smallest_that_works(
    tool: str, cap: str
) -> None:
    argv = [*PLANNER, "plan", str(TTLANG)] if tool == "planner" else [*PLANNER_OPT, str(TTLANG)]
    done = subprocess.run(
        [*argv, "--max-memory", cap], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert f"[request.too_large] --max-memory {cap} is below the " in done.stderr
    smallest = int(done.stderr.split("give at least ")[1].split(",")[0])
    works = subprocess.run([*argv, "--max-memory", str(smallest)], capture_output=True, text=True, timeout=60)
    assert works.returncode == 0, works.stderr
    assert works.stdout.startswith(("builtin.module", "//", "module", "#", "func"))


@pytest.mark.parametrize("timeout", ["inf", "0"])
def test_an_unlimited_timeout_leaves_the_watchdog_alive_and_the_run_planned(timeout: str) -> None:
    for argv in ([*PLANNER, "plan", str(TTLANG)], [*PLANNER_OPT, str(TTLANG)]):
        done = subprocess.run([*argv, "--timeout", timeout], capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stderr) == (0, "")


def test_a_bind_naming_no_builder_parameter_lists_the_parameters_there_are() -> None:
    kernel = EXAMPLES / "pypto" / "model_lib" / "decode_layers.py"
    done = subprocess.run(
        [*PLANNER, "plan", str(kernel), "--bind", "no_such_parameter=1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "planner: error: [request.invalid_params] --bind no_such_parameter: not a builder parameter "
        "of any kernel (there are: batch)\n"
    )
