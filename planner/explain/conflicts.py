"""`planner explain-conflict`: find the first refused plan in a file and say why, MLIR style.

A kernel-config conflict shows the conflicting requirements (op, operand, DFB, dtype, rule),
the minimal conflicting set and the corrections the resolver verified; an NZ refusal shows
the failed obligation and its counterexample; a proof shows the goal that is not proven.
The explanation only reads the core's typed evidence; it never re-derives a cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from planner import request_codes
from planner.adapters import detect_adapter, plan_with
from planner.contract import JsonObject
from planner.errors import RequestError

_LOCATION = {severity: re.compile(rf"^(.+?:\d+:\d+): {severity}: ") for severity in ("error", "note")}
METHOD_BY_ADAPTER = {"pypto": "layout.plan", "ttlang": "kernelcfg.resolve"}


@dataclass(frozen=True, slots=True)
class Subject:
    """One planning question (a function's request), the core's answer and whether it refused."""

    method: str
    function: str | None
    request: JsonObject
    response: JsonObject
    refused: bool
    location: str | None = None  # file:line:col of the function, when the adapter knows it


@dataclass(frozen=True, slots=True)
class Explained:
    source: str
    subjects: tuple[Subject, ...]
    diagnostics: tuple[str, ...] = ()  # the adapter's own lines, positioned at the offending op
    notes: tuple[str, ...] = ()  # what the adapter says it read (an IR-printing log's dumps)

    @property
    def explanation(self) -> Subject | None:
        """The first refused subject, in file order; None when everything planned."""
        return next((subject for subject in self.subjects if subject.refused), None)


def _report_subjects(method: str, report: JsonObject) -> tuple[Subject, ...]:
    """The adapter report's per-function records (`name` or `function`, `request`, `response`, `location`);
    both cores the adapters call answer `ok`."""
    return tuple(
        Subject(
            method,
            entry.get("function") or entry.get("name"),
            entry["request"],
            entry["response"],
            not entry["response"]["ok"],
            entry.get("location"),
        )
        for entry in report.get("functions", [])
    )


def explain_ir(
    source: str, text: str, options: Mapping[str, str] | None = None, context: Any = None
) -> Explained:
    """Plan an IR file through its adapter (with `options`) and keep every function's answer
    (`context`: where a PyPTO file's imports are read from)."""
    adapter = detect_adapter(source, text)
    outcome = plan_with(adapter, text, filename=source, options=dict(options or {}), context=context)
    found = Explained(
        source,
        _report_subjects(METHOD_BY_ADAPTER[adapter], outcome.report),
        tuple(outcome.diagnostics),
        tuple(outcome.report.get("notes", ())),
    )
    if not found.subjects:
        raise RequestError(request_codes.NOT_EXPLAINABLE, f"{source}: nothing in this file was planned")
    return found


def _where(source: str, subject: Subject, diagnostics: tuple[str, ...] = (), severity: str = "error") -> str:
    """MLIR-style location: the op's (from the adapter's first diagnostic of that severity), else
    the function's own position, else the file and function name."""
    located = (_LOCATION[severity].match(line) for line in diagnostics)
    first = next((match.group(1) for match in located if match), None)
    if first or subject.location:
        return first or subject.location or source
    return f"{source}:@{subject.function}" if subject.function else source


def _notes_after(diagnostics: tuple[str, ...], severity: str) -> list[str]:
    """The lines that follow the first line of the adapter's first diagnostic of that severity:
    the `called from` notes and the IR position of one reported at its source position."""
    first = next((entry for entry in diagnostics if _LOCATION[severity].match(entry)), "")
    return first.split("\n")[1:]


def _located(op: Any, operand: Any) -> str:
    parts = [f"op '{op}'" if op is not None else None, f"operand {operand}" if operand is not None else None]
    return ", ".join(part for part in parts if part) or "kernel"


def _requirement_line(record: JsonObject) -> str:
    """One requirement as a person reads it: who asks (op, operand), about what (DFB, dtype), which rule."""
    subject = _located(record.get("op"), record.get("operand"))
    facts = [f"DFB {record['dfb']}" if record.get("dfb") is not None else None, record.get("dtype")]
    about = ", ".join(str(fact) for fact in facts if fact)
    allows = " | ".join(record.get("allows") or []) or "nothing"
    about = f" ({about})" if about else ""
    summary = f" [{record['summary']}]" if record.get("summary") else ""
    return f"requirement {record['id']}: {subject}{about}: rule {record['kind']} allows {allows}{summary}"


def _kernel_conflict(where: str, response: JsonObject, note_where: str) -> list[str]:
    """docs/design/kernel-config.md 8: the error, its note, the requirements, the minimal set, the fixes."""
    conflict = response["conflict"]
    lines = [
        f"{where}: error: [{conflict['code']}] {_located(conflict.get('op'), conflict.get('operand'))}: "
        f"{conflict['message']}"
    ]
    note = conflict.get("note")
    if note:
        subject = _located(note.get("op"), note.get("operand"))
        lines.append(f"{note_where}: note: {subject}: {note['message']}")
    minimal = conflict.get("minimal_conflict") or []
    requirements = conflict.get("requirements") or []
    shown = [r for r in requirements if r["id"] in minimal] or requirements
    lines += [f"{where}: note: {_requirement_line(record)}" for record in shown]
    if minimal:
        lines.append(f"{where}: note: minimal conflicting set: {{{', '.join(minimal)}}}")
    for correction in conflict.get("corrections") or []:
        mark = "verified" if correction["resolves"] else "not verified"
        lines.append(f"{where}: note: correction ({mark}): {correction['change']}")
    return lines


def _counterexample(values: JsonObject | None) -> str:
    return ", ".join(f"{name} = {values[name]}" for name in sorted(values)) if values else "none recorded"


def _layout_refusal(where: str, response: JsonObject) -> list[str]:
    """docs/design/nz-layout.md section 13: the first error, then each obligation that is not proven."""
    lines = []
    for diagnostic in response.get("diagnostics") or []:
        site = [
            f"op '{diagnostic['op']}'" if diagnostic.get("op") else None,
            f"tensor '{diagnostic['tensor']}'" if diagnostic.get("tensor") else None,
            f"axis {diagnostic['axis']}" if diagnostic.get("axis") is not None else None,
        ]
        located = ", ".join(part for part in site if part)
        lines.append(
            f"{where}: {diagnostic['severity']}: [{diagnostic['code']}] "
            f"{located + ': ' if located else ''}{diagnostic['message']}"
        )
    for obligation in response.get("obligations") or []:
        if obligation["status"] != "proven":
            factor = f" by {obligation['factor']}" if obligation["goal"] == "multiple_of" else ""
            lines.append(
                f"{where}: note: failed obligation on op '{obligation['op']}' axis {obligation['axis']}: "
                f"{obligation['goal']}({obligation['expr']}){factor} is {obligation['status']}; "
                f"counterexample: {_counterexample(obligation.get('counterexample'))}"
            )
    return lines


def _proof_refusal(where: str, response: JsonObject, request: JsonObject) -> list[str]:
    lines = []
    for result in response["results"]:
        if result["status"] != "proven":
            reason = f" ({result['reason']})" if result.get("reason") else ""
            lines.append(
                f"{where}: error: {result['goal']}({request['expr']}) is {result['status']}{reason}; "
                f"counterexample: {_counterexample(result.get('counterexample'))}"
            )
    return lines


# Each renderer gets the error's location and the note's (the note's op may sit elsewhere).
_RENDERERS: dict[str, Callable[[str, str, Subject], list[str]]] = {
    "kernelcfg.resolve": lambda where, note_where, s: _kernel_conflict(where, s.response, note_where),
    "layout.plan": lambda where, _, s: _layout_refusal(where, s.response),
    "proofs.check": lambda where, _, s: _proof_refusal(where, s.response, s.request),
    "pypto.plan": lambda where, _, s: list(s.response["diagnostics"]),
    "ttlang.plan": lambda where, _, s: list(s.response["diagnostics"]),
}


def diagnostic_lines(source: str, subject: Subject, diagnostics: tuple[str, ...] = ()) -> list[str]:
    """Why `subject` was refused, as MLIR-style `loc: error: ...` / `loc: note: ...` lines."""
    where = _where(source, subject, diagnostics)
    note_where = _where(source, subject, diagnostics, "note") if diagnostics else where
    lines = _RENDERERS[subject.method](where, note_where, subject)
    if subject.method == "kernelcfg.resolve":  # the error's own notes after it, the note's after it
        if subject.response["conflict"].get("note"):
            lines[2:2] = _notes_after(diagnostics, "note")
        lines[1:1] = _notes_after(diagnostics, "error")
    return lines


def render(found: Explained) -> str:
    """The first refusal as MLIR-style diagnostics, or a one-line all-clear."""
    subject = found.explanation
    if subject is None:
        lines = [f"{found.source}: no conflict: every request planned or proven"]
    else:
        lines = diagnostic_lines(found.source, subject, found.diagnostics)
    return "".join(line + "\n" for line in [*lines, *found.notes])


def to_json(found: Explained) -> JsonObject:
    subject = found.explanation
    document: JsonObject = {
        "input": found.source,
        "refused": subject is not None,
        "explanation": None
        if subject is None
        else {
            "method": subject.method,
            "function": subject.function,
            "response": subject.response,
        },
    }
    if found.notes:
        document["notes"] = list(found.notes)
    return document
