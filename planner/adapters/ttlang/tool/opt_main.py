"""`planner-opt`: `ttl-set-compute-kernel-config` under xDSL's opt driver, used like `ttlang-opt`.

An upstream lit test runs with `planner-opt` in place of `ttlang-opt`:

    planner-opt %s -p 'ttl-set-compute-kernel-config{fp32-dest-acc-en=enabled matmul-full-fp32=0}'
    planner-opt %s --pass-pipeline='builtin.module(func.func(ttl-set-compute-kernel-config{...}))'
    planner-opt %s -split-input-file -verify-diagnostics -o out.mlir

MLIR's single-dash spellings of the long options are accepted, and MLIR's
`-mlir-print-debuginfo` for `--print-debuginfo`. Output follows MLIR's printing conventions
(`mlir_printer`; with `--print-debuginfo`, every location, as `#loc` aliases after the
module); diagnostics go to stderr as `file:line:col: error: ...`, each chunk of a split
file on its own (a refused chunk prints nothing). `-o` is never an input and is written only
by a run that succeeded. Exit status, as `planner plan`'s (README): 0 success (with
`--verify-diagnostics`: every expected diagnostic and no other; with `--parsing-diagnostics`:
parse errors printed, not failed), 1 a refusal or a mismatch, 2 a bad command line, input that
cannot be read or parsed (`[adapter.parse_error]`), an unwritable output or a run past
`--timeout` (typed `request.*` errors). Each flag of xDSL's driver either works here or is
refused (`_REFUSED_FLAGS`), never silently ignored.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from xdsl.universe import Universe
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from planner import request_codes
from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.reading.context import add_ttlang_dialects
from planner.adapters.ttlang.reading.diagnostics import Diagnostic
from planner.adapters.ttlang.reading.ir_log import ChunkToPlan, input_chunks, is_ir_log, read_chunk
from planner.adapters.ttlang.reading.nesting import room_for_nesting
from planner.adapters.ttlang.reading.source import Chunk, split_chunks
from planner.adapters.ttlang.tool.expected import expected_diagnostics, verify
from planner.adapters.ttlang.writing.configure import (
    KernelConfigRefused,
    OptSession,
    SetComputeKernelConfig,
    current_session,
    input_error_diagnostic,
)
from planner.adapters.ttlang.writing.mlir_printer import canonical_text
from planner.budget import WATCHDOG_GRACE, watchdog
from planner.cancellation import cancel_on_signals, hold_if_ending
from planner.errors import RequestError
from planner.inputs import read_text
from planner.limits import DEFAULT_MAX_MEMORY, MEMORY, TIMEOUT, check_cap, memory_capped
from planner.outputs import check_output, write_output
from planner.standard_output import flush_stdout, reader_left, write_stdout
from planner.targets.tenstorrent import KNOWN_TARGETS

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_MLIR_LONG_OPTIONS = ("split-input-file", "verify-diagnostics", "pass-pipeline", "allow-unregistered-dialect")
_MLIR_SPELLINGS = {"mlir-print-debuginfo": "print-debuginfo"}
_ANCHOR = re.compile(r"^\s*(?:builtin\.module|func\.func|any)\s*\((.*)\)\s*$", re.DOTALL)
SPLIT_SEPARATOR = "// -----\n"
TOOL = "planner-opt"

# xDSL driver flags this tool's own reading and canonical printing do not honour, and why.
_REFUSED_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("no_implicit_module", "--no-implicit-module", "every input is read as one module"),
    ("print_between_passes", "--print-between-passes", "the pipeline has one pass"),
    ("print_op_generic", "--print-op-generic", "output is canonical MLIR"),
    ("print_no_properties", "--print-no-properties", "output is canonical MLIR"),
    ("syntax_highlight", "--syntax-highlight", "output is canonical MLIR"),
    ("shrink", "--shrink", "there is no shrinking mode"),
)


def mlir_argv(argv: Sequence[str]) -> list[str]:
    """`-split-input-file` as `--split-input-file`, and so on for MLIR's other long options;
    `-mlir-print-debuginfo` as xDSL's `--print-debuginfo`."""
    spelled: list[str] = []
    for arg in argv:
        name = arg.lstrip("-")
        if arg.startswith("-") and name in _MLIR_SPELLINGS:
            arg = "--" + _MLIR_SPELLINGS[name]
        name = arg[1:].split("=", 1)[0]
        spelled.append("-" + arg if not arg.startswith("--") and name in _MLIR_LONG_OPTIONS else arg)
    return spelled


def pass_list(pipeline: str) -> str:
    """`builtin.module(func.func(p{...}))` as the pass list `p{...}` (the pass runs on whole modules)."""
    while (anchored := _ANCHOR.match(pipeline)) is not None:
        pipeline = anchored.group(1)
    return pipeline.strip()


class PlannerOptMain(xDSLOptMain):
    """xDSL's opt driver with the TT-Lang dialects, this pass, and MLIR's diagnostics handling."""

    def __init__(self, args: Sequence[str] | None = None) -> None:
        super().__init__(description="Run ttl-set-compute-kernel-config on TT-Lang MLIR", args=args)

    def register_all_dialects(self) -> None:
        add_ttlang_dialects(self.ctx)

    def register_all_passes(self) -> None:
        self.register_pass(SetComputeKernelConfig.name, lambda: SetComputeKernelConfig)

    def register_all_frontends(self) -> None:
        for name, frontend in _multiverse().all_frontends.items():
            self.available_frontends.setdefault(name, frontend)

    def register_all_targets(self) -> None:
        for name, target in _multiverse().all_targets.items():
            self.available_targets.setdefault(name, target)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--pass-pipeline",
            default="",
            help="MLIR's pipeline: 'builtin.module(func.func(ttl-set-compute-kernel-config{...}))'",
        )
        arg_parser.add_argument(
            "--section",
            metavar="TEXT",
            help="of an IR-printing log, run on the first dump whose header holds TEXT",
        )
        arg_parser.add_argument(
            "--target-arch",
            choices=KNOWN_TARGETS,
            metavar="NAME",
            help="the target to plan for where the module names none or is not in the log (a function "
            f"dumped alone); one that contradicts the module's own is an error: {', '.join(KNOWN_TARGETS)}",
        )
        arg_parser.add_argument(
            "--timeout",
            type=TIMEOUT.read,
            default=10.0,
            help=f"the whole run, reading included: {TIMEOUT.describe()}",
        )
        arg_parser.add_argument(
            "--max-memory",
            type=MEMORY.read,
            default=DEFAULT_MAX_MEMORY,
            metavar="BYTES",
            help=f"address space: {MEMORY.describe()}; below what the run needs to start is refused",
        )

    def setup_pipeline(self) -> None:
        if self.args.pass_pipeline:
            if self.args.passes:
                raise ValueError("give either -p/--passes or --pass-pipeline, not both")
            self.args.passes = pass_list(self.args.pass_pipeline)
        super().setup_pipeline()  # type: ignore[no-untyped-call]

    def refused_flags(self) -> list[str]:
        """The flags given that this tool does not honour, each with its reason."""
        refused = [
            f"{flag} is not supported: {why}"
            for name, flag, why in _REFUSED_FLAGS
            if getattr(self.args, name)
        ]
        if self.args.target != "mlir":  # -f offers MLIR alone already
            refused.append(f"-t/--target {self.args.target} is not supported: output is MLIR text")
        return refused

    def _process(self, planned: ChunkToPlan, filename: str) -> tuple[list[Diagnostic], str | None, bool]:
        """One chunk's diagnostics, its printed output (None when refused), and whether it failed to parse."""
        try:
            parsed = read_chunk(planned, filename)
        except AdapterInputError as error:
            found = input_error_diagnostic(error)
            return (
                [replace(found, message=f"[{error.code}] {found.message}")],
                None,
                True,
            )
        session = OptSession(parsed, self.args.target_arch)
        token = current_session.set(session)
        try:
            self.apply_passes(parsed.module)
        except KernelConfigRefused:
            return session.diagnostics, None, False
        finally:
            current_session.reset(token)
        return session.diagnostics, canonical_text(parsed.module, debuginfo=self.args.print_debuginfo), False

    def run_tool(self) -> int:
        """Read, run the pipeline on every chunk, print; the exit status.

        `-o` is checked before anything is read (never an input, stdin's file included) and written
        only when the run succeeded, so a refused or unparsable input leaves it as it was.
        """
        filename = self.args.input_file or "<stdin>"
        if self.args.output_file is not None:
            check_output(self.args.output_file, [self.args.input_file or "-"], "-o")
        text = read_text(self.args.input_file or "-", None)
        try:
            chunks, notes = self._chunks(text, filename)
        except AdapterInputError as error:
            return _report(RequestError(error.code, error.message))
        outputs: list[str] = []
        reported: list[Diagnostic] = []
        failed = unparsable = False
        for planned in chunks:
            with room_for_nesting():
                emitted, output, unread = self._process(planned, filename)
            if self.args.verify_diagnostics:
                emitted = verify(emitted, expected_diagnostics(planned.chunk))
            elif unread:
                unparsable = unparsable or not self.args.parsing_diagnostics
            reported.extend(emitted)
            erred = any(item.severity == "error" for item in emitted)
            failed = failed or (erred and not (unread and self.args.parsing_diagnostics))
            if output is not None:
                outputs.append(output)
        printed = SPLIT_SEPARATOR.join(outputs)
        if self.args.output_file is None:
            write_stdout(printed)
        elif not failed:
            write_output(self.args.output_file, printed, "-o")
        for item in reported:
            sys.stderr.write(item.render(filename) + "\n")
        if not self.args.verify_diagnostics:
            sys.stderr.writelines(note + "\n" for note in notes)
        return EXIT_USAGE if unparsable else EXIT_FAILED if failed else EXIT_OK

    def _chunks(self, text: str, filename: str) -> tuple[list[ChunkToPlan], tuple[str, ...]]:
        """The chunks to run on: an IR-printing log's chosen dumps (with the note naming them),
        else the split chunks or the whole text."""
        if is_ir_log(text) or self.args.section is not None:
            found = input_chunks(text, filename, self.args.section)
            return list(found.chunks), found.notes
        chunks = split_chunks(text)[0] if self.args.split_input_file else [Chunk(text, 0, 1)]
        return [ChunkToPlan(chunk) for chunk in chunks], ()


@cache
def _multiverse() -> Universe:
    """The installed xDSL plugins, found once (each search reads every distribution's metadata)."""
    return Universe.get_multiverse()


def _expire() -> None:
    """The watchdog's answer past `--timeout`: the typed timeout, exit 2 (the run may be mid-step)."""
    _report(request_codes.timed_out())
    sys.stdout.flush()
    os._exit(EXIT_USAGE)


def _report(error: RequestError) -> int:
    if error.code != request_codes.INTERNAL:  # an internal fault has logged its own line
        sys.stderr.write(f"{TOOL}: error: [{error.code}] {error.message}\n")
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    try:
        tool = PlannerOptMain(mlir_argv(sys.argv[1:] if argv is None else argv))
    except SystemExit:  # help, version or a usage error: what argparse printed is checked too
        try:
            flush_stdout()
        except BrokenPipeError:
            return reader_left()
        except RequestError as unwritable:
            return _report(unwritable)
        raise
    except (ValueError, TypeError, ArgSpecParseError) as error:
        sys.stderr.write(f"{TOOL}: error: {error}\n")
        return EXIT_USAGE
    for refused in tool.refused_flags():
        sys.stderr.write(f"{TOOL}: error: {refused}\n")
        return EXIT_USAGE
    if argv is None:  # the command line's own process (a host calling main(argv) keeps its signals)
        cancel_on_signals(TOOL)
    timeout = tool.args.timeout if tool.args.timeout > 0 else None
    try:
        with watchdog(timeout and timeout + WATCHDOG_GRACE, _expire):
            if argv is None:  # measured with the watchdog's thread running, as the run goes on
                check_cap(tool.args.max_memory)
            with memory_capped(tool.args.max_memory, own_process=argv is None):
                code = tool.run_tool()
                flush_stdout()
                return code
    except BrokenPipeError:
        return reader_left()
    except Exception as exc:
        hold_if_ending()
        return _report(request_codes.to_request_error(exc, TOOL))
