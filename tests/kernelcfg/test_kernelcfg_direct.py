"""A kernel that needs no search is read directly: the same answers as its python-constraint problem
and the enumeration oracle, without importing python-constraint or networkx."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import networkx as nx
from hypothesis import assume, given
from hypothesis import strategies as st

from planner.kernelcfg import resolve
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.policy import normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import kernel_problem, request_target, solve_problem, state_kernel
from planner.kernelcfg.search import shared_dfb
from planner.testing.oracles.kernel_enum import enum_oracle
from planner.testing.strategies.kernels import kernel_requests


def _needs_no_search(request: KernelcfgResolveRequest) -> bool | None:
    """Whether the resolver states `request` as a kernel without a search (None: refused before)."""
    try:
        target = request_target(request)
        stated = state_kernel(target, normalize_policy(request.policy, target), collect_requirements(request))
    except KcfgError:
        return None
    return stated.statement.needs_no_search()


def _fpu_off(request: KernelcfgResolveRequest) -> KernelcfgResolveRequest:
    policy = request.policy.model_copy(update={"fpu_binary": False})
    return request.model_copy(update={"policy": policy})


def _through_the_problem(request: KernelcfgResolveRequest) -> dict[str, Any]:
    """The answer of the python-constraint problem and its full search, worded as `resolve` words it."""
    try:
        plan, warnings = solve_problem(kernel_problem(request))
    except KcfgError as error:
        return {"ok": False, "code": error.code, "message": error.message, "op": error.op}
    return {"ok": True, "plan": plan.model_dump(), "warnings": [w.model_dump() for w in warnings]}


def _answer(request: KernelcfgResolveRequest) -> dict[str, Any]:
    response = resolve(request)
    if response.conflict is not None:
        conflict = response.conflict
        return {"ok": False, "code": conflict.code, "message": conflict.message, "op": conflict.op}
    assert response.plan is not None
    return {
        "ok": True,
        "plan": response.plan.model_dump(),
        "warnings": [w.model_dump() for w in response.warnings],
    }


@given(kernel_requests(max_ops=6), st.booleans())
def test_a_kernel_without_a_search_gets_the_answer_of_its_problem_and_of_the_enumeration(
    drawn: KernelcfgResolveRequest, fpu_off: bool
) -> None:
    request = _fpu_off(drawn) if fpu_off else drawn
    assume(_needs_no_search(request))
    answer = _answer(request)
    assert answer == _through_the_problem(request)
    oracle = enum_oracle(request)
    if oracle is None:
        return
    assert answer["ok"] == oracle.satisfiable()
    if answer["ok"]:
        plan = answer["plan"]
        assert oracle.settled(plan["strategies"]) == (
            plan["dst_width"],
            plan["unpack_to_dest_fp32"],
            plan["dst_sync"],
        )


@given(kernel_requests(max_ops=6))
def test_with_the_fpu_binary_policy_off_no_kernel_needs_a_search(drawn: KernelcfgResolveRequest) -> None:
    assert _needs_no_search(_fpu_off(drawn)) in (True, None)


@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True), min_size=1, max_size=6))
def test_lists_sharing_a_dfb_are_one_component_for_networkx(read: list[list[int]]) -> None:
    graph = nx.Graph()
    for dfbs in read:
        graph.add_nodes_from(dfbs)
        graph.add_edges_from((dfbs[0], other) for other in dfbs[1:])
    hub = shared_dfb(read)
    assert (hub is not None) == bool(set.intersection(*map(set, read)))
    if hub is not None:
        assert nx.number_connected_components(graph) == 1 and all(hub in dfbs for dfbs in read)


def _f32_read(op_id: str, mnemonic: str, *dfbs: int, **extra: Any) -> dict[str, Any]:
    operands = [{"dfb": dfb} for dfb in dfbs]
    return {"id": op_id, "op": mnemonic, "operands": operands, "result_dtype": "f32", **extra}


def _imported_by_resolving(request: dict[str, Any]) -> list[str]:
    """Which of python-constraint and networkx a fresh process imports to resolve `request`."""
    probe = (
        "import json, sys\n"
        "from planner.kernelcfg import resolve\n"
        "from planner.kernelcfg.protocol import KernelcfgResolveRequest\n"
        f"response = resolve(KernelcfgResolveRequest.model_validate(json.loads({json.dumps(request)!r})))\n"
        "assert response.ok, response\n"
        "print(json.dumps([m for m in ('constraint', 'networkx') if m in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


DFBS = [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "f32"}, {"index": 2, "dtype": "f32"}]
SAME = {"same_tile_coords": True}


def test_a_kernel_without_a_search_imports_neither_python_constraint_nor_networkx() -> None:
    ops = [
        _f32_read("e", "tile_exp", 0),
        _f32_read("a", "tile_add", 0, 1, explicit_strategy="sfpu", **SAME),
        _f32_read("m", "tile_mul", 1, 2),  # SFPU only: not the same tile coordinates
        {"id": "s", "op": "tile_store", "operands": [{"value": "m"}]},
    ]
    assert _imported_by_resolving({"dfbs": DFBS, "ops": ops}) == []


def test_a_search_over_one_component_imports_python_constraint_but_not_networkx() -> None:
    ops = [_f32_read(f"a{n}", "tile_add", 0, n, **SAME) for n in (1, 2)]
    assert _imported_by_resolving({"dfbs": DFBS, "ops": ops}) == ["constraint"]
