"""The house rule: every import of ours points down the layout (README "Development").

Each room is a package (or, on the ground floor, a set of modules). A module may import its
own room and any room of a lower rank; rooms of one rank are independent of each other.
Every import counts: module level, inside functions, under `TYPE_CHECKING`, and the
`"module:attribute"` references a registry loads by name.

Inside an adapter the same rule holds between its stages (sub-packages). The modules directly
in the adapter's package that no stage holds (its `__init__` and the aliases kept for public
paths) are its face: it ranks above every stage, so it may import any of them and none imports it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from tests.support.paths import ROOT

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

# Inside one adapter: (rank, stage, the module prefixes it holds); a module may import its own stage
# and stages of a lower rank of the same adapter, never one of the same or a higher rank.
STAGES: dict[str, tuple[tuple[int, str, tuple[str, ...]], ...]] = {
    "planner.adapters.ttlang": (
        (0, "planner/adapters/ttlang/base", ("planner.adapters.ttlang.base",)),
        (1, "planner/adapters/ttlang/dialects", ("planner.adapters.ttlang.dialects",)),
        (2, "planner/adapters/ttlang/reading", ("planner.adapters.ttlang.reading",)),
        (3, "planner/adapters/ttlang/requests", ("planner.adapters.ttlang.requests",)),
        (4, "planner/adapters/ttlang/writing", ("planner.adapters.ttlang.writing",)),
        (5, "planner/adapters/ttlang/tool", ("planner.adapters.ttlang.tool",)),
    ),
    "planner.adapters.pypto": (
        (0, "planner/adapters/pypto/base", ("planner.adapters.pypto.base",)),
        (1, "planner/adapters/pypto/constants", ("planner.adapters.pypto.constants",)),
        (2, "planner/adapters/pypto/reading", ("planner.adapters.pypto.reading",)),
        (3, "planner/adapters/pypto/requests", ("planner.adapters.pypto.requests",)),
        (4, "planner/adapters/pypto/writing", ("planner.adapters.pypto.writing",)),
    ),
}

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
        else:
            problems += _pointing_up_or_sideways(f"{module}:{line} imports {target}", here, there)
    return problems


def _pointing_up_or_sideways(where: str, here: tuple[int, str], there: tuple[int, str]) -> list[str]:
    """The import at `where`, from `here` to `there`, in words if it does not point down or stay."""
    if there == here or there[0] < here[0]:
        return []
    way = "up" if there[0] > here[0] else "sideways"
    return [f"{where}: {here[1]} -> {there[1]} points {way}"]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def adapter_of(module: str) -> str | None:
    """The adapter with stages that holds `module`, if any."""
    return next((adapter for adapter in STAGES if _within(module, adapter)), None)


def _face(adapter: str) -> str:
    """The adapter's face as the README and the design index name it."""
    return adapter.replace(".", "/") + "/*.py"


def stage_of(adapter: str, module: str) -> tuple[int, str] | None:
    """The stage of `adapter` holding `module`: a listed stage, the face (the package itself and
    its direct modules no stage holds, ranked above every stage), or None."""
    stages = STAGES[adapter]
    for rank, stage, prefixes in stages:
        if any(_within(module, prefix) for prefix in prefixes):
            return rank, stage
    if module == adapter or module.rpartition(".")[0] == adapter:
        return max(rank for rank, _, _ in stages) + 1, _face(adapter)
    return None


def stage_violations(module: str, source: str, known: set[str]) -> list[str]:
    """Imports of `source` (as module `module`) that point up or sideways between its adapter's stages."""
    adapter = adapter_of(module)
    if adapter is None:
        return []
    here = stage_of(adapter, module)
    if here is None:
        return [f"{module} is in no stage of {adapter}; add it to the README and to STAGES"]
    problems = []
    for line, target in imported_modules(module, source, known):
        if not _within(target, adapter):
            continue
        there = stage_of(adapter, target)
        if there is None:
            problems.append(f"{module}:{line} imports {target}, which is in no stage")
        else:
            problems += _pointing_up_or_sideways(f"{module}:{line} imports {target}", here, there)
    return problems


def _known() -> set[str]:
    modules = our_modules()
    return set(modules) | {name + ".__init__" for name, path in modules.items() if path.name == "__init__.py"}


def _found_in_every_module(check: Callable[[str, str, set[str]], list[str]]) -> list[str]:
    known = _known()
    return [
        problem
        for module, path in our_modules().items()
        for problem in check(module, path.read_text(encoding="utf-8"), known)
    ]


def test_every_import_points_down() -> None:
    assert _found_in_every_module(violations) == []


def test_every_adapter_import_points_down_its_stages() -> None:
    assert _found_in_every_module(stage_violations) == []


def circular(imports: dict[str, set[str]]) -> list[str]:
    """The modules of `imports` (module -> the modules it imports) that reach themselves again."""
    found = []
    for start in imports:
        seen: set[str] = set()
        pending = list(imports[start])
        while pending and start not in seen:
            module = pending.pop()
            if module not in seen:
                seen.add(module)
                pending += imports.get(module, ())
        if start in seen:
            found.append(start)
    return sorted(found)


def test_no_module_of_a_staged_adapter_reaches_itself_through_its_imports() -> None:
    known, modules = _known(), our_modules()
    imports = {
        module: {target for _, target in imported_modules(module, path.read_text(encoding="utf-8"), known)}
        for module, path in modules.items()
        if adapter_of(module) is not None
    }
    assert circular({module: targets - {module} for module, targets in imports.items()}) == []


def test_a_circle_is_found_through_every_module_on_it() -> None:
    imports = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": set(), "e": {"a"}}
    assert circular(imports) == ["a", "b", "c"]


def test_an_upward_stage_import_is_reported_wherever_it_hides() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from planner.adapters.ttlang.base import codes\n"
        "from planner.adapters.ttlang.dialects.ttl_attrs import CBType\n"
        "if TYPE_CHECKING:\n"
        "    from planner.adapters.ttlang.requests.kernels import AnsweredKernel\n"
        "def late() -> None:\n"
        "    from planner.adapters.ttlang import plan_text\n"
        "    from planner.adapters.ttlang.opt_main import main\n"
        "    from . import source\n"
        "    from ..writing import apply\n"
        "    from planner.adapters.outcome import AdapterInputError\n"
        "HANDLER = 'planner.adapters.ttlang.tool.opt_main:main'\n"
    )
    reading, writing = "planner/adapters/ttlang/reading", "planner/adapters/ttlang/writing"
    assert stage_violations("planner.adapters.ttlang.reading.probe", source, _known()) == [
        "planner.adapters.ttlang.reading.probe:5 imports planner.adapters.ttlang.requests.kernels: "
        f"{reading} -> planner/adapters/ttlang/requests points up",
        "planner.adapters.ttlang.reading.probe:7 imports planner.adapters.ttlang: "
        f"{reading} -> planner/adapters/ttlang/*.py points up",
        "planner.adapters.ttlang.reading.probe:8 imports planner.adapters.ttlang.opt_main: "
        f"{reading} -> planner/adapters/ttlang/*.py points up",
        "planner.adapters.ttlang.reading.probe:10 imports planner.adapters.ttlang.writing.apply: "
        f"{reading} -> {writing} points up",
        "planner.adapters.ttlang.reading.probe:12 imports planner.adapters.ttlang.tool.opt_main: "
        f"{reading} -> planner/adapters/ttlang/tool points up",
    ]


def test_an_upward_pypto_stage_import_is_reported_wherever_it_hides() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from planner.adapters.pypto.base import codes\n"
        "from planner.adapters.pypto.constants.resolver import Resolver\n"
        "from planner.adapters.pypto.reading import types\n"
        "from planner.layout.protocol import LoadOp\n"
        "if TYPE_CHECKING:\n"
        "    from planner.adapters.pypto.writing.apply import plan_edits\n"
        "def late() -> None:\n"
        "    from planner.adapters.pypto import plan_text\n"
        "    from . import program\n"
        "    from ..requests import model\n"
        "READER = 'planner.adapters.pypto.requests.reader:read_function'\n"
    )
    reading = "planner/adapters/pypto/reading"
    assert stage_violations("planner.adapters.pypto.reading.probe", source, _known()) == [
        "planner.adapters.pypto.reading.probe:7 imports planner.adapters.pypto.writing.apply: "
        f"{reading} -> planner/adapters/pypto/writing points up",
        "planner.adapters.pypto.reading.probe:9 imports planner.adapters.pypto: "
        f"{reading} -> planner/adapters/pypto/*.py points up",
        "planner.adapters.pypto.reading.probe:11 imports planner.adapters.pypto.requests.model: "
        f"{reading} -> planner/adapters/pypto/requests points up",
        "planner.adapters.pypto.reading.probe:12 imports planner.adapters.pypto.requests.reader: "
        f"{reading} -> planner/adapters/pypto/requests points up",
    ]


def test_the_face_of_an_adapter_may_import_every_stage_and_a_stray_module_is_named() -> None:
    known = _known()
    face = "from planner.adapters.ttlang.tool import opt_main\nfrom planner.adapters.ttlang import universe\n"
    assert stage_violations("planner.adapters.ttlang.probe", face, known) == []
    assert stage_violations("planner.adapters.ttlang.stray.probe", "", known) == [
        "planner.adapters.ttlang.stray.probe is in no stage of planner.adapters.ttlang; "
        "add it to the README and to STAGES"
    ]


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


def test_the_readme_lists_the_stages_of_each_adapter_in_rank_order() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("Stages inside an adapter (imports point down this list only", 1)[1].split("```")[1]
    documented = [line.split()[0] for line in block.splitlines() if line.startswith("planner")]
    for adapter, stages in STAGES.items():
        listed = [name for name in documented if name.startswith(adapter.replace(".", "/") + "/")]
        assert listed == [*(stage for _, stage, _ in stages), _face(adapter)]


def test_the_design_index_gives_every_stage_its_rank() -> None:
    text = (ROOT / "docs" / "design" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(planner/adapters/[^`]+)` \| (\d+|face) \|", text, flags=re.M)
    expected = [
        row
        for adapter, stages in STAGES.items()
        for row in [*((stage, str(rank)) for rank, stage, _ in stages), (_face(adapter), "face")]
    ]
    assert rows == expected


def test_every_sub_package_of_a_staged_adapter_is_a_stage() -> None:
    for adapter, stages in STAGES.items():
        folder = ROOT / adapter.replace(".", "/")
        packages = {f"{adapter}.{path.parent.name}" for path in folder.glob("*/__init__.py")}
        assert packages == {prefix for _, _, prefixes in stages for prefix in prefixes}


def test_the_design_index_gives_every_room_its_rank() -> None:
    text = (ROOT / "docs" / "design" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` \|", text, flags=re.M)
    expected = [(str(rank), "planner/*.py" if room == "ground floor" else room) for rank, room, _ in ROOMS]
    assert rows == expected


def test_every_package_of_ours_is_in_a_room() -> None:
    packages = {f"planner/{path.parent.name}" for path in PACKAGE.glob("*/__init__.py")}
    assert packages == {room for _, room, _ in ROOMS if room != "ground floor"}
