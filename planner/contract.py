"""The base of every request and response model, the typed `request.*` errors and input errors.

Every protocol message is a frozen pydantic model that rejects unknown fields, so a
misspelt field is an error (`request.unknown_field`) instead of a silently ignored input.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

INVALID = "request.invalid"  # the generic `request.*` code for a request that is malformed in any other way
UNKNOWN_DTYPE = "request.unknown_dtype"  # an element type name the targets do not know
TOO_DEEP = "request.too_deep"  # JSON, an expression, bindings or IR regions nest beyond a documented limit

ECHO_LIMIT = 200  # characters of a client's input an error message may quote

JsonObject = dict[str, Any]  # a JSON object as the protocol carries it: requests, responses, reports


def excerpt(text: str) -> str:
    """Input quoted in an error, cut to `ECHO_LIMIT` characters (a hostile name may be megabytes)."""
    return text if len(text) <= ECHO_LIMIT else f"{text[:ECHO_LIMIT]}... ({len(text)} characters)"


class ContractModel(BaseModel):
    """A protocol message: frozen, strict about unknown fields, deterministic when dumped.

    Built on first use (`defer_build`), so a command pays only for the models it touches.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


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


# pydantic error types that have a dedicated request code; everything else is request.invalid.
_CODE_BY_PYDANTIC_TYPE = {
    "extra_forbidden": "request.unknown_field",
    "missing": "request.missing_field",
    "unknown_dtype": UNKNOWN_DTYPE,
    "bad_expression": "request.bad_expression",
    "too_deep": TOO_DEEP,
}


def request_error_from_validation(exc: ValidationError) -> RequestError:
    """Turn a pydantic validation failure into one typed error naming every bad field."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    codes = [_CODE_BY_PYDANTIC_TYPE.get(err["type"], INVALID) for err in errors]
    code = codes[0] if len(set(codes)) == 1 else INVALID
    details = [
        {
            "field": excerpt(".".join(str(part) for part in err["loc"])),
            "type": err["type"],
            "message": excerpt(err["msg"]),
        }
        for err in errors
    ]
    summary = "; ".join(f"{d['field'] or '<root>'}: {d['message']}" for d in details)
    return RequestError(code, f"invalid request: {summary}", details)
