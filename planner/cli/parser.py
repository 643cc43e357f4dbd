"""The `planner` command line's grammar: every command, its arguments and the function it runs."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from planner import __version__, limits
from planner.cli import commands, layout_commands
from planner.cli.io import Command
from planner.cli.module_paths import add_module_options
from planner.limits import OptionRange

DESCRIPTION = "The `planner` command line: plan IR files, call protocol methods, serve, explain conflicts."


def _ranged(option: OptionRange) -> Callable[[str], float]:
    """An argparse `type` reading a value within `option`'s range (a usage error names the range)."""

    def read(text: str) -> float:
        return option.read(text)

    read.__name__ = option.unit  # what argparse calls the value in its own messages
    return read


def _add_max_bytes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-bytes",
        type=_ranged(limits.BYTES),
        default=4 * 1024 * 1024,
        help=f"largest input or request: {limits.BYTES.describe()}",
    )


def _add_bounds(parser: argparse.ArgumentParser, per: str = "command") -> None:
    """The deadline and the memory every command is held to (`planner.cli.io.bounded`)."""
    parser.add_argument(
        "--timeout",
        type=_ranged(limits.TIMEOUT),
        default=10.0,
        help=f"per {per}, reading to answer: {limits.TIMEOUT.describe()}",
    )
    parser.add_argument(
        "--max-memory",
        type=_ranged(limits.MEMORY),
        default=limits.DEFAULT_MAX_MEMORY,
        metavar="BYTES",
        help="address space the command (a service: each worker) may hold: "
        f"{limits.MEMORY.describe()}; below what the command needs to start is refused",
    )
    parser.set_defaults(bounded_per=per)


def _add_limits(parser: argparse.ArgumentParser, with_sizes: bool, per: str = "command") -> None:
    _add_bounds(parser, per)
    _add_max_bytes(parser)
    if with_sizes:
        parser.add_argument(
            "--max-depth",
            type=_ranged(limits.DEPTH),
            default=64,
            help=f"deepest JSON nesting accepted: {limits.DEPTH.describe()}",
        )


class _KnownTargets:
    """The target names, read from the targets room only when a `--target-arch` value is checked or
    the help printed: every command builds this option, so building it stays off start-up."""

    @staticmethod
    def _names() -> tuple[str, ...]:
        from planner.targets.tenstorrent import KNOWN_TARGETS

        return KNOWN_TARGETS

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


def _add_target_arch(parser: argparse.ArgumentParser) -> None:
    """TT-Lang MLIR: the target where the module names none or the log does not show it."""
    parser.add_argument(
        "--target-arch",
        choices=_KnownTargets(),
        metavar="NAME",
        help="TT-Lang: the target to plan for where the module names none or is not in the log (a "
        "function dumped alone); one that contradicts the module's own is an error: %(choices)s",
    )


def _plan_arguments(plan: argparse.ArgumentParser) -> None:
    plan.add_argument("file", help="input file, or - for stdin")
    plan.add_argument("-o", "--output", help="write the planned IR here instead of stdout")
    plan.add_argument("--report", help="write the JSON planning report here")
    plan.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="adapter option")
    plan.add_argument("--adapter", choices=["pypto", "ttlang"], help="skip detection by extension/content")
    plan.add_argument("--json", action="store_true", help="print the report (or the error) as JSON")
    plan.add_argument(
        "--section", metavar="TEXT", help="of an IR-printing log, plan the first dump whose header holds TEXT"
    )
    _add_target_arch(plan)
    add_module_options(plan)
    plan.epilog = (
        "TT-Lang MLIR is planned in text-preserving mode: only the attribute dictionaries the plan "
        "sets are rewritten, so comments and layout stay. For canonical MLIR output (FileCheck, "
        "lit), run planner-opt."
    )
    _add_limits(plan, with_sizes=False)


def _call_arguments(call: argparse.ArgumentParser) -> None:
    call.add_argument("method", help="e.g. layout.plan, kernelcfg.resolve, proofs.check")
    call.add_argument("file", nargs="?", default="-", help="JSON params file, or - for stdin")
    call.add_argument("--json", action="store_true", help="also print errors as JSON on stdout")
    _add_limits(call, with_sizes=True)


def _serve_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--http", metavar="HOST:PORT", help="serve HTTP POST instead (host defaults to 127.0.0.1)"
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http bind a non-loopback address (there is no authentication: anyone who "
        "reaches the port can send requests)",
    )
    serve.add_argument(
        "--read-timeout",
        type=_ranged(limits.SECONDS),
        default=10.0,
        help=f"an HTTP client's time to send one request, from its first byte: {limits.SECONDS.describe()}",
    )
    serve.add_argument(
        "--idle-timeout",
        type=_ranged(limits.SECONDS),
        default=60.0,
        help="an HTTP connection's wait for its next request before it is closed: "
        + limits.SECONDS.describe(),
    )
    serve.add_argument(
        "--max-connections",
        type=_ranged(limits.CONNECTIONS),
        default=4096,
        help=f"HTTP connections held at once, more get 503: {limits.CONNECTIONS.describe()}",
    )
    serve.add_argument(
        "--max-per-address",
        type=_ranged(limits.CONNECTIONS),
        default=1024,
        help="HTTP connections held at once from one client address, more get 503: "
        + limits.CONNECTIONS.describe(),
    )
    serve.add_argument(
        "--workers",
        type=_ranged(limits.WORKERS),
        default=min(4, os.cpu_count() or 1),
        help=f"worker processes answering HTTP: {limits.WORKERS.describe()}",
    )
    _add_limits(serve, with_sizes=True, per="message")


def _schema_arguments(schema: argparse.ArgumentParser) -> None:
    schema.add_argument("--check", action="store_true", help="verify the checked-in schemas are current")
    schema.add_argument("--dir", type=Path, default=Path("schemas"), help="schema directory")
    _add_bounds(schema)


def _explain_conflict_arguments(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("file", help="MLIR, PyPTO program, or JSON request; - for stdin")
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON")
    explain.add_argument("--graph", metavar="OUT.dot|OUT.png", help="draw the conflict graph")
    explain.add_argument(
        "--section", metavar="TEXT", help="of an IR-printing log, plan the first dump whose header holds TEXT"
    )
    _add_target_arch(explain)
    add_module_options(explain)
    _add_limits(explain, with_sizes=False)


def _explain_arguments(reasons: argparse.ArgumentParser) -> None:
    reasons.add_argument("file", help="TT-Lang MLIR or a kernelcfg.resolve JSON request; - for stdin")
    reasons.add_argument("--json", action="store_true", help="print the explanations (or the error) as JSON")
    reasons.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="pass option (precision=exact)"
    )
    reasons.add_argument(
        "--section", metavar="TEXT", help="of an IR-printing log, plan the first dump whose header holds TEXT"
    )
    _add_target_arch(reasons)
    _add_limits(reasons, with_sizes=False)


def _layout_arguments(layout: argparse.ArgumentParser) -> None:
    layout_sub = layout.add_subparsers(title="layout commands", required=True)
    show = _subcommand(
        layout_sub, "show", layout_commands.cmd_layout_show, "show which elements land in which NZ fractal"
    )
    show.add_argument("spec", metavar="TENSOR-SPEC", help='e.g. "[64, 64] FP16"')
    show.add_argument("--png", metavar="OUT.png", help="draw to a PNG (needs tile-planner[viz])")
    _add_bounds(show)
    for name, run, what in (
        (
            "pack",
            layout_commands.cmd_layout_pack,
            "write a logical array in NZ byte order, as the blocked array",
        ),
        ("unpack", layout_commands.cmd_layout_unpack, "read NZ-ordered bytes back into the logical array"),
    ):
        packer = _subcommand(layout_sub, name, run, what)
        packer.add_argument("file", metavar="IN", help=".npy array, or .safetensors file with --tensors")
        packer.add_argument("-o", "--output", required=True, metavar="OUT", help="output file (never IN)")
        packer.add_argument("--dtype", help="PyPTO dtype (fixes c0); a .safetensors tensor's own by default")
        packer.add_argument("--tensors", metavar="A,B", help="the .safetensors tensors to convert")
        if name == "unpack":
            packer.add_argument("--shape", metavar="R,C", help="logical shape (recorded in .safetensors)")
        _add_bounds(packer)


def _suggest_arguments(suggest: argparse.ArgumentParser) -> None:
    suggest.add_argument("file", help="PyPTO program or source, or - for stdin")
    suggest.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    suggest.add_argument("--apply", action="store_true", help="write pl.NZ on every eligible weight")
    suggest.add_argument("-o", "--output", metavar="OUT", help="with --apply: write here instead of in place")
    _add_limits(suggest, with_sizes=False)
    suggest.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="adapter option")
    add_module_options(suggest)


def _batch_arguments(batch: argparse.ArgumentParser) -> None:
    batch.add_argument("paths", nargs="+", metavar="DIR|FILE", help="files, or directories to search")
    batch.add_argument(
        "--workers",
        type=_ranged(limits.WORKERS),
        default=1,
        help=f"worker processes: {limits.WORKERS.describe()}",
    )
    batch.add_argument("--dask", metavar="ADDRESS|local", help="run on dask.distributed (tile-planner[dask])")
    batch.add_argument("-o", "--output", help="write the JSON lines here instead of stdout")
    batch.add_argument("--quiet", action="store_true", help="no progress bar, even on a terminal")
    _add_target_arch(batch)
    add_module_options(batch, with_bind=False)
    _add_limits(batch, with_sizes=False, per="file")


# name, the function it runs (None: a group of commands), its help, what adds its arguments; in help order
_COMMANDS: tuple[tuple[str, Command | None, str, Callable[[argparse.ArgumentParser], None]], ...] = (
    ("plan", commands.cmd_plan, "plan a PyPTO program or TT-Lang MLIR file", _plan_arguments),
    ("call", commands.cmd_call, "answer one protocol request (JSON in, JSON out)", _call_arguments),
    (
        "serve",
        commands.cmd_serve,
        "JSON-RPC 2.0 service: one message per line on stdin/stdout",
        _serve_arguments,
    ),
    ("schema", commands.cmd_schema, "write JSON Schemas for every method into schemas/", _schema_arguments),
    (
        "explain-conflict",
        commands.cmd_explain,
        "explain why a file or request is refused",
        _explain_conflict_arguments,
    ),
    (
        "explain",
        commands.cmd_explain_plan,
        "say why each kernel-config decision was made",
        _explain_arguments,
    ),
    ("layout", None, "NZ layout tools", _layout_arguments),
    (
        "suggest",
        layout_commands.cmd_suggest,
        "which ND weights of a PyPTO file may become pl.NZ",
        _suggest_arguments,
    ),
    ("batch", commands.cmd_batch, "plan many files; one JSON line per input", _batch_arguments),
)


def _subcommand(sub: Any, name: str, run: Command | None, help: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help)
    if run is not None:
        parser.set_defaults(run=run, parser=parser)
    return parser


# (command's run function, option, the option it needs): an option that does nothing without the other
_NEEDS: tuple[tuple[Command, str, str], ...] = ((layout_commands.cmd_suggest, "--output", "--apply"),)


def usage_problems(args: argparse.Namespace) -> list[str]:
    """Options the command given would silently ignore: each a usage error, never a no-op."""
    run = getattr(args, "run", None)
    return [
        f"{option} has no effect without {needed}; add {needed} or drop {option}"
        for command, option, needed in _NEEDS
        if run is command and getattr(args, option.lstrip("-")) and not getattr(args, needed.lstrip("-"))
    ]


def _named_command(argv: Sequence[str]) -> str | None:
    """The command `argv` names: its first word that is not an option (the top level's take no value)."""
    for word in argv:
        if not word.startswith("-"):
            return word if any(word == name for name, *_ in _COMMANDS) else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole grammar; given the command line, only the command it names gets its arguments
    (the others are listed for help and errors alike, so every message stays the same)."""
    named = None if argv is None else _named_command(argv)
    parser = argparse.ArgumentParser(prog="planner", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    parser.add_argument("--debug", action="store_true", help="print tracebacks of internal errors")
    sub = parser.add_subparsers(title="commands")
    for name, run, help, add_arguments in _COMMANDS:
        command = _subcommand(sub, name, run, help)
        if named is None or name == named:
            add_arguments(command)
    return parser
