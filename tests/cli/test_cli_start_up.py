"""What a cold `planner` process loads on its way to an answer: only what the command uses.

Each case runs the command in a fresh interpreter and lists the modules it imported; the
answer itself is checked too, so a path that skips a module still gives the same result.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from planner.cli.parser import build_parser
from tests.support.paths import ROOT
from tests.test_import_layers import GROUND_FLOOR

EXAMPLES = ROOT / "examples"

# Never needed by a PyPTO plan or suggestion: other rooms, optional packages, the output writer.
NOT_ON_PYPTO_PATHS = (
    "numpy",
    "networkx",
    "constraint",
    "xdsl",
    "planner.kernelcfg",
    "planner.service",
    "planner.adapters.ttlang",
    "planner.outputs",
)
MODELS_BASE = "planner.contract"  # the one ground-floor module built on pydantic


def _loaded_by(argv: list[str], watched: tuple[str, ...]) -> tuple[int, list[str]]:
    """Run `planner argv` in a fresh interpreter: its exit code and which `watched` modules it loaded."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from planner.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        f"watched = {watched!r}\n"
        "loaded = sorted(w for w in watched if any(m == w or m.startswith(w + '.') for m in sys.modules))\n"
        "print(json.dumps([code, loaded]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=EXAMPLES, capture_output=True, text=True, timeout=120, check=True
    )
    code, loaded = json.loads(done.stdout)
    return code, loaded


def test_planning_a_small_pypto_program_loads_no_other_room_and_no_solver() -> None:
    code, loaded = _loaded_by(["plan", "pypto/nz_matmul_spmd.py"], (*NOT_ON_PYPTO_PATHS, "z3"))
    assert code == 0
    assert loaded == []


def test_suggesting_loads_no_other_room() -> None:
    code, loaded = _loaded_by(["suggest", "pypto/suggest_weights.py"], NOT_ON_PYPTO_PATHS)
    assert code == 0
    assert loaded == []


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "pypto/no_such_program.py"],  # request.unreadable
        ["plan", "pypto/model_lib"],  # a directory: request.unreadable
    ],
)
def test_a_command_refused_before_planning_loads_no_protocol_models(argv: list[str]) -> None:
    code, loaded = _loaded_by(argv, ("pydantic", "planner.contract", "planner.adapters.pypto"))
    assert code == 2
    assert loaded == []


def test_the_ground_floor_needs_no_pydantic() -> None:
    probe = (
        "import importlib, sys\n"
        f"for name in {[m for m in GROUND_FLOOR if m != MODELS_BASE]!r}: importlib.import_module(name)\n"
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False"


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every command parser below `parser`, by its path of names (`layout show`)."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                found[name] = command
                found.update({f"{name} {inner}": each for inner, each in _commands(command).items()})
    return found


def test_the_grammar_built_for_one_command_is_that_command_of_the_whole_grammar() -> None:
    whole = _commands(build_parser())
    assert whole
    for path, command in whole.items():
        built = _commands(build_parser([*path.split(), "--help"]))
        assert built[path].format_help() == command.format_help(), path
    assert build_parser(["--debug", "plan"]).format_help() == build_parser().format_help()
