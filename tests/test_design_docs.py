"""docs/design/ is what the code cites: every cited section exists and every stable code is described."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner import request_codes as service_codes
from planner.adapters import UNKNOWN_FORMAT
from planner.adapters.pypto.base import codes as pypto_codes
from planner.adapters.ttlang.base import codes as ttlang_codes
from planner.kernelcfg import codes as kcfg_codes
from planner.layout.diagnostics import NZ_CODES
from planner.proofs import errors as proof_errors
from tests.support.paths import ROOT

DESIGN = ROOT / "docs" / "design"
CITING_TREES = ("planner", "tests", "benchmarks")

_SECTION = r"\d+(?:\.\d+)?"
_CITATION = re.compile(
    rf"docs/design/(?P<file>[a-z-]+\.md)"
    rf"(?:,?\s+(?:sections?\s+|s\.\s*)?(?P<sections>{_SECTION}(?:\s*(?:,|-|and)\s*{_SECTION}(?![\d.]))*))?"
)


def cited_sections(text: str) -> list[tuple[str, str | None]]:
    """(file, section) for every `docs/design/<file> [section[s]] N[, M | -M]` in `text`."""
    found: list[tuple[str, str | None]] = []
    for match in _CITATION.finditer(text):
        sections = re.findall(_SECTION, match.group("sections") or "")
        found.extend((match.group("file"), section) for section in sections or [None])
    return found


def headings(doc: Path) -> set[str]:
    """Section numbers of `doc`: "7" for `## 7. ...`, "7.3" for `### 7.3 ...`."""
    numbers = re.findall(rf"^#+\s+({_SECTION})[.\s]", doc.read_text(encoding="utf-8"), re.MULTILINE)
    return {number.rstrip(".") for number in numbers}


def _citations() -> list[tuple[str, str, str | None]]:
    sources = [p for tree in CITING_TREES for p in sorted((ROOT / tree).rglob("*.py"))]
    sources += sorted((ROOT / "tests").rglob("*.mlir")) + sorted((ROOT / "tests").rglob("*.py.txt"))
    return [
        (str(path.relative_to(ROOT)), file, section)
        for path in sources
        if path != Path(__file__).resolve()
        for file, section in cited_sections(path.read_text(encoding="utf-8"))
    ]


def test_citation_parser_reads_single_sections_lists_and_ranges() -> None:
    text = (
        "(docs/design/nz-layout.md 7.3) docs/design/kernel-config.md sections 4.1, 6 and "
        "docs/design/nz-layout.md s. 17; docs/design/proofs.md 2-4, docs/design/protocol.md: x"
    )
    assert cited_sections(text) == [
        ("nz-layout.md", "7.3"),
        ("kernel-config.md", "4.1"),
        ("kernel-config.md", "6"),
        ("nz-layout.md", "17"),
        ("proofs.md", "2"),
        ("proofs.md", "4"),
        ("protocol.md", None),
    ]


def test_every_cited_design_section_exists() -> None:
    sections = {doc.name: headings(doc) for doc in DESIGN.glob("*.md")}
    missing = [
        f"{where}: docs/design/{file} {section or ''}".rstrip()
        for where, file, section in _citations()
        if file not in sections or (section is not None and section not in sections[file])
    ]
    assert missing == []


def test_design_docs_keep_the_numbering_the_code_cites() -> None:
    nz = headings(DESIGN / "nz-layout.md")
    assert {str(n) for n in range(1, 19)} <= nz
    assert {"6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "7.4", "11.1", "11.2", "11.3", "11.4"} <= nz
    kcfg = headings(DESIGN / "kernel-config.md")
    assert {str(n) for n in range(1, 11)} | {"4.1", "4.5", "6.1", "6.6", "6.9"} <= kcfg


def _string_constants(module: object, prefix: str) -> set[str]:
    return {v for v in vars(module).values() if isinstance(v, str) and v.startswith(prefix)}


@pytest.mark.parametrize(
    ("doc", "codes"),
    [
        ("nz-layout.md", set(NZ_CODES)),
        ("kernel-config.md", _string_constants(kcfg_codes, "kcfg.")),
        (
            "protocol.md",
            _string_constants(service_codes, "request.")
            | _string_constants(proof_errors, "proof.")
            | _string_constants(pypto_codes, "adapter.")
            | _string_constants(ttlang_codes, "adapter.")
            | {UNKNOWN_FORMAT},
        ),
    ],
)
def test_every_stable_code_is_described_in_its_design_doc(doc: str, codes: set[str]) -> None:
    text = (DESIGN / doc).read_text(encoding="utf-8")
    assert codes, f"no codes found for {doc}"
    assert sorted(code for code in codes if f"`{code}`" not in text) == []
