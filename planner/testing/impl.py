"""An implementation under test: a Python callable or a command line, both JSON in, JSON out.

The harness speaks to both forms through one function type, `JsonFunction`, so every
comparison is written once. A command line is run once per request with the request JSON
on stdin and must print one JSON object on stdout within the time limit; exit status 0
(planned) and 1 (refused, a valid answer) are both answers, as for `planner call`.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from pydantic import BaseModel

JsonObject: TypeAlias = dict[str, Any]
JsonFunction: TypeAlias = Callable[[JsonObject], JsonObject]
Implementation: TypeAlias = Callable[[JsonObject], Any] | Sequence[str]
"""A callable taking the request JSON object, or a command line `[program, *args]`."""

DEFAULT_TIMEOUT_SECONDS = 20.0
ANSWER_EXIT_CODES = (0, 1)  # docs/design/protocol.md: 0 planned/proven, 1 refused (still an answer)


class ImplementationError(Exception):
    """The implementation gave no usable answer: it raised, crashed, timed out or printed non-JSON."""


def as_json_function(impl: Implementation, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> JsonFunction:
    """Either implementation form as `request JSON -> response JSON`; no answer is `ImplementationError`."""
    if callable(impl):
        return lambda request: _call_python(impl, request)
    if isinstance(impl, str | bytes) or not impl or not all(isinstance(part, str) for part in impl):
        raise TypeError(f"expected a callable or a command line as a list of strings, got {impl!r}")
    argv = list(impl)
    return lambda request: _call_command(argv, request, timeout)


def _call_python(impl: Callable[[JsonObject], Any], request: JsonObject) -> JsonObject:
    try:
        answer = impl(request)
    except Exception as exc:
        raise ImplementationError(f"the implementation raised {type(exc).__name__}: {exc}") from exc
    return _as_json_object(answer)


def _as_json_object(answer: Any) -> JsonObject:
    """Accept a pydantic response model or a JSON object; anything else is not an answer."""
    if isinstance(answer, BaseModel):
        answer = answer.model_dump(mode="json")
    if not isinstance(answer, Mapping):
        raise ImplementationError(f"expected a JSON object as the response, got {type(answer).__name__}")
    return dict(answer)


def _call_command(argv: list[str], request: JsonObject, timeout: float) -> JsonObject:
    try:
        done = subprocess.run(
            argv,
            input=json.dumps(request, sort_keys=True),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ImplementationError(f"{argv[0]} gave no answer within {timeout:g} s") from exc
    except OSError as exc:
        raise ImplementationError(f"cannot run {argv[0]}: {exc}") from exc
    if done.returncode not in ANSWER_EXIT_CODES:
        raise ImplementationError(f"{argv[0]} exited with status {done.returncode}: {_tail(done.stderr)}")
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise ImplementationError(
            f"{argv[0]} printed no JSON object on stdout: {_tail(done.stdout)}"
        ) from exc
    return _as_json_object(answer)


def _tail(text: str, limit: int = 400) -> str:
    """The end of a process's output, where the error usually is."""
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]
