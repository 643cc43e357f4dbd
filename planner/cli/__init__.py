"""The `planner` command: `main` parses the command line and runs one command.

The grammar is `planner.cli.parser`; what the commands do, `planner.cli.commands` and
`planner.cli.layout_commands`; what they share (limits, inputs, outputs, exit codes, typed errors),
`planner.cli.io`. Heavy modules are imported inside each command, so `planner --help`
starts fast.
"""

from __future__ import annotations

import os
import sys

from planner.cancellation import cancel_on_signals, hold_if_ending
from planner.cli.io import EXIT_OK, Command, bounded, fail
from planner.cli.parser import build_parser, usage_problems
from planner.standard_output import flush_stdout, reader_left

__all__ = ["build_parser", "main"]

_DEBUG_ENV = "PLANNER_DEBUG"  # planner.request_codes.DEBUG_ENV, without importing it for --help


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words)
    args = parser.parse_args(words)
    run: Command | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stdout)
        return EXIT_OK
    if args.debug:
        os.environ[_DEBUG_ENV] = "1"  # worker processes inherit it
    for problem in usage_problems(args):
        args.parser.error(problem)
    own_process = argv is None  # main(argv) is a host's in-process call: its signals stay its own
    if own_process:
        cancel_on_signals("planner")
    try:
        with bounded(args, own_process):
            code = run(args)
            flush_stdout()
            return code
    except BrokenPipeError:
        return reader_left()
    except Exception as exc:
        hold_if_ending()
        from planner.request_codes import to_request_error

        try:
            return fail(to_request_error(exc), getattr(args, "json", False))
        except BrokenPipeError:
            return reader_left()
