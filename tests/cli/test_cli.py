"""`planner` commands: exit codes, outputs, schema check, batch, layout show, cold start."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli import main
from planner.service import schemas
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
PLANNER = str(Path(sys.executable).with_name("planner"))
HEAVY_MODULES = ("pydantic", "z3", "xdsl", "networkx", "numpy", "planner.service.methods")


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_imports_nothing_heavy() -> None:
    probe = (
        "import sys\nfrom planner.cli import build_parser\nbuild_parser().format_help()\n"
        f"print([m for m in {HEAVY_MODULES!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_help_exits_zero_and_lists_every_command() -> None:
    result = subprocess.run([PLANNER, "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for command in ("plan", "call", "serve", "schema", "explain-conflict", "layout", "batch"):
        assert command in result.stdout


@pytest.mark.parametrize(
    ("example", "method", "code"),
    [
        ("layout-plan.json", "layout.plan", 0),
        ("layout-plan-refused.json", "layout.plan", 1),
        ("proofs-check.json", "proofs.check", 0),
        ("proofs-check-refuted.json", "proofs.check", 1),
        ("kernelcfg-resolve.json", "kernelcfg.resolve", 0),
        ("kernelcfg-resolve-conflict.json", "kernelcfg.resolve", 1),
        ("planner-version.json", "planner.version", 0),
    ],
)
def test_call_exit_code_follows_the_answer(
    capsys: pytest.CaptureFixture[str], example: str, method: str, code: int
) -> None:
    exit_code, out, err = run_main(capsys, "call", method, str(EXAMPLES / "json" / example))
    assert exit_code == code
    assert err == ""
    assert isinstance(json.loads(out), dict)


def test_call_output_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("call", "layout.plan", str(EXAMPLES / "json" / "layout-plan.json"))
    assert run_main(capsys, *args) == run_main(capsys, *args)


def test_call_accepts_bare_params(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    envelope = json.loads((EXAMPLES / "json" / "proofs-check.json").read_text())
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(envelope["params"]))
    assert run_main(capsys, "call", "proofs.check", str(bare))[0] == 0


@pytest.mark.parametrize(
    ("content", "method", "code"),
    [
        ("{not json", "proofs.check", "request.parse_error"),
        ('{"expr": "n", "bogus": 1}', "proofs.check", "request.unknown_field"),
        ("{}", "no.such", "request.unknown_method"),
        ('{"method": "layout.plan", "params": {}}', "proofs.check", "request.invalid_params"),
        ("[" * 100 + "]" * 100, "proofs.check", "request.too_deep"),
    ],
)
def test_call_bad_request_exits_2_with_typed_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, method: str, code: str
) -> None:
    path = tmp_path / "request.json"
    path.write_text(content)
    exit_code, out, err = run_main(capsys, "call", method, str(path), "--json")
    assert exit_code == 2
    assert err.startswith(f"planner: error: [{code}] ")
    assert json.loads(out)["error"]["code"] == code


def test_call_missing_file_is_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    exit_code, out, err = run_main(capsys, "call", "proofs.check", str(tmp_path / "absent.json"))
    assert (exit_code, out) == (2, "")
    assert "[request.unreadable]" in err


def test_call_reads_stdin() -> None:
    request = (EXAMPLES / "json" / "proofs-check.json").read_text()
    result = subprocess.run(
        [PLANNER, "call", "proofs.check", "-"], input=request, capture_output=True, text=True
    )
    assert result.returncode == 0
    assert [r["status"] for r in json.loads(result.stdout)["results"]] == ["proven", "proven"]


def test_checked_in_schemas_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "schema", "--check", "--dir", str(ROOT / "schemas")) == (0, "", "")


def test_schema_check_names_stale_missing_and_extra_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    directory = tmp_path / "schemas"
    assert run_main(capsys, "schema", "--dir", str(directory))[0] == 0
    (directory / "proofs.check.request.json").write_text("{}\n")
    (directory / "layout.plan.response.json").unlink()
    (directory / "old.method.request.json").write_text("{}\n")
    exit_code, _, err = run_main(capsys, "schema", "--check", "--dir", str(directory))
    assert exit_code == 1
    assert "proofs.check.request.json: stale" in err
    assert "layout.plan.response.json: missing" in err
    assert "old.method.request.json: not generated by any method" in err


def test_schema_generation_is_byte_identical() -> None:
    first, missing = schemas.generate()
    assert missing == []
    assert first == schemas.generate()[0]
    assert [f.name for f in first] == sorted(f.name for f in first)
    assert all(json.loads(f.text)["additionalProperties"] is False for f in first if ".request." in f.name)


def test_plan_writes_planned_ir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = EXAMPLES / "pypto" / "nz_matmul_spmd.py"
    out, report = tmp_path / "planned.py", tmp_path / "report.json"
    exit_code, stdout, _ = run_main(capsys, "plan", str(source), "-o", str(out), "--report", str(report))
    assert (exit_code, stdout) == (0, "")
    assert out.read_text() != source.read_text()
    assert "pl.NZ" in out.read_text()
    assert json.loads(report.read_text())["functions"]


def test_plan_refusal_exits_1_with_diagnostics(capsys: pytest.CaptureFixture[str]) -> None:
    source = EXAMPLES / "ttlang" / "unpack_conflict.mlir"
    exit_code, out, err = run_main(capsys, "plan", str(source))
    assert (exit_code, out) == (1, "")
    assert "error: 'ttl.tile_bcast' op dataflow buffer 1 requires incompatible unpack modes" in err


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        ("notes.txt", "hello", "adapter.unknown_format"),
        ("broken.mlir", "func.func @k( {", "adapter."),
        ("broken.py", "# pypto.program: X\nclass (", "adapter."),
    ],
)
def test_plan_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: str, code: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    exit_code, out, err = run_main(capsys, "plan", str(path))
    assert (exit_code, out) == (2, "")
    assert f"[{code}" in err


def test_plan_rejects_malformed_option(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(EXAMPLES / "pypto" / "nz_matmul_spmd.py")
    exit_code, _, err = run_main(capsys, "plan", source, "--option", "novalue")
    assert exit_code == 2
    assert "[request.invalid_params] --option expects KEY=VALUE" in err


LAYOUT_SHOW_64_FP16 = """\
[64, 64] FP16: NZ blocked [1, 4, 4, 16, 16], strides [4096, 1024, 256, 16, 1]
c0 = 16: each fractal holds 16 rows x 16 columns; a cell is the fractal's index in memory order \
(fractals run down the rows first)
              cols 0..15  cols 16..31  cols 32..47  cols 48..63
rows 0..15             0            4            8           12
rows 16..31            1            5            9           13
rows 32..47            2            6           10           14
rows 48..63            3            7           11           15
"""


def test_layout_show_text_grid(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "layout", "show", "[64, 64] FP16") == (0, LAYOUT_SHOW_64_FP16, "")


def test_layout_show_batch_and_int8(capsys: pytest.CaptureFixture[str]) -> None:
    exit_code, out, _ = run_main(capsys, "layout", "show", "[2, 32, 64] INT8")
    assert exit_code == 0
    assert (
        out.splitlines()[0]
        == "[2, 32, 64] INT8: NZ blocked [2, 2, 2, 16, 32], strides [2048, 1024, 512, 32, 1]"
    )
    assert "batch b (of 2) adds b * 4 to every index" in out
    assert out.splitlines()[-1].split()[-2:] == ["1", "3"]


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("64x64 FP16", "request.invalid_params"),
        ("[64, 60] FP16", "nz.cols_not_multiple_of_c0"),
        ("[64, 64] FP4", "nz.sub_byte_dtype"),
        ("[64, 64] NOPE", "request.unknown_dtype"),
    ],
)
def test_layout_show_refuses_bad_specs(capsys: pytest.CaptureFixture[str], spec: str, needle: str) -> None:
    exit_code, _, err = run_main(capsys, "layout", "show", spec)
    assert exit_code == 2
    assert needle in err


def hide_module(monkeypatch: pytest.MonkeyPatch, hidden: str) -> None:
    """Make the optional-extra lookup see `hidden` as not installed."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == hidden else real(name, *a)
    )


def test_png_without_matplotlib_names_the_extra(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide_module(monkeypatch, "matplotlib")
    exit_code, _, err = run_main(capsys, "layout", "show", "[64, 64] FP16", "--png", str(tmp_path / "x.png"))
    assert exit_code == 2
    assert "[request.missing_extra]" in err
    assert "pip install 'tile-planner[viz]'" in err


def test_layout_show_draws_a_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    picture = tmp_path / "fractals.png"
    exit_code, _, _ = run_main(capsys, "layout", "show", "[64, 64] FP16", "--png", str(picture))
    assert exit_code == 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_batch_lines_are_sorted_and_equal_across_worker_counts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    inputs = [str(EXAMPLES / "json"), str(EXAMPLES / "ttlang" / "unpack_conflict.mlir")]
    serial = tmp_path / "serial.jsonl"
    exit_code, _, err = run_main(capsys, "batch", *inputs, "--workers", "1", "-o", str(serial))
    assert exit_code == 1  # refusals on purpose, no bad input
    assert err == ""  # stderr is not a terminal: no progress frames in the log
    parallel_code, parallel_out, _ = run_main(capsys, "batch", *inputs, "--workers", "2")
    assert parallel_code == 1
    assert parallel_out == serial.read_text()
    lines = [json.loads(line) for line in parallel_out.splitlines()]
    assert [line["input"] for line in lines] == sorted(line["input"] for line in lines)
    by_name = {Path(line["input"]).name: line for line in lines}
    assert by_name["layout-plan.json"]["exit"] == 0
    assert by_name["unpack_conflict.mlir"]["exit"] == 1
    assert "[kcfg.dfb_unpack_conflict]" in by_name["kernelcfg-resolve-conflict.json"]["diagnostics"][0]


@pytest.mark.parametrize(("quiet", "drawn"), [((), True), (("--quiet",), False)])
def test_batch_draws_progress_only_on_a_terminal_and_not_when_quiet(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, quiet: tuple[str, ...], drawn: bool
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    inputs = [str(EXAMPLES / "json" / "proofs-check.json"), str(EXAMPLES / "json" / "layout-plan.json")]
    exit_code, out, err = run_main(capsys, "batch", *inputs, *quiet)
    assert exit_code == 0
    assert len(out.splitlines()) == 2
    assert ("2/2" in err) is drawn


def test_batch_reports_non_utf8_input_as_a_typed_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    latin = tmp_path / "latin.mlir"
    latin.write_bytes(b"func.func @f() { \xff }\n")
    exit_code, out, _ = run_main(capsys, "batch", str(latin))
    assert exit_code == 2
    line = json.loads(out)
    assert line["error"]["code"] == "request.unreadable"
    assert "not UTF-8" in line["error"]["message"]


def test_batch_reports_unreadable_input_and_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    exit_code, out, _ = run_main(
        capsys, "batch", str(tmp_path / "absent.mlir"), str(EXAMPLES / "json" / "proofs-check.json")
    )
    assert exit_code == 2
    by_name = {Path(line["input"]).name: line for line in map(json.loads, out.splitlines())}
    assert by_name["absent.mlir"]["error"]["code"] == "request.unreadable"
    assert by_name["proofs-check.json"]["exit"] == 0


def test_batch_dask_without_dask_names_the_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hide_module(monkeypatch, "dask")
    exit_code, _, err = run_main(capsys, "batch", str(EXAMPLES / "json"), "--dask", "local")
    assert exit_code == 2
    assert "pip install 'tile-planner[dask]'" in err


@pytest.mark.parametrize("address", ["0.0.0.0:0", "192.0.2.1:8765"])
def test_serve_http_refuses_a_non_loopback_bind_unless_allowed(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    exit_code, out, err = run_main(capsys, "serve", "--http", address)
    assert (exit_code, out) == (2, "")
    assert err.startswith("planner: error: [request.not_loopback] ")
    assert "--allow-remote" in err


@pytest.mark.parametrize(
    ("host", "allow_remote", "refused"),
    [
        ("127.0.0.1", False, False),
        ("127.0.0.2", False, False),
        ("localhost", False, False),
        ("0.0.0.0", False, True),
        ("0.0.0.0", True, False),
        ("192.0.2.1", False, True),
    ],
)
def test_check_bind_allows_loopback_only_by_default(host: str, allow_remote: bool, refused: bool) -> None:
    from planner.errors import RequestError
    from planner.service.http import check_bind

    if refused:
        with pytest.raises(RequestError) as caught:
            check_bind((host, 0), allow_remote)
        assert caught.value.code == "request.not_loopback"
    else:
        check_bind((host, 0), allow_remote)


def test_serve_help_documents_allow_remote() -> None:
    result = subprocess.run([PLANNER, "serve", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "--allow-remote let --http bind a non-loopback address (there is no authentication" in " ".join(
        result.stdout.split()
    )
