"""Requests small enough to answer in the service's own process, skipping the worker hop.

A request goes to a worker so that the service can kill it once it overruns its deadline.
Some requests cannot overrun by more than the worker's grace (0.2 s): `planner.version`,
and a `kernelcfg.resolve` of at most `MAX_OPS` ops over at most `MAX_DFBS` buffers in at
most `MAX_BYTES` of JSON (measured as the compact JSON the service would send, `planner.limits.json_length`).
The resolver is pure Python with no solver underneath and keeps nothing of a request once it
is answered: what it keeps across requests is one table per target of folded use shapes
(`planner.kernelcfg.fold_tables`, bounded in targets and shapes), which depends on the target
alone and changes no answer. Its search branches only on each op's strategy (FPU or SFPU):
the width, the sync and the unpack modes are narrowed by each applied option, never
branched on, so it visits at most 2**MAX_OPS leaves, and validating `MAX_BYTES` of input is
linear.
`benchmarks/bench_service.py` runs a random search for the slowest such request and
checks it against the grace (a few milliseconds on two shared cores). A message past its
deadline is still `request.timeout`: the answer checks the deadline when it ends, and a
batch starts no member past it, so at most one inline member runs over, by that bound.

`planner.version` costs the same whatever is asked (`CONSTANT_TIME`): every face answers it
in the service's process, so a ping never waits for a worker busy with a long request.

`layout.plan` stays in the workers even with constant offsets and no bindings: a constant
window that does not fit is refuted through Z3 (for its counterexample), and no rule on the
request's shape bounds that solver's time or keeps its import out of the message's deadline.
"""

from __future__ import annotations

import importlib

from planner.errors import RequestError
from planner.limits import Limits, json_length, parse_json
from planner.service.methods import METHODS, load

INLINE_METHODS = ("planner.version", "kernelcfg.resolve")
CONSTANT_TIME = ("planner.version",)
MAX_OPS = 10
MAX_DFBS = 16
MAX_BYTES = 8 * 1024


def preload() -> None:
    """Import what the inline methods run, once at start: an import never lands inside a deadline."""
    for name in INLINE_METHODS:
        method = METHODS[name]
        try:
            for part in (method.request, method.handler, method.response):
                load(part)
        except RequestError:  # a core that is not installed: its requests answer `request.unavailable`
            continue
        for module in method.reaches:
            importlib.import_module(module)


def bounded(method: object, params: object) -> bool:
    """True when answering this request here cannot keep the service past the worker's grace."""
    if method not in INLINE_METHODS:
        return False
    if method == "kernelcfg.resolve":
        ops, dfbs = (params.get(key, []) if isinstance(params, dict) else None for key in ("ops", "dfbs"))
        if not (isinstance(ops, list) and isinstance(dfbs, list)):
            return False
        if len(ops) > MAX_OPS or len(dfbs) > MAX_DFBS:
            return False
    return json_length(params) <= MAX_BYTES


def needs_worker(data: bytes, limits: Limits) -> bool:
    """False when a message asks only constant-time methods (or cannot be read): the HTTP face then
    answers it on its event loop. Only messages of at most `MAX_BYTES` are read for this."""
    if len(data) > MAX_BYTES:
        return True
    try:
        message = parse_json(data, limits)
    except RequestError:
        return False
    members = message if isinstance(message, list) else [message]
    return any(isinstance(member, dict) and member.get("method") not in CONSTANT_TIME for member in members)
