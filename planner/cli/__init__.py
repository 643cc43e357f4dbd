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


def _unflushed() -> int | None:
    """Flush standard output: None once it is out, else the exit code of the failure, answered
    (a full device: `request.unwritable`; a reader that left: quietly)."""
    from planner.errors import RequestError

    try:
        flush_stdout()
    except BrokenPipeError:
        return reader_left()
    except RequestError as error:
        return fail(error, as_json=False)
    return None


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words)
    try:
        args = parser.parse_args(words)
    except SystemExit:  # help, version or a usage error: what argparse printed is checked too
        unflushed = _unflushed()
        if unflushed is not None:
            return unflushed
        raise
    run: Command | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stdout)
        unflushed = _unflushed()
        return EXIT_OK if unflushed is None else unflushed
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
