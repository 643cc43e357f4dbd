"""`--json` on `plan` and `explain`: stdout is one JSON document whatever happens (protocol.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

PLANNER = str(Path(sys.executable).with_name("planner"))
EXAMPLES = ROOT / "examples"


def run(*arguments: str) -> tuple[int, object, str]:
    done = subprocess.run([PLANNER, *arguments], capture_output=True, text=True, timeout=60, cwd=EXAMPLES)
    return done.returncode, json.loads(done.stdout), done.stderr


def test_explain_json_carries_each_function_s_decisions_as_the_remarks_say() -> None:
    module = next(p for p in sorted((EXAMPLES / "ttlang").glob("*.mlir")) if "conflict" not in p.name)
    code, document, _ = run("explain", str(module.relative_to(EXAMPLES)), "--json")
    remarks = subprocess.run(
        [PLANNER, "explain", str(module.relative_to(EXAMPLES))], capture_output=True, text=True, cwd=EXAMPLES
    ).stdout.count(": remark: ")
    assert code == 0 and isinstance(document, dict)
    assert sum(len(entry["explanation"]["decisions"]) for entry in document["functions"]) == remarks


def test_explain_json_of_a_conflict_is_the_refusal() -> None:
    module = next((EXAMPLES / "ttlang").glob("*conflict*.mlir"))
    code, document, _ = run("explain", str(module.relative_to(EXAMPLES)), "--json")
    assert code == 1 and isinstance(document, dict)
    assert document["refused"]["refused"] is True
    assert document["refused"]["explanation"]["response"]["conflict"]["code"].startswith("kcfg.")


def test_plan_json_of_a_typed_error_is_the_error_document() -> None:
    code, document, stderr = run("plan", "missing.py", "--json")
    assert code == 2 and isinstance(document, dict) and set(document) == {"error"}
    assert isinstance(document, dict) and document["error"]["code"] == "request.unreadable"
    assert "request.unreadable" in stderr


def test_plan_json_is_the_report() -> None:
    code, document, _ = run("plan", "pypto/jit_split_k.py", "--json")
    assert code == 0 and isinstance(document, dict)
    assert document["form"] == "source" and document["functions"][0]["response"]["ok"] is True
