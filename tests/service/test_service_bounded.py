"""Which requests the stdio face answers in its own process, and that they answer as a worker would."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner import request_codes
from planner.budget import deadline_after
from planner.limits import Limits, dump_json, json_length, parse_json
from planner.service.bounded import MAX_BYTES, MAX_DFBS, MAX_OPS, bounded
from planner.service.workers import WorkerPool
from planner.testing.strategies.kernels import kernel_requests
from tests.support.hypothesis_budget import lowered
from tests.support.paths import ROOT

KERNEL: dict[str, Any] = json.loads((ROOT / "examples" / "json" / "kernelcfg-resolve.json").read_text())[
    "params"
]


def kernel(ops: int, dfbs: int = 2) -> dict[str, Any]:
    """`ops` copies of the example's first op over `dfbs` buffers."""
    first = KERNEL["ops"][0]
    return {
        **KERNEL,
        "dfbs": [{"index": i, "dtype": "f32"} for i in range(dfbs)],
        "ops": [{**first, "id": f"op{i}"} for i in range(ops)],
    }


@pytest.mark.parametrize(
    ("method", "params", "inline"),
    [
        ("planner.version", {}, True),
        ("kernelcfg.resolve", kernel(MAX_OPS), True),
        ("kernelcfg.resolve", kernel(MAX_OPS + 1), False),
        ("kernelcfg.resolve", kernel(1, MAX_DFBS + 1), False),
        ("kernelcfg.resolve", {**kernel(1), "function": "f" * MAX_BYTES}, False),
        ("planner.version", {"junk": "x" * MAX_BYTES}, False),
        ("kernelcfg.resolve", {"ops": "not a list"}, False),
        ("kernelcfg.resolve", [1], False),
        ("proofs.check", {"expr": "1"}, False),  # Z3 underneath: always a worker
        ("layout.plan", {}, False),
    ],
)
def test_only_requests_with_bounded_work_are_answered_inline(method: str, params: Any, inline: bool) -> None:
    assert bounded(method, params) is inline


@pytest.fixture(scope="module")
def pools() -> Iterator[tuple[WorkerPool, WorkerPool]]:
    with WorkerPool(1, inline=True) as inline, WorkerPool(1) as workers:
        yield inline, workers


@settings(max_examples=lowered(20))
@given(kernel_requests(max_ops=MAX_OPS, max_dfbs=4), st.booleans())
def test_an_inline_answer_is_the_workers_answer(
    pools: tuple[WorkerPool, WorkerPool], kernel_request: Any, explain: bool
) -> None:
    params = kernel_request.model_copy(update={"explain": explain}).model_dump(mode="json")
    assert bounded("kernelcfg.resolve", params)
    inline, workers = pools
    deadline = deadline_after(30)
    answered_inline = inline.run("kernelcfg.resolve", params, deadline)
    assert answered_inline == workers.run("kernelcfg.resolve", params, deadline)


def test_an_inline_answer_past_its_deadline_is_a_timeout(pools: tuple[WorkerPool, WorkerPool]) -> None:
    inline, _ = pools
    outcome = inline.run("kernelcfg.resolve", kernel(MAX_OPS), deadline_after(0))
    assert getattr(outcome, "code", None) == request_codes.TIMEOUT


def test_after_the_preload_no_inline_answer_imports_a_module() -> None:
    """A search, a refusal, an explanation and a precision account import their modules (ours,
    python-constraint, networkx) lazily in a library call; the stdio face has imported them at
    start, so none is imported inside a deadline."""
    examples = ROOT / "examples" / "json"
    probe = (
        "import json, sys\n"
        "from planner.service.bounded import preload\n"
        "from planner.service.methods import answer\n"
        "preload()\n"
        "before = set(sys.modules)\n"
        f"for name in ('kernelcfg-resolve.json', 'kernelcfg-resolve-conflict.json'):\n"
        f"    params = json.loads(open({str(examples)!r} + '/' + name).read())['params']\n"
        "    for extra in ({}, {'explain': True, 'report_precision': True}):\n"
        "        answer('kernelcfg.resolve', {**params, **extra}, None)\n"
        "roots = {name.partition('.')[0] for name in set(sys.modules) - before}\n"
        "print(json.dumps(sorted(roots & {'planner', 'constraint', 'networkx', 'z3'})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_the_size_check_measures_what_dump_json_sends(value: Any) -> None:
    parsed = parse_json(json.dumps(value).encode(), Limits())  # as the service reads it
    assert json_length(parsed) == len(dump_json(parsed))
