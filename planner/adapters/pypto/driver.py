"""Plan a PyPTO file: parse, a `layout.plan` per function, apply or report (docs/design/nz-layout.md 17, 18).

The text is read with `ast` only and is never executed. Printed IR changes only when every
function planned successfully (section 15: failure leaves the program unchanged); source is
never changed: its plan is reported as notes at source positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, get_args

from planner.adapters.outcome import AdapterInputError, AdapterOutcome
from planner.adapters.pypto import codes
from planner.adapters.pypto.apply import plan_edits
from planner.adapters.pypto.diagnostics import render_diagnostic
from planner.adapters.pypto.kernel_constants import ResolveContext
from planner.adapters.pypto.model import FunctionModel, FunctionRequest
from planner.adapters.pypto.program import Program, parse_program
from planner.adapters.pypto.reader import read_function
from planner.adapters.pypto.report import kernel_notes, render_note, source_notes
from planner.adapters.pypto.resolver import ImportWarning
from planner.adapters.pypto.splicing import apply_edits
from planner.errors import RequestError
from planner.layout import plan as layout_plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from planner.proofs.protocol import Division
from planner.targets.ascend import ASCEND_TARGETS

LayoutPlanner = Callable[[LayoutPlanRequest], LayoutPlanResponse]

DEFAULT_TARGET = "a2a3"
DEFAULT_DIVISION: Division = "either"  # section 7.3: both roundings count unless the user says floor
_KNOWN_OPTIONS = ("target", "division")
_DIVISIONS: tuple[Division, ...] = get_args(Division)


@dataclass(frozen=True, slots=True)
class AdapterOptions:
    """The `--option KEY=VALUE` settings every function's request is built with."""

    target: str = DEFAULT_TARGET
    division: Division = DEFAULT_DIVISION


BYTE_ORDER_MARK = "\ufeff"


def build_requests(
    text: str,
    *,
    filename: str = "<input>",
    options: Mapping[str, str] | None = None,
    context: ResolveContext | None = None,
) -> list[FunctionRequest]:
    """The `layout.plan` request of every kernel, in file order, with source positions."""
    return read_program(text, filename=filename, options=options, context=context)[1]


def read_program(
    text: str,
    *,
    filename: str = "<input>",
    options: Mapping[str, str] | None = None,
    context: ResolveContext | None = None,
) -> tuple[Program, list[FunctionRequest]]:
    """The program as `parse_program` reads it and `build_requests`' requests, from one parse."""
    program, models = _read(text.removeprefix(BYTE_ORDER_MARK), filename, options, context)
    return program, [model.planned for model in models]


def plan_text(
    text: str,
    *,
    filename: str = "<input>",
    options: Mapping[str, str] | None = None,
    planner: LayoutPlanner | None = None,
    context: ResolveContext | None = None,
) -> AdapterOutcome:
    """Plan every function and apply the plans; a refusal returns the text unchanged.

    `options`: `target` = `a2a3` (default) | `a5`; `division` = `either` (default) | `floor` |
    `trunc`, how the compiler rounds `//` and `%` (section 7.3). `planner` replaces `planner.layout.plan`.
    `context`: where a source file's imported modules come from and `--bind` values (section 19).
    Raises `AdapterInputError` for input that is not a readable PyPTO printed program.
    """
    body = text.removeprefix(BYTE_ORDER_MARK)  # editors may save one; positions count from after it
    program, models = _read(body, filename, options, context)
    plan = planner or layout_plan
    responses = [_plan_one(plan, model, program) for model in models]
    report: dict[str, Any] = {
        "program": program.name,
        "functions": [
            {
                "name": model.planned.name,
                "request": model.planned.request.model_dump(mode="json"),
                "response": response.model_dump(mode="json"),
            }
            for model, response in zip(models, responses, strict=True)
        ],
    }
    if program.warnings:
        report["warnings"] = [_warning_json(warning) for warning in program.warnings]
    diagnostics = [_warning_line(warning) for warning in program.warnings]
    diagnostics += [
        line
        for model, response in zip(models, responses, strict=True)
        for diagnostic in response.diagnostics
        for line in render_diagnostic(filename, model.planned, diagnostic)
    ]
    if program.form == "source":
        return _reported(text, filename, program, models, responses, diagnostics, report)
    if not all(response.ok for response in responses):
        return AdapterOutcome(False, text, diagnostics, report)
    edits = [
        edit
        for model, response in zip(models, responses, strict=True)
        for edit in plan_edits(model, response, program.source)
    ]
    return AdapterOutcome(True, text[: len(text) - len(body)] + apply_edits(body, edits), diagnostics, report)


def _reported(
    text: str,
    filename: str,
    program: Program,
    models: list[FunctionModel],
    responses: list[LayoutPlanResponse],
    diagnostics: list[str],
    report: dict[str, Any],
) -> AdapterOutcome:
    """Section 18: source is reported, never rewritten; the notes are the plan."""
    notes: list[str] = []
    for model, response, entry in zip(models, responses, report["functions"], strict=True):
        entry["notes"] = [
            *kernel_notes(model, program.source),
            *source_notes(model, response, program.source),
        ]
        resolved = model.function.constants
        if resolved is not None and resolved.assumptions:
            entry["assumptions"] = list(resolved.assumptions)
        notes.extend(render_note(filename, note) for note in entry["notes"])
    report["form"] = "source"
    ok = all(response.ok for response in responses)
    return AdapterOutcome(ok, text, diagnostics, report, notes if ok else None)


def _read(
    text: str, filename: str, options: Mapping[str, str] | None, context: ResolveContext | None
) -> tuple[Program, list[FunctionModel]]:
    adapter_options(options or {})  # a bad option is refused before the text is read
    try:
        program = parse_program(text, filename, context)
    except RecursionError:
        raise _too_deep() from None
    return program, read_functions(program, range(len(program.functions)), options)


def read_functions(
    program: Program, indices: Iterable[int], options: Mapping[str, str] | None = None
) -> list[FunctionModel]:
    """The models of the program's functions at `indices`, in that order, as `build_requests` reads
    them; the first unreadable one raises, carrying the others' errors."""
    settings = adapter_options(options or {})
    models: list[FunctionModel] = []
    errors: list[AdapterInputError] = []
    try:
        for index in indices:
            try:
                models.append(
                    read_function(program, program.functions[index], settings.target, settings.division)
                )
            except AdapterInputError as exc:
                errors.append(exc)
    except RecursionError:
        raise _too_deep() from None
    if errors:
        errors[0].others = tuple(errors[1:])
        raise errors[0]
    return models


def _too_deep() -> AdapterInputError:
    return AdapterInputError(
        codes.UNSUPPORTED_CONSTRUCT, "the program nests expressions or statements too deeply to read"
    )


def _warning_json(warning: ImportWarning) -> dict[str, Any]:
    return {
        "code": codes.UNREADABLE_IMPORT,
        "file": warning.origin,
        "line": warning.line,
        "message": warning.message,
    }


def _warning_line(warning: ImportWarning) -> str:
    where = f"{warning.origin}:{warning.line}" if warning.line is not None else warning.origin
    return f"{where}: warning: [{codes.UNREADABLE_IMPORT}] {warning.message}; its names stay symbolic"


def adapter_options(options: Mapping[str, str]) -> AdapterOptions:
    """The adapter's settings from `--option` pairs; an unknown key or value is `adapter.pypto.bad_option`."""
    unknown = sorted(set(options) - set(_KNOWN_OPTIONS))
    if unknown:
        raise AdapterInputError(
            codes.BAD_OPTION,
            f"unknown option {unknown[0]!r}; the PyPTO adapter takes: {', '.join(_KNOWN_OPTIONS)}",
        )
    target = options.get("target", DEFAULT_TARGET)
    if target not in ASCEND_TARGETS:
        raise AdapterInputError(
            codes.BAD_OPTION,
            f"unknown target {target!r}; expected one of {', '.join(sorted(ASCEND_TARGETS))}",
        )
    division = options.get("division", DEFAULT_DIVISION)
    for known in _DIVISIONS:
        if division == known:
            return AdapterOptions(target, known)
    raise AdapterInputError(
        codes.BAD_OPTION, f"unknown division {division!r}; expected one of {', '.join(_DIVISIONS)}"
    )


def _plan_one(plan: LayoutPlanner, model: FunctionModel, program: Program) -> LayoutPlanResponse:
    try:
        return plan(model.planned.request)
    except RequestError as exc:
        raise program.source.error(
            codes.INVALID_REQUEST,
            f"function {model.function.qualified!r}: the planner rejected its request: {exc.message}",
            model.function.node,
        ) from None
