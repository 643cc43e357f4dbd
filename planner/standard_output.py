"""Standard output, written and flushed by us at once, so a full disk or device is
`request.unwritable` (exit 2) rather than a short file the interpreter's last flush leaves
behind in silence; a reader that closed the pipe early is no failure of ours (`reader_left`).

Kept apart from `planner.outputs` (the file writer and its temporary files) so a command that
only prints loads no more than this.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import BinaryIO

from planner import request_codes
from planner.errors import RequestError

STDOUT = "standard output"
EXIT_READER_LEFT = 128 + signal.SIGPIPE  # what a shell reports for a Unix tool whose reader left


def write_stdout(content: str | bytes) -> None:
    """Write to standard output and flush now (text as UTF-8); a failed write is `request.unwritable`.

    `BrokenPipeError` passes through: the reader left, which `reader_left` answers.
    """
    stream = sys.stdout
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a text stream put in its place (an embedding host's)
            stream.write(content if isinstance(content, str) else content.decode("utf-8"))
            stream.flush()
            return
        stream.flush()
        buffer.write(content.encode("utf-8") if isinstance(content, str) else content)
        buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise unwritable(exc) from None


def unwritable(exc: OSError) -> RequestError:
    """A failed write to standard output, typed."""
    return RequestError(request_codes.UNWRITABLE, f"cannot write {STDOUT}: {exc.strerror or exc}")


def flush_stdout() -> None:
    """Flush whatever is left on standard output, checked as `write_stdout` checks."""
    write_stdout(b"" if getattr(sys.stdout, "buffer", None) is not None else "")


def reader_left() -> int:
    """The reader closed standard output's pipe: end quietly as a Unix tool does, with SIGPIPE's
    status. Standard output is pointed at /dev/null first, so the interpreter's last flush of what
    is still buffered cannot fail with a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no file descriptor behind stdout
        pass
    return EXIT_READER_LEFT
