"""`planner explain-conflict`: golden text, JSON form, and the conflict graph."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from planner.cli import main
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"

TTLANG_CONFLICT = (
    "ttlang/unpack_conflict.mlir:10:10: error: [kcfg.dfb_unpack_conflict] op 'row', operand 0: "
    "'ttl.tile_bcast' op dataflow buffer 1 requires incompatible unpack modes in one kernel\n"
    "ttlang/unpack_conflict.mlir:9:8: note: op 'e', operand 0: operand 0 establishes the "
    "conflicting unpack mode\n"
    "ttlang/unpack_conflict.mlir:10:10: note: requirement r4: op 'e', operand 0 (DFB 1, f32): "
    "rule dfb_input allows 32:unpack_to_dest [tile_exp e operand 0 reads DFB 1 via Dst]\n"
    "ttlang/unpack_conflict.mlir:10:10: note: requirement r5: op 'row', operand 0 (DFB 1, f32): "
    "rule dfb_input allows 16:default | 32:default [tile_bcast row operand 0 reads DFB 1 via "
    "DataflowBuffer]\n"
    "ttlang/unpack_conflict.mlir:10:10: note: minimal conflicting set: {r4, r5}\n"
    "ttlang/unpack_conflict.mlir:10:10: note: correction (verified): read operand 0 of ttl.tile_exp 'e' "
    "from its own dataflow buffer: a copy of DFB 1 in new index 0 (the lowest undeclared index within "
    "the conservative 32-DFB-index capacity used when target metadata is absent)\n"
    "ttlang/unpack_conflict.mlir:10:10: note: correction (verified): read operand 0 of ttl.tile_bcast "
    "'row' from its own dataflow buffer: a copy of DFB 1 in new index 0 (the lowest undeclared index "
    "within the conservative 32-DFB-index capacity used when target metadata is absent)\n"
)

NZ_REFUSAL = (
    "json/layout-plan-refused.json:@main: error: [nz.offset_unprovable_sign] op 'l0', tensor "
    "'w', axis -2: NZ layout requires the slice offset on shape[-2] to be non-negative, and n0 "
    "cannot be proven so (refuted: nb = 0 gives n0 = -256); a negative coordinate would be "
    "clamped to fractal 0 and read the wrong data. Fix: bind the offset so it is provably "
    "non-negative: products and sums of non-negative values, loops with non-negative start and "
    "step, lane indices; bound the loop or lane range so nothing wraps.\n"
    "json/layout-plan-refused.json:@main: note: failed obligation on op 'l0' axis -2: "
    "non_negative(n0) is refuted; counterexample: n0 = -256, nb = 0\n"
)

PROOF_REFUTED = (
    "json/proofs-check-refuted.json: error: multiple_of(n0) is refuted; counterexample: n0 = 8, nb = 1\n"
)


@pytest.fixture(autouse=True)
def in_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths, so the golden text does not depend on where the checkout lives."""
    monkeypatch.chdir(EXAMPLES)


def explain(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["explain-conflict", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_png_graph_is_drawn(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    graph = tmp_path / "g.png"
    assert explain(capsys, "ttlang/unpack_conflict.mlir", "--graph", str(graph))[0] == 1
    assert graph.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("source", "golden"),
    [
        ("ttlang/unpack_conflict.mlir", TTLANG_CONFLICT),
        ("json/layout-plan-refused.json", NZ_REFUSAL),
        ("json/proofs-check-refuted.json", PROOF_REFUTED),
    ],
)
def test_golden_explanations(capsys: pytest.CaptureFixture[str], source: str, golden: str) -> None:
    assert explain(capsys, source) == (1, golden, "")


def test_json_request_conflict_names_both_requirements(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = explain(capsys, "json/kernelcfg-resolve-conflict.json")
    assert code == 1
    error, note, *requirements, minimal, split_exp, split_bcast = out.splitlines()
    assert error.startswith(
        "json/kernelcfg-resolve-conflict.json:@exp_and_bcast: error: [kcfg.dfb_unpack_conflict]"
    )
    assert "op 'exp0', operand 0" in note
    assert [r.split("requirement ")[1][:2] for r in requirements] == ["r4", "r5"]
    assert all("DFB 1, f32" in r for r in requirements)
    assert minimal.endswith("minimal conflicting set: {r4, r5}")
    assert split_exp.split(": note: ")[1].startswith(
        "correction (verified): read operand 0 of ttl.tile_exp 'exp0' from its own dataflow buffer: "
        "a copy of DFB 1 in new index 0"
    )
    assert "read operand 0 of ttl.tile_bcast 'bcast0'" in split_bcast


def test_no_conflict_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = explain(capsys, "ttlang/f32_unpack.mlir")
    assert (code, out) == (0, "ttlang/f32_unpack.mlir: no conflict: every request planned or proven\n")


def test_json_output_carries_the_core_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = explain(capsys, "ttlang/unpack_conflict.mlir", "--json")
    assert code == 1
    document = json.loads(out)
    assert document["refused"] is True
    assert document["explanation"]["function"] == "exp_and_bcast"
    assert document["explanation"]["response"]["conflict"]["minimal_conflict"] == ["r4", "r5"]


def test_dot_graph_highlights_the_minimal_conflict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    graph = tmp_path / "conflict.dot"
    assert explain(capsys, "ttlang/unpack_conflict.mlir", "--graph", str(graph))[0] == 1
    text = graph.read_text()
    red = [line for line in text.splitlines() if 'color="red"' in line]
    assert text.startswith('digraph "exp_and_bcast" {')
    assert '"op:row" [color="red"' in red[0]
    assert sorted(line.split("label=")[1][1:3] for line in red[1:]) == ["r4", "r5"]
    assert all('"unpack:1"' in line for line in red[1:])
    first = text
    explain(capsys, "ttlang/unpack_conflict.mlir", "--graph", str(graph))
    assert graph.read_text() == first


def test_dot_graph_of_an_nz_refusal_marks_the_op(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    graph = tmp_path / "nz.dot"
    assert explain(capsys, "json/layout-plan-refused.json", "--graph", str(graph))[0] == 1
    assert 'xlabel="nz.offset_unprovable_sign"' in graph.read_text()


def test_png_graph_without_matplotlib_is_a_typed_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a)
    )
    code, out, err = explain(capsys, "ttlang/unpack_conflict.mlir", "--graph", str(tmp_path / "g.png"))
    assert (code, out) == (2, "")
    assert (
        err == "planner: error: [request.missing_extra] drawing a PNG needs matplotlib: "
        "pip install 'tile-planner[viz]'\n"
    )


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["ttlang/unpack_conflict.mlir", "--graph", "g.svg"],
            "[request.invalid_params] --graph writes .dot or .png",
        ),
        (["json/proofs-check-refuted.json", "--graph", "g.dot"], "[request.not_explainable]"),
        (["missing.mlir"], "[request.unreadable]"),
    ],
)
def test_bad_explain_requests_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], needle: str
) -> None:
    argv = [str(tmp_path / a) if a.startswith("g.") else a for a in argv]
    code, _, err = explain(capsys, *argv)
    assert code == 2
    assert needle in err


def test_pypto_refusal_shows_the_failed_obligation_at_its_source_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = explain(capsys, "pypto/refused_wrapping_offset.py")
    assert code == 1
    error, *notes = out.splitlines()
    assert error.split(": error: ")[1].startswith("[nz.offset_unprovable_sign]")
    location = error.split(": error: ")[0]
    assert location.startswith("pypto/refused_wrapping_offset.py:")
    assert [note.split(": note: ")[1].split(":")[0] for note in notes] == [
        "failed obligation on op 'load0' axis -2"
    ]
    assert all(note.startswith(location) for note in notes)
    assert "counterexample: n0 = -256, nb = 0" in notes[0]


def test_adapter_request_in_json_shows_the_adapter_diagnostics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (EXAMPLES / "ttlang" / "unpack_conflict.mlir").read_text()
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"method": "ttlang.plan", "params": {"text": text, "filename": "k.mlir"}}))
    code, out, _ = explain(capsys, str(request))
    assert code == 1
    assert out.splitlines()[0].startswith("k.mlir:10:10: error: 'ttl.tile_bcast' op dataflow buffer 1")
