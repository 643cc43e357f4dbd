"""Lazy re-exports: a package names its public API up front and imports a submodule on first use.

`import planner.testing` must stay cheap (the pytest plugin and users' conftest files import
it), while the names it offers live in submodules that pull in Z3, numpy and hypothesis.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`(__getattr__, __dir__, __all__)` for `package`, from `{submodule: names it exports}`."""
    home = {name: module for module, names in exports.items() for name in names}

    def getattr_(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    def dir_() -> list[str]:
        return sorted(home)

    return getattr_, dir_, sorted(home)
