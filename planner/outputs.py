"""Writing a result file (`-o`, `--report`, `--png`, `--graph`) so that no input and no answer is lost.

Every command writes through `open_output`, the one writer:

- an output naming an input (the same resolved path, or the same device and inode, `-` being
  the file stdin is redirected from) is refused before any work, so a refused plan never costs
  the user their source;
- a regular target (or a new one) is written to a temporary file beside it and renamed onto it
  only once the command has its whole answer: a failure or a refusal halfway leaves the old
  file as it was. The result keeps the old file's mode; a new file gets 0666 less the umask;
- anything else (a device such as /dev/null, a FIFO) is never replaced: it is written through.
  A symlink is followed, so its target is what gets written.

No two outputs of one command (standard output among them when it is written) may name the
same file, by path, link or inode (`check_distinct`).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from planner import request_codes
from planner.cancellation import done_partial, writing_partial
from planner.errors import RequestError, excerpt


def _regular_identity(status: os.stat_result) -> tuple[int, int] | None:
    """A regular file's (device, inode); other files cannot be destroyed by writing to them."""
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _identity(source: str) -> tuple[int, int] | None:
    try:
        return _regular_identity(os.fstat(0) if source == "-" else os.stat(source))
    except (OSError, ValueError):  # missing, or no stdin at all
        return None


def _same_file(output: Path, source: str) -> bool:
    if source != "-" and output.resolve() == Path(source).resolve():
        return True
    output_identity = _identity(str(output))
    return output_identity is not None and output_identity == _identity(source)


def _is_directory(output: str, option: str) -> RequestError:
    return RequestError(request_codes.UNWRITABLE, f"{option} {excerpt(output)} is a directory, not a file")


def _cannot_write(output: str, option: str, exc: OSError) -> RequestError:
    return RequestError(
        request_codes.UNWRITABLE,
        f"cannot write {option} {excerpt(output)}: {exc.strerror or exc}",
    )


def check_output(output: str, inputs: Iterable[str], option: str) -> None:
    """Refuse an output that is an input, a directory, or inside a directory that does not exist."""
    path = Path(output)
    if any(_same_file(path, source) for source in inputs):
        raise RequestError(
            request_codes.OUTPUT_IS_INPUT,
            f"{option} {excerpt(output)} is an input file; it would be overwritten",
        )
    if path.is_dir():
        raise _is_directory(output, option)
    if not path.resolve().parent.is_dir():
        raise RequestError(
            request_codes.UNWRITABLE,
            f"{option} {excerpt(output)}: the directory {excerpt(str(path.parent))} does not exist",
        )


def _new_file_mode() -> int:
    """0666 less the umask, as `open()` would create the file (the umask can only be read by setting it)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def open_output(output: str, option: str) -> Iterator[BinaryIO]:
    """A binary stream for `output`, which receives what was written only if the block completes.

    Any OS refusal (a missing directory, permissions, a full disk) is `request.unwritable`.
    """
    try:
        status: os.stat_result | None = os.stat(output)  # follows symlinks, /proc's included
    except FileNotFoundError:
        status = None
    except OSError as exc:
        raise _cannot_write(output, option, exc) from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise _is_directory(output, option)
    try:
        if status is not None and not stat.S_ISREG(status.st_mode):
            with open(output, "wb") as through:  # a device or FIFO: written through, never replaced
                yield through
            return
        with _replacing(os.path.realpath(output), status) as out:
            yield out
    except OSError as exc:
        raise _cannot_write(output, option, exc) from None


@contextmanager
def _replacing(final: str, status: os.stat_result | None) -> Iterator[BinaryIO]:
    """A temporary file beside `final`, renamed onto it (with the kept or default mode) once complete."""
    mode = stat.S_IMODE(status.st_mode) if status is not None else _new_file_mode()
    directory, name = os.path.split(final)
    handle, temporary = tempfile.mkstemp(dir=directory or ".", prefix=f".{name}.", suffix=".tmp")
    writing_partial(temporary)  # a cancelled command removes it
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
            os.fchmod(out.fileno(), mode)
        os.replace(temporary, final)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        done_partial(temporary)


def write_output(output: str, content: str | bytes, option: str) -> None:
    """Write a whole answer (text as UTF-8) to a checked output path."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with open_output(output, option) as out:
        out.write(data)


STDOUT = "standard output"


def _output_key(output: str) -> tuple[object, ...] | None:
    """What names an output's file: a regular file's (device, inode), a new file's resolved path;
    None for a device or FIFO, which writing cannot destroy (`-` is standard output)."""
    try:
        status = os.fstat(1) if output == "-" else os.stat(output)
    except FileNotFoundError:
        return ("path", os.path.realpath(output))
    except (OSError, ValueError):
        return None
    identity = _regular_identity(status)
    return None if identity is None else ("file", *identity)


def check_distinct(outputs: Iterable[tuple[str, str]]) -> None:
    """Refuse two of a command's (option, target) outputs that name the same file (`-`: stdout)."""
    seen: dict[tuple[object, ...], str] = {}
    for option, output in outputs:
        key = _output_key(output)
        if key is None:
            continue
        shown = STDOUT if output == "-" else f"{option} {excerpt(output)}"
        if key in seen:
            raise RequestError(
                request_codes.INVALID_PARAMS,
                f"{seen[key]} and {shown} name the same file; one would overwrite the other, "
                "so give each its own",
            )
        seen[key] = shown
