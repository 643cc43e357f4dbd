"""The base of every request and response model, and how a validation failure becomes a `request.*` error.

Every protocol message is a frozen pydantic model that rejects unknown fields, so a
misspelt field is an error (`request.unknown_field`) instead of a silently ignored input.
The errors themselves are `planner.errors`', which needs no pydantic.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from planner.errors import INVALID, TOO_DEEP, UNKNOWN_DTYPE, RequestError, excerpt

JsonObject = dict[str, Any]  # a JSON object as the protocol carries it: requests, responses, reports


class ContractModel(BaseModel):
    """A protocol message: frozen, strict about unknown fields, deterministic when dumped.

    Built on first use (`defer_build`), so a command pays only for the models it touches.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


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
