"""The core installs light: it plans without hypothesis or matplotlib, and ships its type marker.

Each check runs in a fresh interpreter, so modules this test session already imported cannot
hide an import-time dependency.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

from tests.support.paths import ROOT

CORE_MODULES = (
    "planner.layout",
    "planner.kernelcfg",
    "planner.proofs",
    "planner.adapters",
    "planner.adapters.pypto",
    "planner.adapters.ttlang",
    "planner.service",
    "planner.service.methods",
    "planner.cli",
)
OPTIONAL_TOP_LEVEL = ("hypothesis", "matplotlib", "pytest", "dask")

# Installed as sitecustomize: every import of hypothesis fails as if it were not installed.
HIDE_HYPOTHESIS = """
import sys


class HideHypothesis:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "hypothesis":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, HideHypothesis())
"""


def run_python(
    code: str, *, cwd: Path, hide_hypothesis_in: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if hide_hypothesis_in is not None:
        hide_hypothesis_in.mkdir(exist_ok=True)
        (hide_hypothesis_in / "sitecustomize.py").write_text(HIDE_HYPOTHESIS)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hide_hypothesis_in), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_importing_the_core_imports_no_optional_package(tmp_path: Path) -> None:
    code = (
        "import importlib, json, sys\n"
        f"for name in {CORE_MODULES!r}: importlib.import_module(name)\n"
        "imported = {m.partition('.')[0] for m in sys.modules}\n"
        f"print(json.dumps(sorted(imported & set({OPTIONAL_TOP_LEVEL!r}))))"
    )
    done = run_python(code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_core_plans_and_proves_without_hypothesis(tmp_path: Path) -> None:
    request = {"expr": "nb * 256", "factor": 16, "bindings": [{"name": "nb", "kind": "spmd", "extent": 4}]}
    (tmp_path / "request.json").write_text(json.dumps(request))
    code = (
        "import sys\nfrom planner.cli import main\nsys.exit(main(['call', 'proofs.check', 'request.json']))\n"
    )
    done = run_python(code, cwd=tmp_path, hide_hypothesis_in=tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert [r["status"] for r in json.loads(done.stdout)["results"]] == ["proven", "proven"]


USER_TESTS = """
def test_unrelated_to_the_planner():
    assert 1 + 1 == 2


def test_using_a_planner_fixture(check_layout_pass):
    check_layout_pass(lambda request: request)
"""


def test_the_pytest_plugin_loads_without_hypothesis_and_names_the_extra(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_user.py").write_text(USER_TESTS)
    # Without hypothesis its pytest plugin is not installed either; plain asserts keep pytest's
    # import rewriter, which finds modules on its own, from loading hypothesis past the block.
    args = [
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "--assert=plain",
        "--planner-examples",
        "5",
    ]
    code = f"import sys, pytest\nsys.exit(pytest.main({args!r}))"
    done = run_python(code, cwd=project, hide_hypothesis_in=tmp_path / "site")
    assert done.returncode == 1, done.stdout + done.stderr  # one test error, not a failed session
    assert "1 passed, 1 error" in done.stdout
    assert "check_layout_pass needs hypothesis: pip install 'tile-planner[testing]'" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_the_package_ships_its_type_marker() -> None:
    assert resources.files("planner").joinpath("py.typed").is_file()


def test_extras_split_the_core_from_testing_and_drawing() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    extras = project["optional-dependencies"]
    assert "hypothesis" not in core and "matplotlib" not in core
    assert any(dep.startswith("hypothesis>=") for dep in extras["testing"])
    assert any(dep.startswith("matplotlib>=") for dep in extras["viz"])
    assert "tile-planner[testing,viz]" in extras["test"]
    pinned = project["dependencies"] + extras["testing"] + extras["viz"]
    assert [dep for dep in pinned if ">=" not in dep or ",<" not in dep] == []
