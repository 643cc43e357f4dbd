"""The one place an exception becomes a typed `request.*` error (service and CLI alike)."""

from __future__ import annotations

from planner.adapters.outcome import AdapterInputError
from planner.contract import RequestError
from planner.service import codes
from planner.service.budget import BudgetExceeded


def _adapter_input(exc: AdapterInputError) -> RequestError:
    where = {"line": exc.line, "column": exc.column} if exc.line is not None else {}
    return RequestError(codes.BAD_INPUT, f"[{exc.code}] {exc.message}", {"code": exc.code, **where})


def _budget(exc: BudgetExceeded) -> RequestError:
    return RequestError(
        codes.TIMEOUT,
        "the request ran past its time budget; nothing was proven or planned "
        "(raise --timeout or split the request)",
    )


def _unavailable(exc: ModuleNotFoundError) -> RequestError:
    return RequestError(codes.UNAVAILABLE, f"a planning component is not installed: {exc}")


def _describe(exc: Exception) -> str:
    """The exception's text, or just its type when even `str()` fails (a faulty core)."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def to_request_error(exc: Exception) -> RequestError:
    """Map any failure while answering a request to a typed error; unknown ones are internal."""
    if isinstance(exc, RequestError):
        return exc
    if isinstance(exc, AdapterInputError):
        return _adapter_input(exc)
    if isinstance(exc, BudgetExceeded):
        return _budget(exc)
    if isinstance(exc, ModuleNotFoundError):
        return _unavailable(exc)
    return RequestError(
        codes.INTERNAL, f"internal error ({_describe(exc)}); please report it with the request"
    )
