"""The method registry: name -> (request model, handler, response model), and the one dispatcher.

Every entry names its parts by import path, so listing the methods costs nothing and a core
that is not installed yields a typed `request.unavailable` instead of an import failure.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from planner.contract import RequestError, request_error_from_validation
from planner.service import codes
from planner.service.budget import time_budget
from planner.service.errors import to_request_error

JsonObject = dict[str, Any]


def _all_proven(result: JsonObject) -> bool:
    return all(entry["status"] == "proven" for entry in result["results"])


def _is_ok(result: JsonObject) -> bool:
    return bool(result["ok"])


def _always(result: JsonObject) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Method:
    """One protocol method. `succeeded` reads a result: planned/proven (exit 0) or not (exit 1)."""

    name: str
    request: str
    handler: str
    response: str
    succeeded: Callable[[JsonObject], bool]


_SERVICE = "planner.service.protocol"
METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "proofs.check",
            "planner.proofs.protocol:ProofsCheckRequest",
            "planner.proofs:check",
            "planner.proofs.protocol:ProofsCheckResponse",
            _all_proven,
        ),
        Method(
            "layout.plan",
            "planner.layout.protocol:LayoutPlanRequest",
            "planner.layout:plan",
            "planner.layout.protocol:LayoutPlanResponse",
            _is_ok,
        ),
        Method(
            "kernelcfg.resolve",
            "planner.kernelcfg.protocol:KernelcfgResolveRequest",
            "planner.kernelcfg:resolve",
            "planner.kernelcfg:KernelcfgResolveResponse",
            _is_ok,
        ),
        Method(
            "pypto.plan",
            f"{_SERVICE}:AdapterPlanRequest",
            "planner.service.handlers:plan_pypto",
            f"{_SERVICE}:AdapterPlanResponse",
            _is_ok,
        ),
        Method(
            "ttlang.plan",
            f"{_SERVICE}:AdapterPlanRequest",
            "planner.service.handlers:plan_ttlang",
            f"{_SERVICE}:AdapterPlanResponse",
            _is_ok,
        ),
        Method(
            "layout.suggest",
            f"{_SERVICE}:AdapterPlanRequest",
            "planner.service.suggest:suggest",
            f"{_SERVICE}:LayoutSuggestResponse",
            _always,
        ),
        Method(
            "planner.version",
            f"{_SERVICE}:VersionRequest",
            "planner.service.handlers:version",
            f"{_SERVICE}:VersionResponse",
            _always,
        ),
    )
}


@cache
def load(reference: str) -> Any:
    """Import `module:attribute`; a missing module or attribute is `request.unavailable`."""
    module_name, _, attribute = reference.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise RequestError(codes.UNAVAILABLE, f"{reference} is not available: {exc}") from None
    return found


@cache
def _takes_deadline(handler: Callable[..., Any]) -> bool:
    """Cores that accept `deadline=` (a `time.monotonic()` instant) get the request's budget."""
    return "deadline" in inspect.signature(handler).parameters


def find_method(name: object) -> Method:
    if not isinstance(name, str) or name not in METHODS:
        known = ", ".join(sorted(METHODS))
        raise RequestError(codes.UNKNOWN_METHOD, f"unknown method {name!r}; expected one of {known}")
    return METHODS[name]


def _validate(model: type[BaseModel], params: object) -> BaseModel:
    if not isinstance(params, dict):
        raise RequestError(codes.INVALID_PARAMS, f"params must be a JSON object, got {type(params).__name__}")
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise request_error_from_validation(exc) from None


def invoke(name: object, params: object, budget: float | None) -> JsonObject:
    """Answer one request: validate, run the handler within the budget, dump the response."""
    method = find_method(name)
    request = _validate(load(method.request), params)
    handler = load(method.handler)
    response_model = load(method.response)
    with time_budget(budget) as deadline:
        response = handler(request, deadline=deadline) if _takes_deadline(handler) else handler(request)
    if not isinstance(response, response_model):
        raise TypeError(f"{method.handler} returned {type(response).__name__}, not {response_model.__name__}")
    dumped: JsonObject = response.model_dump(mode="json")
    return dumped


def answer(name: object, params: object, budget: float | None) -> JsonObject | RequestError:
    """`invoke`, with every failure turned into a typed error (never raises for bad input)."""
    try:
        return invoke(name, params, budget)
    except Exception as exc:
        return to_request_error(exc)
