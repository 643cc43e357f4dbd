"""The house rule: every import of ours points down the layout (README "Development").

Each room is a package (or, on the ground floor, a set of modules). A module may import its
own room and any room of a lower rank; rooms of one rank are independent of each other.
Every import counts: module level, inside functions, under `TYPE_CHECKING`, and the
`"module:attribute"` references a registry loads by name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "planner"

GROUND_FLOOR = (
    "planner",
    "planner.contract",
    "planner.errors",
    "planner.budget",
    "planner.request_codes",
    "planner.limits",
    "planner.extras",
    "planner.inputs",
    "planner.outputs",
    "planner.standard_output",
    "planner.cancellation",
)

# (rank, room, the module prefixes it holds)
ROOMS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (0, "planner/targets", ("planner.targets",)),
    (0, "ground floor", GROUND_FLOOR),
    (1, "planner/proofs", ("planner.proofs",)),
    (2, "planner/layout", ("planner.layout",)),
    (2, "planner/kernelcfg", ("planner.kernelcfg",)),
    (3, "planner/adapters", ("planner.adapters",)),
    (4, "planner/advice", ("planner.advice",)),
    (4, "planner/weights", ("planner.weights",)),
    (4, "planner/explain", ("planner.explain",)),
    (5, "planner/service", ("planner.service",)),
    (6, "planner/cli", ("planner.cli",)),
    (6, "planner/testing", ("planner.testing",)),
)

_REFERENCE = re.compile(r"(planner(?:\.[a-z_][a-z0-9_]*)+):[A-Za-z_]\w*")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def room_of(module: str) -> tuple[int, str] | None:
    """The room holding `module` (ground-floor names match exactly, packages by prefix)."""
    for rank, room, prefixes in ROOMS:
        if room == "ground floor":
            if module in prefixes:
                return rank, room
        elif any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return rank, room
    return None


def imported_modules(module: str, source: str, known: set[str]) -> list[tuple[int, str]]:
    """Every module of ours that `source` imports, with the line of the import."""
    package = module if f"{module}.__init__" in known or module == "planner" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.append((node.lineno, submodule if submodule in known else base))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _REFERENCE.fullmatch(node.value)
            if match:
                found.append((node.lineno, match.group(1)))
    return [(line, name) for line, name in found if name == "planner" or name.startswith("planner.")]


def violations(module: str, source: str, known: set[str]) -> list[str]:
    """Imports of `source` (as module `module`) that point up or sideways, in words."""
    here = room_of(module)
    if here is None:
        return [f"{module} is in no room of the layout; add it to the README and to ROOMS"]
    problems = []
    for line, target in imported_modules(module, source, known):
        there = room_of(target)
        if there is None:
            problems.append(f"{module}:{line} imports {target}, which is in no room")
        elif there != here and there[0] >= here[0]:
            way = "up" if there[0] > here[0] else "sideways"
            problems.append(f"{module}:{line} imports {target}: {here[1]} -> {there[1]} points {way}")
    return problems


def _known() -> set[str]:
    modules = our_modules()
    return set(modules) | {name + ".__init__" for name, path in modules.items() if path.name == "__init__.py"}


def test_every_import_points_down() -> None:
    known = _known()
    found = [
        problem
        for module, path in our_modules().items()
        for problem in violations(module, path.read_text(encoding="utf-8"), known)
    ]
    assert found == []


def test_an_upward_import_is_reported_wherever_it_hides(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "from planner.proofs import check\n"
        "if TYPE_CHECKING:\n"
        "    from planner.adapters import AdapterOutcome\n"
        "def late() -> None:\n"
        "    from planner.service import methods\n"
        "    from planner.kernelcfg import resolve\n"
        "HANDLER = 'planner.cli.batch:plan_file'\n",
        encoding="utf-8",
    )
    known = _known()
    assert violations("planner.layout.probe", probe.read_text(encoding="utf-8"), known) == [
        "planner.layout.probe:4 imports planner.adapters: planner/layout -> planner/adapters points up",
        "planner.layout.probe:6 imports planner.service.methods: planner/layout -> planner/service points up",
        "planner.layout.probe:7 imports planner.kernelcfg: "
        "planner/layout -> planner/kernelcfg points sideways",
        "planner.layout.probe:8 imports planner.cli.batch: planner/layout -> planner/cli points up",
    ]


def test_relative_imports_resolve_against_their_package() -> None:
    known = _known()
    source = "from ..service import methods\nfrom . import protocol\n"
    assert imported_modules("planner.layout.probe", source, known) == [
        (1, "planner.service.methods"),
        (2, "planner.layout.protocol"),
    ]


def test_a_module_outside_every_room_is_named() -> None:
    assert violations("planner.stray", "", _known()) == [
        "planner.stray is in no room of the layout; add it to the README and to ROOMS"
    ]


def _documented_rooms(text: str) -> list[str]:
    block = text.split("Layout (imports point down this list only", 1)[1].split("```")[1]
    return [line.split()[0] for line in block.splitlines() if line.startswith("planner")]


def test_the_readme_lists_the_rooms_in_rank_order() -> None:
    documented = _documented_rooms((ROOT / "README.md").read_text(encoding="utf-8"))
    packages = [room for _, room, _ in ROOMS if room != "ground floor"]
    assert [room for room in documented if room in packages] == packages
    assert set(documented) - set(packages) == {"planner/*.py"}


def test_the_design_index_gives_every_room_its_rank() -> None:
    text = (ROOT / "docs" / "design" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` \|", text, flags=re.M)
    expected = [(str(rank), "planner/*.py" if room == "ground floor" else room) for rank, room, _ in ROOMS]
    assert rows == expected


def test_every_package_of_ours_is_in_a_room() -> None:
    packages = {f"planner/{path.parent.name}" for path in PACKAGE.glob("*/__init__.py")}
    assert packages == {room for _, room, _ in ROOMS if room != "ground floor"}
