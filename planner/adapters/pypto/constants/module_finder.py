"""Where the modules a kernel file imports come from, read as text only (nz-layout.md section 19).

The command line and `planner batch` search the file system: the kernel file's directory, the
parent of the package root above it (walking up while `__init__.py` exists), each `--path DIR`
in order, then `PLANNER_PATH`; the first match wins. The service never opens a path: a client
sends the modules' text in the request (`modules`). Either way a module is only parsed, never
run; one that cannot be read is a warning and leaves its names unresolved.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from planner.inputs import source_text

PATH_VARIABLE = "PLANNER_PATH"


@dataclass(frozen=True)
class ModuleText:
    """One module's source: its dotted name, the package its relative imports start from, and
    where it was found (for warnings)."""

    name: str
    package: str
    origin: str
    text: str


class Unreadable(Exception):
    """A module was found but cannot be read (too large, not in its declared encoding, unreadable)."""

    def __init__(self, origin: str, reason: str) -> None:
        super().__init__(reason)
        self.origin = origin
        self.reason = reason


class ModuleSource(Protocol):
    def find(self, name: str) -> ModuleText | None:
        """The module's text, None when no such module is available (an installed library),
        or raise `Unreadable`."""
        ...


class NoModules:
    """No module but the kernel file itself is available."""

    def find(self, name: str) -> ModuleText | None:
        return None


class GivenModules:
    """Modules a client sent by dotted name (`modules` of `pypto.plan` and `layout.suggest`)."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)

    def find(self, name: str) -> ModuleText | None:
        text = self._modules.get(name)
        if text is None:
            return None
        package = name if any(other.startswith(f"{name}.") for other in self._modules) else ""
        return ModuleText(name, package or name.rpartition(".")[0], f"<module {name}>", text)


class FileModules:
    """Modules found under the search roots, each at most `max_bytes` long."""

    def __init__(self, roots: Sequence[Path], max_bytes: int) -> None:
        self.roots = list(dict.fromkeys(roots))
        self._max_bytes = max_bytes

    def find(self, name: str) -> ModuleText | None:
        parts = name.split(".")
        for root in self.roots:
            for candidate, package in (
                (root.joinpath(*parts, "__init__.py"), name),
                (
                    root.joinpath(*parts[:-1], f"{parts[-1]}.py"),
                    name.rpartition(".")[0],
                ),
            ):
                if candidate.is_file():
                    return ModuleText(name, package, str(candidate), self._read(candidate))
        return None

    def _read(self, path: Path) -> str:
        try:
            size = path.stat().st_size
            if size > self._max_bytes:
                raise Unreadable(str(path), f"{size} bytes, more than --max-bytes {self._max_bytes}")
            return source_text(path.read_bytes())
        except ValueError as exc:
            raise Unreadable(str(path), str(exc)) from None
        except OSError as exc:
            raise Unreadable(str(path), exc.strerror or "cannot be read") from None


def search_roots(kernel_file: Path | None, paths: Sequence[str], environ: Mapping[str, str]) -> list[Path]:
    """The roots in search order (see the module docstring)."""
    roots: list[Path] = []
    if kernel_file is not None:
        directory = kernel_file.resolve().parent
        roots.append(directory)
        while (directory / "__init__.py").is_file() and directory.parent != directory:
            directory = directory.parent
        roots.append(directory)
    roots.extend(Path(path) for path in paths)
    roots.extend(Path(path) for path in environ.get(PATH_VARIABLE, "").split(os.pathsep) if path)
    return roots


def kernel_package(kernel_file: Path | None) -> str:
    """The dotted package a kernel file sits in ("" outside a package)."""
    if kernel_file is None:
        return ""
    parts: list[str] = []
    directory = kernel_file.resolve().parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.append(directory.name)
        directory = directory.parent
    return ".".join(reversed(parts))
