"""The `request.*` codes the service, the CLI and the client raise, and their JSON-RPC 2.0 error numbers.

Validation codes (`request.unknown_field`, `request.missing_field`, ...) are defined in
`planner.contract`; this table only gives them their JSON-RPC number (invalid params).
"""

from __future__ import annotations

PARSE_ERROR = "request.parse_error"
INVALID_ENVELOPE = "request.invalid_envelope"
EMPTY_BATCH = "request.empty_batch"
BATCH_TOO_LARGE = "request.batch_too_large"
UNKNOWN_METHOD = "request.unknown_method"
INVALID_PARAMS = "request.invalid_params"
TOO_LARGE = "request.too_large"
TOO_DEEP = "request.too_deep"
TIMEOUT = "request.timeout"
BAD_INPUT = "request.bad_input"
UNAVAILABLE = "request.unavailable"
UNREADABLE = "request.unreadable"
MISSING_EXTRA = "request.missing_extra"
NOT_EXPLAINABLE = "request.not_explainable"
INTERNAL = "request.internal"
NOT_LOOPBACK = "request.not_loopback"

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
}
INVALID_PARAMS_NUMBER = -32602  # every other request.* code: the params did not validate


def jsonrpc_number(code: str) -> int:
    """The JSON-RPC `error.code` for a typed request code."""
    return JSONRPC_NUMBER.get(code, INVALID_PARAMS_NUMBER)
