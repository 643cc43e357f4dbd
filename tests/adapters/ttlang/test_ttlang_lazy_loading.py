"""A small TT-Lang kernel pays only for what it names: through `planner-opt` and `planner plan`, the
upstream dialects it does not use are never imported, and of the TTL ops made at run time (the
elementwise families, the ops made from records: those no module holds as a class) only the ones
it writes are made.

Each run is a fresh interpreter; the ops a kernel names are read from its text by a pattern of
this test's own, not by the adapter's reader.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

KERNELS = ROOT / "examples" / "ttlang"
UNUSED_UPSTREAM = ("xdsl.dialects.tensor", "xdsl.dialects.memref", "xdsl.dialects.scf")
_OP_NAME = re.compile(r"^\s*(?:%[\w, %:]+=\s*)?(ttl\.[\w.]+)", re.MULTILINE)

_PROBE = """
import contextlib, io, json, sys
from xdsl.irdl import IRDLOperation

def run():
    if sys.argv[1] == "opt":
        from planner.adapters.ttlang.opt_main import main
        return main([sys.argv[2], "-p", "ttl-set-compute-kernel-config"])
    from planner.cli import main
    return main(["plan", sys.argv[2]])

with contextlib.redirect_stdout(io.StringIO()):
    status = run()

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

def made_at_run_time(op):
    return getattr(sys.modules[op.__module__], op.__name__, None) is not op

defined = [op for op in subclasses(IRDLOperation) if "get_irdl_definition" in vars(op)]
ops = [op for op in defined if op.name.startswith("ttl.")]
made = sorted(op.name for op in ops if made_at_run_time(op))
written_out = sorted(op.name for op in ops if not made_at_run_time(op))
found = {"status": status, "modules": sorted(sys.modules), "made": made, "written_out": written_out}
print(json.dumps(found))
"""


def _run(face: str, kernel: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, face, str(kernel)], capture_output=True, text=True, check=True
    )
    found: dict[str, object] = json.loads(result.stdout)
    return found


def written_ttl_ops(text: str) -> list[str]:
    """The `ttl.*` ops a kernel writes: names opening a line, after any result names."""
    return sorted(set(_OP_NAME.findall(text)))


def test_the_pattern_reads_op_names_not_types_or_attributes() -> None:
    text = (
        "module attributes {ttl.target_arch = #ttcore.arch<wormhole_b0>} {\n"
        "  %cb = ttl.bind_cb {cb_index = 0} : !ttl.cb<[1, 1], f32, 2>\n"
        "  %a, %b:2 = ttl.pipe_transfer.create %p : !ttl.pipe -> !ttl.transfer\n"
        "  ttl.yield\n}\n"
    )
    assert written_ttl_ops(text) == ["ttl.bind_cb", "ttl.pipe_transfer.create", "ttl.yield"]


@pytest.mark.parametrize("face", ["opt", "plan"])
@pytest.mark.parametrize("kernel", ["fpu_sfpu_mix.mlir", "reduce_preference.mlir"])
def test_a_small_kernel_loads_only_what_it_names(face: str, kernel: str) -> None:
    path = KERNELS / kernel
    found = _run(face, path)
    assert found["status"] == 0
    modules = found["modules"]
    assert isinstance(modules, list)
    assert [name for name in UNUSED_UPSTREAM if name in modules] == []
    made, written_out = found["made"], found["written_out"]
    assert isinstance(made, list) and isinstance(written_out, list)
    written = written_ttl_ops(path.read_text())
    assert made == [name for name in written if name not in written_out]
