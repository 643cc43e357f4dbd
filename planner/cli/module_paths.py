"""`--path DIR` and `--bind NAME=VALUE`: where a PyPTO file's imports are read from, and which
builder parameters a plan assumes (docs/design/nz-layout.md section 19)."""

from __future__ import annotations

import argparse
import ast
import os
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.io import bad_params

if TYPE_CHECKING:
    from planner.adapters.pypto.constants.kernel_constants import ResolveContext


def add_module_options(parser: argparse.ArgumentParser, *, with_bind: bool = True) -> None:
    parser.add_argument(
        "--path", action="append", default=[], metavar="DIR", help="also read imported modules from DIR"
    )
    if not with_bind:
        return
    parser.add_argument(
        "--bind", action="append", default=[], metavar="NAME=VALUE", help="plan for this builder parameter"
    )


def resolve_context(args: argparse.Namespace, filename: str, text: str) -> ResolveContext:
    """The file system search of the kernel file a command reads, with its `--path` and `--bind`
    (each bound name a builder parameter of `text`)."""
    binds = bind_values(getattr(args, "bind", []))
    if binds:
        check_binds_name_parameters(binds, text)
    return file_context(filename, getattr(args, "path", []), binds, args.max_bytes)


def builder_parameters(text: str) -> set[str] | None:
    """The parameters of every function that defines a function inside it (a kernel's builder);
    None for text that is not Python (its reader reports that)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: set[str] = set()
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if isinstance(node, functions) and any(
            isinstance(inner, functions) for statement in node.body for inner in ast.walk(statement)
        ):
            arguments = node.args
            found.update(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))
    return found


def check_binds_name_parameters(binds: dict[str, str], text: str) -> None:
    """Refuse a `--bind` that names no builder parameter of any kernel: it would change nothing."""
    parameters = builder_parameters(text)
    if parameters is None:
        return
    unknown = sorted(set(binds) - parameters)
    if unknown:
        there = ", ".join(sorted(parameters)) if parameters else "none: no kernel here has a builder"
        raise bad_params(
            f"--bind {', '.join(unknown)}: not a builder parameter of any kernel (there are: {there})"
        )


def file_context(filename: str, paths: list[str], binds: dict[str, str], max_bytes: int) -> ResolveContext:
    """The file system search of a kernel file at `filename` (stdin: from the working directory)."""
    from planner.adapters.pypto.constants.kernel_constants import ResolveContext
    from planner.adapters.pypto.constants.module_finder import FileModules, kernel_package, search_roots

    kernel = Path(filename) if filename not in ("-", "<stdin>", "<input>") else None
    roots = search_roots(kernel, paths, os.environ)
    if kernel is None:
        roots.insert(0, Path.cwd())
    package = kernel_package(kernel)
    module = ".".join(part for part in (package, kernel.stem if kernel else "") if part)
    return ResolveContext(FileModules(roots, max_bytes), module, package, binds)


def bind_values(pairs: list[str]) -> dict[str, str]:
    binds: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.isidentifier() or not _is_expression(value):
            raise bad_params(f"--bind expects NAME=VALUE with VALUE a Python literal, got {pair[:200]!r}")
        binds[name] = value
    return binds


def _is_expression(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return True
