"""Python source is read as Python reads it: a PEP 263 declaration names the file's encoding, a
file written back keeps it, and the whitespace Python accepts before a comment (a form feed) does
not hide a `# pypto.program:` header. Python itself (`tokenize`, `compile`) is the oracle."""

from __future__ import annotations

import io
import subprocess
import tokenize
from pathlib import Path

from tests.support.commands import PLANNER
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
PROGRAM = (EXAMPLES / "pypto" / "nz_matmul_spmd.py").read_text(encoding="utf-8")
SUGGESTED = (EXAMPLES / "pypto" / "suggest_weights.py").read_text(encoding="utf-8")
DECLARATION = "# -*- coding: latin-1 -*-\n"
COMMENT = "# Gewichte für die Matrix, Größe: é\n"


def _latin1(program: str) -> bytes:
    """`program` declared and encoded latin-1, with a comment only latin-1 spells in one byte each."""
    text = DECLARATION + program.replace(
        "import pypto.language as pl\n", "import pypto.language as pl\n" + COMMENT, 1
    )
    return text.encode("latin-1")


def _run(*argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*PLANNER, *argv], cwd=ROOT, capture_output=True, timeout=120, check=False)


def _python_reads(data: bytes) -> str:
    """The encoding Python finds for a source file's bytes, after checking it compiles."""
    compile(data, "<written>", "exec")
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def test_a_latin1_declared_program_is_planned_and_printed_in_latin1(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_bytes(_latin1(PROGRAM))
    printed = _run("plan", str(source))
    assert printed.returncode == 0, printed.stderr
    assert _python_reads(printed.stdout) == "iso-8859-1"
    assert COMMENT.encode("latin-1") in printed.stdout
    assert b"@pl.program" in printed.stdout
    written = _run("plan", str(source), "-o", str(tmp_path / "out.py"))
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "out.py").read_bytes() == printed.stdout


def test_suggest_apply_writes_a_latin1_file_back_in_latin1(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_bytes(_latin1(SUGGESTED))
    done = _run("suggest", str(source), "--apply")
    assert done.returncode == 0, done.stderr
    written = source.read_bytes()
    assert _python_reads(written) == "iso-8859-1"
    assert COMMENT.encode("latin-1") in written
    assert written.decode("latin-1").count("pl.NZ]") > SUGGESTED.count("pl.NZ]")


def test_undeclared_bytes_that_are_not_utf8_are_still_refused_naming_the_byte(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_bytes(_latin1(PROGRAM).replace(DECLARATION.encode(), b"", 1))
    done = _run("plan", str(source))
    assert done.returncode == 2
    offset = _latin1(PROGRAM).index("ü".encode("latin-1")) - len(DECLARATION)
    assert (
        done.stderr.decode()
        == f"planner: error: [request.unreadable] {source} is not UTF-8 text (byte {offset})\n"
    )


def test_a_declared_encoding_python_does_not_know_is_unreadable(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text("# -*- coding: no-such-codec -*-\n" + PROGRAM, encoding="utf-8")
    done = _run("plan", str(source))
    assert done.returncode == 2
    assert b"[request.unreadable]" in done.stderr and b"declares an encoding Python refuses" in done.stderr


def test_a_form_feed_before_the_program_header_keeps_it_a_printed_program(tmp_path: Path) -> None:
    plain, fed = tmp_path / "plain.py", tmp_path / "fed.py"
    plain.write_text(PROGRAM, encoding="utf-8")
    fed.write_text("\f" + PROGRAM, encoding="utf-8")
    compile(fed.read_bytes(), str(fed), "exec")  # Python reads the form feed as whitespace
    expected = _run("plan", str(plain))
    done = _run("plan", str(fed))
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == b"\f" + expected.stdout  # the rewritten program, not notes on source
