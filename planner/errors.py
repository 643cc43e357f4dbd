"""The typed errors every face raises: `RequestError` (`request.*`) and `InputError` (`<reader>.<name>`).

They need nothing but the standard library, so a command that fails before any model is
built (an unreadable file, a bad option) never pays for the protocol models' library.
"""

from __future__ import annotations

from typing import Any

INVALID = "request.invalid"  # the generic `request.*` code for a request that is malformed in any other way
UNKNOWN_DTYPE = "request.unknown_dtype"  # an element type name the targets do not know
TOO_DEEP = "request.too_deep"  # JSON, an expression, bindings or IR regions nest beyond a documented limit

ECHO_LIMIT = 200  # characters of a client's input an error message may quote


def excerpt(text: str) -> str:
    """Input quoted in an error, cut to `ECHO_LIMIT` characters (a hostile name may be megabytes)."""
    return text if len(text) <= ECHO_LIMIT else f"{text[:ECHO_LIMIT]}... ({len(text)} characters)"


class RequestError(Exception):
    """A request that cannot be answered: bad JSON, bad fields, limits exceeded.

    `code` is a stable `request.<name>` string; `details` is JSON-serialisable.
    """

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            payload["details"] = self.details
        return payload


class InputError(ValueError):
    """The input is not text its reader reads (malformed IR, an unsupported construct).

    Carries a stable `<reader>.<name>` code and, where known, the 1-based line and column, so
    every face reports it at the offending position (`request.bad_input` in the protocol).
    """

    def __init__(self, code: str, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
