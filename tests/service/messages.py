"""The messages the service tests send: valid params per method, chained and hard proofs, bad HTTP."""

from __future__ import annotations

import json
from typing import Any

from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "json"

HARD = "(a*b*c) // (a*c*b) - 1"  # Z3 cannot settle it in seconds: the cooperative deadline ends it


def example(name: str) -> dict[str, Any]:
    params: dict[str, Any] = json.loads((EXAMPLES / name).read_text())["params"]
    return params


PROOF = example("proofs-check.json")
LAYOUT = example("layout-plan.json")
LAYOUT_REFUSED = example("layout-plan-refused.json")
KERNEL = example("kernelcfg-resolve.json")
VALID_PARAMS: dict[str, dict[str, Any]] = {
    "planner.version": {},
    "proofs.check": PROOF,
    "layout.plan": LAYOUT,
    "kernelcfg.resolve": KERNEL,
}


def request_line(method: str, params: Any, id: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode()


def chain(length: int) -> dict[str, Any]:
    """A `proofs.check` over `length` chained assignments, each 16 more than the one before."""
    bindings: list[dict[str, Any]] = [
        {"name": "x", "kind": "param", "min": 0, "max": 4096},
        {"name": "y0", "kind": "assign", "expr": "x * 16"},
    ]
    bindings += [{"name": f"y{i}", "kind": "assign", "expr": f"y{i - 1} + 16"} for i in range(1, length - 1)]
    return {"expr": f"y{length - 2}", "bindings": bindings, "factor": 16}


# HTTP the service refuses, each with the status it answers.
MALFORMED: dict[str, tuple[bytes, int]] = {
    "Content-Length: ²": (b"POST / HTTP/1.1\r\nContent-Length: \xc2\xb2\r\n\r\n", 400),
    "two Content-Lengths": (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}", 400),
    "no Content-Length": (b"POST / HTTP/1.1\r\nHost: x\r\n\r\n", 411),
    "chunked": (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
    "PUT": (b"PUT / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405),
    "GET": (b"GET / HTTP/1.1\r\n\r\n", 405),
    "a garbage request line": (b"\x00\x01 nonsense here now\r\n\r\n", 400),
    "a 70 KB header line": (b"POST / HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", 431),
    "150 headers": (b"POST / HTTP/1.1\r\n" + b"X: y\r\n" * 150 + b"\r\n", 431),
    "80 KB of headers in all": (
        b"POST / HTTP/1.1\r\n" + (b"X: " + b"a" * 40_000 + b"\r\n") * 2 + b"\r\n",
        431,
    ),
    "a body above --max-bytes": (b"POST / HTTP/1.1\r\nContent-Length: 4194305\r\n\r\n", 413),
    "a body shorter than its Content-Length": (b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{}", 400),
}
