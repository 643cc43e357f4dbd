"""Every command on every bundled example answers exactly as recorded: stdout, stderr and exit code.

`tests/golden/cli.json` holds the answers. A change that alters any of them on purpose
re-records them (`PLANNER_RECORD_GOLDEN=1 pytest tests/cli/test_cli_golden.py`) and shows the
difference in review; any other change must leave every byte as it was. Commands run in this
process with the examples directory as the working directory, as a user runs them there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.cli import main as planner_main
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "tests" / "golden" / "cli.json"
RECORD = os.environ.get("PLANNER_RECORD_GOLDEN") == "1"
REPORT = "<report>"  # stands for a scratch file; its text is recorded with the answer


def _files(pattern: str) -> list[str]:
    return sorted(str(path.relative_to(EXAMPLES)) for path in EXAMPLES.glob(pattern))


def cases() -> dict[str, list[str]]:
    """Case id -> argv; argv[0] names the tool (`planner` or `planner-opt`)."""
    found: dict[str, list[str]] = {}
    for source in _files("pypto/*.py"):
        for command in ("plan", "suggest", "explain-conflict"):
            found[f"{command} {source}"] = ["planner", command, source]
        found[f"plan --report {source}"] = ["planner", "plan", source, "--report", REPORT]
        for command in ("suggest", "explain-conflict"):
            found[f"{command} --json {source}"] = ["planner", command, source, "--json"]
    for module in _files("ttlang/*.mlir"):
        for command in ("plan", "explain", "explain-conflict"):
            found[f"{command} {module}"] = ["planner", command, module]
        found[f"plan --report {module}"] = ["planner", "plan", module, "--report", REPORT]
        found[f"explain-conflict --json {module}"] = ["planner", "explain-conflict", module, "--json"]
        found[f"planner-opt {module}"] = ["planner-opt", module, "-p", "ttl-set-compute-kernel-config"]
    for request in _files("json/*.json"):
        for command in ("explain-conflict", "explain"):
            found[f"{command} {request}"] = ["planner", command, request]
        found[f"explain-conflict --json {request}"] = ["planner", "explain-conflict", request, "--json"]
    for spec in ("[64, 64] FP16", "[48, 100] INT8", "[30, 64] FP16", "[2, 32, 64] FP32"):
        found[f"layout show {spec}"] = ["planner", "layout", "show", spec]
    return found


def run(argv: list[str], capsys: pytest.CaptureFixture[str], scratch: Path) -> dict[str, object]:
    capsys.readouterr()
    tool = opt_main if argv[0] == "planner-opt" else planner_main
    report = scratch / "report.json"
    code = tool([str(report) if arg == REPORT else arg for arg in argv[1:]])
    captured = capsys.readouterr()
    answer: dict[str, object] = {"argv": argv, "exit": code, "stdout": captured.out, "stderr": captured.err}
    if REPORT in argv:
        answer["report"] = report.read_text(encoding="utf-8") if report.exists() else None
    return answer


def _recorded() -> dict[str, dict[str, object]]:
    if not GOLDEN.exists():
        return {}
    recorded: dict[str, dict[str, object]] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return recorded


@pytest.fixture(scope="module")
def recording() -> dict[str, dict[str, object]]:
    answers: dict[str, dict[str, object]] = {}
    yield answers
    if RECORD:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n", encoding="utf-8")


@pytest.mark.parametrize("case", sorted(cases()))
def test_command_answers_as_recorded(
    case: str,
    recording: dict[str, dict[str, object]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(EXAMPLES)
    answer = run(cases()[case], capsys, tmp_path)
    recording[case] = answer
    if not RECORD:
        assert answer == _recorded().get(case)


def test_every_recorded_case_is_still_run() -> None:
    assert sorted(_recorded()) == sorted(cases())
