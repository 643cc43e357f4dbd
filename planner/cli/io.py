"""What every command shares: limits, reading inputs, checking and writing outputs, typed errors.

Exit codes (docs/design/protocol.md): 0 planned/proven, 1 refused/conflict/refuted, 2 bad
request or bad input (typed error on stderr; a JSON error object on stdout with `--json`).
The modules behind each helper are imported inside it, so `planner --help` starts fast.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.adapters import AdapterInputError
    from planner.errors import RequestError
    from planner.limits import Limits

EXIT_OK, EXIT_REFUSED, EXIT_BAD_REQUEST = 0, 1, 2

Command = Callable[[argparse.Namespace], int]


def limits(args: argparse.Namespace) -> Limits:
    from planner.limits import Limits

    defaults = Limits()
    timeout = getattr(args, "timeout", defaults.time_budget)
    return Limits(
        max_bytes=getattr(args, "max_bytes", defaults.max_bytes),
        max_depth=getattr(args, "max_depth", defaults.max_depth),
        time_budget=timeout if timeout is not None and 0 < timeout < math.inf else None,  # 0, inf: unlimited
    )


def read_text(args: argparse.Namespace) -> str:
    from planner import inputs

    return inputs.read_text(args.file, limits(args).max_bytes)


def input_name(args: argparse.Namespace) -> str:
    """The name diagnostics give the input file."""
    name: str = "<stdin>" if args.file == "-" else args.file
    return name


def check_outputs(args: argparse.Namespace, inputs: list[str], *options: str, stdout: bool = True) -> None:
    """Refuse unsafe outputs before any work, so a refusal never follows a long plan: an input, a
    directory, or two outputs naming one file (`stdout`: the command also writes standard output)."""
    targets = [(option, target) for option in options if (target := getattr(args, option.lstrip("-")))]
    if not targets:
        return  # nothing to write: the writer (and tempfile) stays unimported
    from planner.outputs import check_distinct, check_output

    for option, target in targets:
        check_output(target, inputs, option)
    check_distinct([*targets, *([("", "-")] if stdout else [])])


def write(target: str, text: str | bytes, option: str) -> None:
    from planner.outputs import write_output

    write_output(target, text, option)


def expire_command(args: argparse.Namespace) -> Callable[[], None]:
    """What the watchdog does at the deadline: answer `request.timeout` and end the process (exit 2)."""

    def expire() -> None:
        from planner import request_codes

        fail(request_codes.timed_out(), getattr(args, "json", False))
        sys.stdout.flush()
        os._exit(EXIT_BAD_REQUEST)

    return expire


@contextmanager
def bounded(args: argparse.Namespace, own_process: bool) -> Iterator[None]:
    """Hold a command to `--max-memory` and, unless its parts have their own, to one `--timeout`.

    `own_process`: the command line's own process (`planner.limits.memory_capped`'s rule for it).

    Past the deadline and a grace for the cooperative stop (the cores stop themselves between
    steps), the watchdog answers `request.timeout` and exits 2; reading the input is inside it,
    so a FIFO with no writer times out too. `serve` bounds each message and `batch` each file.
    """
    from planner.budget import WATCHDOG_GRACE, watchdog
    from planner.limits import check_cap, memory_capped

    per = getattr(args, "bounded_per", "command")
    memory = getattr(args, "max_memory", None) if per != "message" else None  # a service caps its workers
    budget = limits(args).time_budget if per == "command" else None
    with watchdog(None if budget is None else budget + WATCHDOG_GRACE, expire_command(args)):
        if own_process:  # measured with the watchdog's thread running, as the command runs
            check_cap(getattr(args, "max_memory", None))  # a service's workers need no less
        with memory_capped(memory, own_process=own_process):
            yield


def print_text(text: str | bytes) -> None:
    """Standard output, written and flushed at once (`planner.outputs.write_stdout`)."""
    from planner.standard_output import write_stdout

    write_stdout(text)


def print_json(value: Any) -> None:
    from planner.limits import pretty_json

    print_text(pretty_json(value))


def _say(error: RequestError) -> None:
    from planner import request_codes

    if error.code != request_codes.INTERNAL:  # an internal fault has logged its own line
        sys.stderr.write(f"planner: error: [{error.code}] {error.message}\n")


def fail(error: RequestError, as_json: bool) -> int:
    from planner.errors import RequestError

    _say(error)
    if as_json:
        try:
            print_json({"error": error.to_json()})
        except RequestError as unwritable:  # the JSON copy cannot go out: a line on stderr says so
            if unwritable.message != error.message:
                _say(unwritable)
    return EXIT_BAD_REQUEST


def fail_at(filename: str, error: AdapterInputError) -> int:
    """An adapter's input error, compiler style, at the offending position (at the source position
    an op's location names, with the position in the file as a note, as diagnostics are)."""
    for each in (error, *error.others):
        where = ":".join(str(part) for part in (filename, each.line, each.column) if part is not None)
        said = f"[{each.code}] {each.message}"
        lines = each.source.render("error", said, where) if each.source else f"{where}: error: {said}"
        sys.stderr.write(lines + "\n")
    return EXIT_BAD_REQUEST


def input_error_json(error: AdapterInputError) -> dict[str, Any]:
    """An adapter's input error as the `{"code", "message", "details"}` of a JSON error document."""
    located = [
        {
            "code": each.code,
            "message": each.message,
            "line": each.line,
            "column": each.column,
            **_source_fields(each),
        }
        for each in (error, *error.others)
    ]
    return {"code": error.code, "message": error.message, "details": {"errors": located}}


def _source_fields(error: AdapterInputError) -> dict[str, Any]:
    """The source position an op's location names and its callers, when it names one."""
    if error.source is None:
        return {}
    return {"source_location": error.source.position, "called_from": list(error.source.called_from)}


def bad_params(message: str) -> RequestError:
    from planner import request_codes
    from planner.errors import RequestError

    return RequestError(request_codes.INVALID_PARAMS, message)


def adapter_options(
    pairs: list[str], section: str | None = None, target_arch: str | None = None
) -> dict[str, str]:
    """`--option KEY=VALUE` pairs as the adapter's options, with `--section` (the dump of an
    IR-printing log to plan) and `--target-arch` (the TT-Lang target) when given."""
    options = {} if section is None else {"section": section}
    if target_arch is not None:
        options["target-arch"] = target_arch
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise bad_params(f"--option expects KEY=VALUE, got {pair!r}")
        options[key] = value
    return options
