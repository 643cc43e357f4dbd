"""JSON-RPC 2.0 framing (https://www.jsonrpc.org/specification) over the method registry.

One message in (bytes), at most one message out: a response, a batch of responses, or
nothing for notifications. Every failure is an error object whose `data.code` is a typed
`request.*` code; nothing here raises for bad input.

The whole message, parsing included, runs within one deadline. Each request is answered by
a `Runner` (in this process, or a worker process that enforces the deadline); a batch
member not started by the deadline is answered `request.timeout`, while members already
answered keep their answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from planner import request_codes
from planner.budget import deadline_after, expired
from planner.contract import JsonObject
from planner.errors import RequestError
from planner.limits import Limits, dump_json, parse_json
from planner.service.methods import answer

Runner: TypeAlias = Callable[[object, object, float | None], JsonObject | RequestError]

_NO_ID = object()  # a notification: the member "id" is absent


def error_object(error: RequestError) -> dict[str, Any]:
    """The JSON-RPC `error` member for a typed request error."""
    return {
        "code": request_codes.jsonrpc_number(error.code),
        "message": error.message,
        "data": error.to_json(),
    }


def error_reply(error: RequestError) -> str:
    """A whole reply for a message whose id could not be read (section 5: `"id": null`)."""
    return dump_json(_response(None, error=error))


def _response(request_id: Any, *, result: Any = None, error: RequestError | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is None:
        body["result"] = result
    else:
        body["error"] = error_object(error)
    return body


def _valid_id(value: Any) -> bool:
    """Section 4: an id is a string, a number or null (a bool is not a number here)."""
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def _envelope_error(message: Any) -> RequestError | None:
    if not isinstance(message, dict):
        return RequestError(
            request_codes.INVALID_ENVELOPE, f"a request must be a JSON object, got {type(message).__name__}"
        )
    if message.get("jsonrpc") != "2.0":
        return RequestError(request_codes.INVALID_ENVELOPE, 'a request must carry "jsonrpc": "2.0"')
    if not isinstance(message.get("method"), str):
        return RequestError(request_codes.INVALID_ENVELOPE, 'a request must carry a string "method"')
    if not _valid_id(message.get("id")):
        return RequestError(request_codes.INVALID_ENVELOPE, '"id" must be a string, a number or null')
    extra = sorted(set(message) - {"jsonrpc", "method", "params", "id"})
    if extra:
        return RequestError(request_codes.INVALID_ENVELOPE, f"unknown request members: {', '.join(extra)}")
    return None


def _handle_one(message: Any, run: Runner, deadline: float | None) -> dict[str, Any] | None:
    """Answer one request object; None for a notification."""
    problem = _envelope_error(message)
    if problem is not None:
        request_id = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
        return _response(request_id, error=problem)
    request_id = message.get("id", _NO_ID)
    if expired(deadline):
        outcome: JsonObject | RequestError = request_codes.timed_out()
    else:
        outcome = run(message["method"], message.get("params", {}), deadline)
    if request_id is _NO_ID:
        return None
    if isinstance(outcome, RequestError):
        return _response(request_id, error=outcome)
    return _response(request_id, result=outcome)


def _handle_batch(
    messages: list[Any], limits: Limits, run: Runner, deadline: float | None
) -> list[dict[str, Any]] | dict[str, Any] | None:
    if not messages:
        return _response(
            None, error=RequestError(request_codes.EMPTY_BATCH, "a batch must hold at least one request")
        )
    if len(messages) > limits.max_batch:
        message = f"a batch holds {len(messages)} requests, above the {limits.max_batch} limit"
        return _response(None, error=RequestError(request_codes.BATCH_TOO_LARGE, message))
    replies = [reply for reply in (_handle_one(m, run, deadline) for m in messages) if reply is not None]
    return replies or None


def _reply_text(data: bytes, limits: Limits, run: Runner, deadline: float | None) -> str | None:
    try:
        message = parse_json(data, limits)
    except RequestError as error:
        return error_reply(error)
    if isinstance(message, list):
        reply = _handle_batch(message, limits, run, deadline)
    else:
        reply = _handle_one(message, run, deadline)
    return None if reply is None else dump_json(reply)


def handle_message(
    data: bytes, limits: Limits, *, run: Runner = answer, deadline: float | None = None
) -> str | None:
    """Answer one framed message (a request or a batch); None when nothing is to be sent.

    `deadline` (`time.monotonic()`) defaults to the limits' budget from now. A fault past
    the handlers (e.g. a result or error detail that is not JSON) is answered as
    `request.internal` with `"id": null`, so the service always keeps serving.
    """
    if deadline is None:
        deadline = deadline_after(limits.time_budget)
    try:
        return _reply_text(data, limits, run, deadline)
    except Exception as exc:
        return error_reply(request_codes.to_request_error(exc))
