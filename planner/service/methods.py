"""The method registry: name -> (request model, handler, response model), the handler the
service owns (`planner.version`), and the one dispatcher.

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

from planner import PROTOCOL_VERSION, __version__, request_codes
from planner.budget import check_deadline
from planner.contract import JsonObject, request_error_from_validation
from planner.errors import RequestError, excerpt
from planner.service.protocol import VersionRequest, VersionResponse


def _all_proven(result: JsonObject) -> bool:
    return all(entry["status"] == "proven" for entry in result["results"])


def _is_ok(result: JsonObject) -> bool:
    return bool(result["ok"])


def _always(result: JsonObject) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Method:
    """One protocol method. `succeeded` reads a result: planned/proven (exit 0) or not (exit 1).

    `reaches` names the modules the handler imports only when an answer needs them: a service
    imports them at start with the parts, so no import runs inside a message's deadline.
    """

    name: str
    request: str
    handler: str
    response: str
    succeeded: Callable[[JsonObject], bool]
    reaches: tuple[str, ...] = ()

    def modules(self) -> list[str]:
        """Every module answering this method may import: its parts' and `reaches`."""
        parts = (self.request, self.handler, self.response)
        return [part.partition(":")[0] for part in parts] + list(self.reaches)


_SERVICE = "planner.service.protocol"
_ADAPTERS = "planner.adapters.protocol"
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
            (
                "planner.kernelcfg.problem",  # a search: python-constraint
                "planner.kernelcfg.solver",
                "networkx",  # components that share no DFB, a minimal conflict
                "planner.kernelcfg.conflicts",
                "planner.kernelcfg.decisions",
                "planner.kernelcfg.precision",
            ),
        ),
        Method(
            "pypto.plan",
            f"{_ADAPTERS}:PyptoPlanRequest",
            "planner.adapters.api:plan_pypto",
            f"{_ADAPTERS}:PyptoPlanResponse",
            _is_ok,
        ),
        Method(
            "ttlang.plan",
            f"{_ADAPTERS}:AdapterPlanRequest",
            "planner.adapters.api:plan_ttlang",
            f"{_ADAPTERS}:AdapterPlanResponse",
            _is_ok,
        ),
        Method(
            "layout.suggest",
            f"{_ADAPTERS}:PyptoPlanRequest",
            "planner.advice.suggest:suggest",
            "planner.advice.protocol:LayoutSuggestResponse",
            _always,
        ),
        Method(
            "planner.version",
            f"{_SERVICE}:VersionRequest",
            "planner.service.methods:version",
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
        raise RequestError(request_codes.UNAVAILABLE, f"{reference} is not available: {exc}") from None
    return found


@cache
def _takes_deadline(handler: Callable[..., Any]) -> bool:
    """Cores that accept `deadline=` (a `time.monotonic()` instant) get the request's budget."""
    return "deadline" in inspect.signature(handler).parameters


def find_method(name: object) -> Method:
    if not isinstance(name, str) or name not in METHODS:
        known = ", ".join(sorted(METHODS))
        shown = excerpt(repr(name))
        raise RequestError(request_codes.UNKNOWN_METHOD, f"unknown method {shown}; expected one of {known}")
    return METHODS[name]


def _validate(model: type[BaseModel], params: object) -> BaseModel:
    if not isinstance(params, dict):
        raise RequestError(
            request_codes.INVALID_PARAMS, f"params must be a JSON object, got {type(params).__name__}"
        )
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise request_error_from_validation(exc) from None


def invoke(name: object, params: object, deadline: float | None) -> JsonObject:
    """Answer one request: validate, run the handler, dump the response, all by `deadline`.

    `deadline` is a `time.monotonic()` instant (None: unlimited); past it, `BudgetExceeded`.
    """
    method = find_method(name)
    request = _validate(load(method.request), params)
    handler = load(method.handler)
    response_model = load(method.response)
    check_deadline(deadline)
    response = handler(request, deadline=deadline) if _takes_deadline(handler) else handler(request)
    if not isinstance(response, response_model):
        raise TypeError(f"{method.handler} returned {type(response).__name__}, not {response_model.__name__}")
    dumped: JsonObject = response.model_dump(mode="json")
    check_deadline(deadline)
    return dumped


def answer(name: object, params: object, deadline: float | None) -> JsonObject | RequestError:
    """`invoke`, with every failure turned into a typed error (never raises for bad input)."""
    try:
        return invoke(name, params, deadline)
    except Exception as exc:
        return request_codes.to_request_error(exc)


def version(request: VersionRequest) -> VersionResponse:
    """`planner.version`: the package and protocol versions and every method served."""
    return VersionResponse(version=__version__, protocol=PROTOCOL_VERSION, methods=sorted(METHODS))
