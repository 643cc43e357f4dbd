"""The `request.*` codes every face raises (service, CLI, client, features), their JSON-RPC 2.0
error numbers, and the one place an exception becomes a typed `request.*` error.

Validation codes (`request.unknown_field`, `request.missing_field`, ...) are defined in
`planner.contract` and `planner.errors`; this table only gives them their JSON-RPC number (invalid params).
"""

from __future__ import annotations

import os
import sys
import traceback

from planner.budget import BudgetExceeded
from planner.errors import TOO_DEEP, InputError, RequestError, excerpt

PARSE_ERROR = "request.parse_error"
INVALID_ENVELOPE = "request.invalid_envelope"
EMPTY_BATCH = "request.empty_batch"
BATCH_TOO_LARGE = "request.batch_too_large"
UNKNOWN_METHOD = "request.unknown_method"
INVALID_PARAMS = "request.invalid_params"
TOO_LARGE = "request.too_large"
TIMEOUT = "request.timeout"
BAD_INPUT = "request.bad_input"
UNAVAILABLE = "request.unavailable"
UNREADABLE = "request.unreadable"
MISSING_EXTRA = "request.missing_extra"
NOT_EXPLAINABLE = "request.not_explainable"
INTERNAL = "request.internal"
NOT_LOOPBACK = "request.not_loopback"
OUTPUT_IS_INPUT = "request.output_is_input"
UNWRITABLE = "request.unwritable"
BAD_HTTP = "request.bad_http"
BUSY = "request.busy"
CANCELLED = "request.cancelled"  # a command stopped by SIGINT, SIGTERM or SIGHUP (exit 128 + the signal)

# Raised by the client only (planner.service.client); the service never sends them.
SERVICE_GONE = "request.service_gone"
NO_REPLY = "request.no_reply"
BAD_REPLY = "request.bad_reply"

# JSON-RPC 2.0 section 5.1: reserved numbers, plus server-defined ones in [-32099, -32000].
JSONRPC_NUMBER: dict[str, int] = {
    PARSE_ERROR: -32700,
    INVALID_ENVELOPE: -32600,
    EMPTY_BATCH: -32600,
    BATCH_TOO_LARGE: -32600,
    UNKNOWN_METHOD: -32601,
    INTERNAL: -32603,
    TOO_LARGE: -32001,
    TOO_DEEP: -32002,
    TIMEOUT: -32003,
    BAD_INPUT: -32004,
    UNAVAILABLE: -32005,
    BUSY: -32006,
}
INVALID_PARAMS_NUMBER = -32602  # every other request.* code: the params did not validate


def jsonrpc_number(code: str) -> int:
    """The JSON-RPC `error.code` for a typed request code."""
    return JSONRPC_NUMBER.get(code, INVALID_PARAMS_NUMBER)


DEBUG_ENV = "PLANNER_DEBUG"  # set by `planner --debug`; worker processes inherit it


def _describe(exc: BaseException) -> str:
    """The exception's text, or just its type when even `str()` fails (a faulty core)."""
    try:
        return excerpt(f"{type(exc).__name__}: {exc}")
    except Exception:
        return type(exc).__name__


def internal_fault(exc: BaseException, tool: str = "planner") -> RequestError:
    """Log a fault in our own code as one typed line on stderr, labelled with the `tool` that met
    it (a traceback only with --debug)."""
    error = RequestError(INTERNAL, f"internal error ({_describe(exc)}); please report it with the request")
    try:
        sys.stderr.write(f"{tool}: internal error [{INTERNAL}] {_describe(exc)}\n")
        if os.environ.get(DEBUG_ENV):
            traceback.print_exception(exc, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr is gone: the typed answer still goes out
    return error


def to_request_error(exc: Exception, tool: str = "planner") -> RequestError:
    """Map any failure while answering a request to a typed error; unknown ones are internal faults
    (logged by `internal_fault` for `tool`)."""
    if isinstance(exc, RequestError):
        return exc
    if isinstance(exc, InputError):
        where: dict[str, object] = {"line": exc.line, "column": exc.column} if exc.line is not None else {}
        source = getattr(exc, "source", None)  # an adapter's error at an op its location places
        if source is not None:
            where["source_location"] = source.position
        return RequestError(BAD_INPUT, f"[{exc.code}] {excerpt(exc.message)}", {"code": exc.code, **where})
    if isinstance(exc, BudgetExceeded):
        return timed_out()
    if isinstance(exc, ModuleNotFoundError):
        return RequestError(UNAVAILABLE, f"a planning component is not installed: {exc}")
    if isinstance(exc, MemoryError):
        return RequestError(TOO_LARGE, "the request needs more memory than the service has; split it")
    return internal_fault(exc, tool)


def timed_out() -> RequestError:
    return RequestError(
        TIMEOUT,
        "the request ran past its time budget; nothing was proven or planned "
        "(raise --timeout or split the request)",
    )
