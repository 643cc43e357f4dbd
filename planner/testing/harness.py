"""Compare an external pass with the planner on generated requests; shrink any disagreement.

Each `check_*_pass(impl)` draws requests from the planner's own strategies, asks both the
planner and `impl` (a Python callable or a command line, JSON in and JSON out), compares
the answers semantically, and lets hypothesis shrink the first disagreement to a minimal
request. It returns the number of requests compared when there is none and raises
`PassDisagreement` (an `AssertionError`, so it fails a test) when there is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Generic, TypeVar

from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import SearchStrategy
from pydantic import BaseModel

from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs import check
from planner.proofs.protocol import ProofsCheckRequest
from planner.testing.compare_kernelcfg import compare_kernelcfg
from planner.testing.compare_layout import compare_layout
from planner.testing.compare_proofs import compare_proofs
from planner.testing.disagreement import Disagreement, Finding, PassDisagreement
from planner.testing.impl import (
    DEFAULT_TIMEOUT_SECONDS,
    Implementation,
    ImplementationError,
    JsonFunction,
    JsonObject,
    as_json_function,
)
from planner.testing.strategies.expressions import ALL_WIDTHS, proof_requests
from planner.testing.strategies.kernels import kernel_requests
from planner.testing.strategies.nz import refused_layout_requests, valid_layout_requests
from planner.testing.strategies.regions import shared_dfb_kernel_requests, wraparound_layout_requests

RequestT = TypeVar("RequestT", bound=BaseModel)
Comparison = Callable[[RequestT, JsonObject, JsonObject], list[Disagreement]]


@dataclass(frozen=True)
class PassUnderTest(Generic[RequestT]):
    """One planning method as the harness drives it: how to answer, compare and generate."""

    method: str
    answer: Callable[[RequestT], JsonObject]  # the planner's response, as JSON
    compare: Comparison[RequestT]  # (request, planner JSON, implementation JSON) -> disagreements
    requests: Callable[[], SearchStrategy[RequestT]]  # the default request strategy


def check_pass(
    spec: PassUnderTest[RequestT],
    impl: Implementation,
    *,
    requests: SearchStrategy[RequestT] | None = None,
    max_examples: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    random: Random | None = None,
) -> int:
    """Compare `impl` with the planner on generated requests; raise `PassDisagreement` with the minimal one.

    `max_examples` defaults to the active hypothesis profile's. The search is derandomized
    (the same implementation gets the same report) unless a `random` generator is given.
    """
    call = as_json_function(impl, timeout)
    compared = 0
    last: list[Finding] = []

    def disagrees(request: RequestT) -> bool:
        nonlocal compared
        compared += 1
        finding = _examine(spec, call, request)
        if finding is not None:
            last[:] = [finding]
        return finding is not None

    try:
        find(
            requests if requests is not None else spec.requests(),
            disagrees,
            settings=_search_settings(max_examples, derandomize=random is None),
            random=random,
        )
    except NoSuchExample:
        return compared
    raise PassDisagreement(last[0])


def _search_settings(max_examples: int | None, *, derandomize: bool) -> settings:
    """The active profile, without a database (a report must not depend on earlier runs) or deadline."""
    active = settings(database=None, deadline=None, derandomize=derandomize)
    if max_examples is None:
        return active
    if max_examples < 1:
        raise ValueError(f"max_examples must be positive, got {max_examples}")
    return settings(active, max_examples=max_examples)


def _examine(spec: PassUnderTest[RequestT], call: JsonFunction, request: RequestT) -> Finding | None:
    """Both answers to one request and what differs between them, or None when they agree."""
    planned = spec.answer(request)
    try:
        answered = call(request.model_dump(mode="json"))
    except ImplementationError as exc:
        return Finding(spec.method, request, (Disagreement("response", str(exc)),), planned, None)
    found = spec.compare(request, planned, answered)
    return Finding(spec.method, request, tuple(found), planned, answered) if found else None


def _proof_requests() -> SearchStrategy[ProofsCheckRequest]:
    """Small widths the oracle can exhaust, and every width with the prover alone."""
    return st.one_of(proof_requests(), proof_requests(widths=ALL_WIDTHS, exhaustive=False))


def _layout_requests() -> SearchStrategy[LayoutPlanRequest]:
    """Accepted programs, programs with one known violation, and offsets that wrap."""
    return st.one_of(
        valid_layout_requests(),
        refused_layout_requests().map(lambda pair: pair[0]),
        wraparound_layout_requests(),
    )


def _kernel_requests() -> SearchStrategy[KernelcfgResolveRequest]:
    """Kernels over the whole op vocabulary, and kernels where greedy FPU empties a DFB's domain."""
    return st.one_of(kernel_requests(), shared_dfb_kernel_requests())


def _as_json(response: BaseModel) -> JsonObject:
    return response.model_dump(mode="json")


PROOFS = PassUnderTest[ProofsCheckRequest](
    "proofs.check", lambda r: _as_json(check(r)), compare_proofs, _proof_requests
)
LAYOUT = PassUnderTest[LayoutPlanRequest](
    "layout.plan", lambda r: _as_json(plan(r)), compare_layout, _layout_requests
)
KERNELCFG = PassUnderTest[KernelcfgResolveRequest](
    "kernelcfg.resolve", lambda r: _as_json(resolve(r)), compare_kernelcfg, _kernel_requests
)


def check_proofs_pass(
    impl: Implementation,
    *,
    requests: SearchStrategy[ProofsCheckRequest] | None = None,
    max_examples: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    random: Random | None = None,
) -> int:
    """Compare an offset prover with `proofs.check`: every `proven` / `refuted` verdict must match."""
    return check_pass(
        PROOFS, impl, requests=requests, max_examples=max_examples, timeout=timeout, random=random
    )


def check_layout_pass(
    impl: Implementation,
    *,
    requests: SearchStrategy[LayoutPlanRequest] | None = None,
    max_examples: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    random: Random | None = None,
) -> int:
    """Compare an NZ layout pass with `layout.plan`: acceptance, refusal codes, every coordinate's value."""
    return check_pass(
        LAYOUT, impl, requests=requests, max_examples=max_examples, timeout=timeout, random=random
    )


def check_kernelcfg_pass(
    impl: Implementation,
    *,
    requests: SearchStrategy[KernelcfgResolveRequest] | None = None,
    max_examples: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    random: Random | None = None,
) -> int:
    """Compare a kernel-config pass with `kernelcfg.resolve`: the plan, warnings or conflict code."""
    return check_pass(
        KERNELCFG, impl, requests=requests, max_examples=max_examples, timeout=timeout, random=random
    )
