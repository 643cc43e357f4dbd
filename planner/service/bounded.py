"""Requests small enough to answer in the service's own process, skipping the worker hop.

A request goes to a worker so that the service can kill it once it overruns its deadline.
Some requests cannot overrun by more than the worker's grace (0.2 s): `planner.version`,
and a `kernelcfg.resolve` of at most `MAX_OPS` ops over at most `MAX_DFBS` buffers in at
most `MAX_BYTES` of JSON. The resolver is pure Python with no solver underneath and keeps
no state between requests; its search branches only on each op's strategy (FPU or SFPU),
so it visits at most 2**MAX_OPS leaves, and validating `MAX_BYTES` of input is linear.
`benchmarks/bench_service.py` runs a targeted search for the slowest such request and
checks it against the grace (a few milliseconds on two shared cores). A message past its
deadline is still `request.timeout`: the answer checks the deadline when it ends, and a
batch starts no member past it, so at most one inline member runs over, by that bound.
"""

from __future__ import annotations

from planner.service.limits import dump_json

MAX_OPS = 10
MAX_DFBS = 16
MAX_BYTES = 8 * 1024


def bounded(method: object, params: object) -> bool:
    """True when answering this request here cannot keep the service past the worker's grace."""
    if method == "kernelcfg.resolve" and isinstance(params, dict):
        ops, dfbs = params.get("ops", []), params.get("dfbs", [])
        if not (isinstance(ops, list) and isinstance(dfbs, list)):
            return False
        if len(ops) > MAX_OPS or len(dfbs) > MAX_DFBS:
            return False
    elif method != "planner.version":
        return False
    return len(dump_json(params)) <= MAX_BYTES
