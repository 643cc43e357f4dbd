"""A file holding several `@pl.program` classes whose methods share names: `self.f` reaches the
caller's own class's `f`, so the layout a call returns is its own class's (a test file or a model
library commonly defines one `main`, `make` or `project` per program)."""

from __future__ import annotations

import textwrap

from planner.adapters.pypto import plan_text

MAKE = """
    @pl.function(type=pl.FunctionType.InCore)
    def make(self, w: {T}, out: pl.Out[{T}]) -> {T}:
        return out
"""
PASS_ON = """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: {T}, out: pl.Out[{T}]) -> {T}:
        out = self.make(w, out)
        return out
"""
VIEW_RESULT = """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: {T}, out: pl.Out[{T}]) -> pl.Tensor[[128, 1024], pl.FP16]:
        made = self.make(w, out)
        flat = pl.tensor.view(made, [128, 1024])
        return flat
"""
ND = "pl.Tensor[[256, 512], pl.FP16]"
NZ = "pl.Tensor[[256, 512], pl.FP16, pl.NZ]"


def program(name: str, tensor: str, main: str) -> str:
    body = (MAKE + main).replace("{T}", tensor)
    return f"\n\n@pl.program\nclass {name}:{textwrap.indent(textwrap.dedent(body), '    ')}"


def two_programs(first: str, second: str) -> str:
    return "import pypto.language as pl\n" + first + second


def test_a_self_call_returns_the_layout_of_its_own_classes_method() -> None:
    """`Plain.main` views what `Plain.make` returns, an ND tensor: that plans, whichever class with a
    `make` returning NZ comes first in the file."""
    text = two_programs(program("Packed", NZ, PASS_ON), program("Plain", ND, VIEW_RESULT))
    outcome = plan_text(text, filename="two.py")
    assert outcome.ok, outcome.diagnostics


def test_an_nz_result_of_a_self_call_is_checked_by_its_own_classes_layout() -> None:
    """The same view of an NZ result is refused, with an ND `make` of another class first in the file."""
    text = two_programs(program("Plain", ND, PASS_ON), program("Packed", NZ, VIEW_RESULT))
    outcome = plan_text(text, filename="two.py")
    assert not outcome.ok
    [refusal] = [line for line in outcome.diagnostics if "error" in line]
    assert "[nz.tensor_view_of_nz]" in refusal and refusal.startswith("two.py:")
