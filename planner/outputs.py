"""Writing a result file (`-o`, `--report`) without ever writing over an input.

An output naming an input file (the same resolved path, or another name of the same file)
is refused before anything is planned, so a refused plan never costs the user their source.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from planner import request_codes
from planner.contract import RequestError


def _same_file(output: Path, source: str) -> bool:
    if source == "-":
        return False
    if output.resolve() == Path(source).resolve():
        return True
    try:
        return os.path.samefile(output, source)
    except OSError:  # either side does not exist (yet): they cannot be one file
        return False


def check_output(output: str, inputs: Iterable[str], option: str) -> None:
    """Refuse an output that is an input, a directory, or inside a directory that does not exist."""
    path = Path(output)
    if any(_same_file(path, source) for source in inputs):
        raise RequestError(
            request_codes.OUTPUT_IS_INPUT,
            f"{option} {request_codes.excerpt(output)} is an input file; it would be overwritten",
        )
    if path.is_dir():
        raise RequestError(
            request_codes.UNWRITABLE, f"{option} {request_codes.excerpt(output)} is a directory, not a file"
        )
    if not path.resolve().parent.is_dir():
        raise RequestError(
            request_codes.UNWRITABLE,
            f"{option} {request_codes.excerpt(output)}: the directory {path.parent} does not exist",
        )


def write_output(output: str, text: str, option: str) -> None:
    """Write `text` to a checked output path; an OS refusal (permissions, full disk) is a typed error."""
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RequestError(
            request_codes.UNWRITABLE,
            f"cannot write {option} {request_codes.excerpt(output)}: {exc.strerror or exc}",
        ) from None
