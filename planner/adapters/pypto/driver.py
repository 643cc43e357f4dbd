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
from planner.adapters.pypto.base import codes
from planner.adapters.pypto.base.refusal import KernelRefusal
from planner.adapters.pypto.base.splicing import apply_edits
from planner.adapters.pypto.constants.kernel_constants import ResolveContext
from planner.adapters.pypto.constants.resolver import ImportWarning
from planner.adapters.pypto.reading.program import Program, ProgramFunction, parse_program
from planner.adapters.pypto.requests.model import FunctionModel, FunctionRequest
from planner.adapters.pypto.requests.reader import read_function
from planner.adapters.pypto.writing.apply import plan_edits
from planner.adapters.pypto.writing.diagnostics import render_diagnostic
from planner.adapters.pypto.writing.kernel_report import (
    calls_across,
    failure_lines,
    kernel_statuses,
    skipped_line,
)
from planner.adapters.pypto.writing.report import kernel_notes, render_note, source_notes
from planner.adapters.pypto.writing.unresolved_report import cause_notes, unresolved_extents
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
    """Plan every kernel that reads and apply the plans; a refusal returns the text unchanged.

    `options`: `target` = `a2a3` (default) | `a5`; `division` = `either` (default) | `floor` |
    `trunc`, how the compiler rounds `//` and `%` (section 7.3). `planner` replaces `planner.layout.plan`.
    `context`: where a source file's imported modules come from and `--bind` values (section 19).
    A kernel that cannot be read is a refusal of that kernel; the others are planned (section 18).
    Raises `AdapterInputError` for input that is not PyPTO, or when no kernel of it can be read.
    """
    body = text.removeprefix(BYTE_ORDER_MARK)  # editors may save one; positions count from after it
    program, models, failures = _read_kernels(body, filename, options, context)
    plan = planner or layout_plan
    planned: list[tuple[FunctionModel, LayoutPlanResponse]] = []
    for model in models:
        try:
            planned.append((model, _plan_one(plan, model, program)))
        except AdapterInputError as exc:
            failures[id(model.function)] = exc
    if failures and not planned and not _any_refused(failures):
        raise _all_problems(program, failures)  # no kernel of the file can be read
    models = [model for model, _ in planned]
    responses = [response for _, response in planned]
    report: dict[str, Any] = {
        "program": program.name,
        "functions": [_function_entry(model, response) for model, response in planned],
    }
    if program.warnings:
        report["warnings"] = [_warning_json(warning) for warning in program.warnings]
    statuses = kernel_statuses(program, {id(m.function): r for m, r in planned}, failures)
    report["kernels"] = [status.model_dump(mode="json", exclude_none=True) for status in statuses]
    diagnostics = [_warning_line(warning) for warning in program.warnings]
    diagnostics += [skipped_line(filename, kernel) for kernel in program.skipped]
    by_function = {id(model.function): (model, response) for model, response in planned}
    for function in program.functions:
        if id(function) in failures:
            diagnostics += failure_lines(filename, function.qualified, failures[id(function)])
            continue
        model, response = by_function[id(function)]
        for diagnostic in response.diagnostics:
            diagnostics += render_diagnostic(filename, model.planned, diagnostic)
            diagnostics += cause_notes(filename, model, diagnostic)
    complete = not failures
    if program.form == "source":
        return _reported(text, filename, program, models, responses, diagnostics, report, complete)
    if not all(response.ok for response in responses) or calls_across(program, models, failures):
        return AdapterOutcome(False, text, diagnostics, report)
    edits = [edit for model, response in planned for edit in plan_edits(model, response, program.source)]
    planned_text = text[: len(text) - len(body)] + apply_edits(body, edits)
    return AdapterOutcome(complete, planned_text, diagnostics, report, partial=not complete)


def _function_entry(model: FunctionModel, response: LayoutPlanResponse) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": model.planned.name,
        "request": model.planned.request.model_dump(mode="json"),
        "response": response.model_dump(mode="json"),
    }
    unresolved = unresolved_extents(model, response.diagnostics)
    if unresolved:
        entry["unresolved"] = [extent.model_dump(mode="json", exclude_none=True) for extent in unresolved]
    return entry


def _reported(
    text: str,
    filename: str,
    program: Program,
    models: list[FunctionModel],
    responses: list[LayoutPlanResponse],
    diagnostics: list[str],
    report: dict[str, Any],
    complete: bool,
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
    partial = ok and not complete
    return AdapterOutcome(ok and complete, text, diagnostics, report, notes if ok else None, partial)


def _read(
    text: str, filename: str, options: Mapping[str, str] | None, context: ResolveContext | None
) -> tuple[Program, list[FunctionModel]]:
    """Every kernel read, or the first problem of each one that cannot be (`others`)."""
    program, models, failures = _read_kernels(text, filename, options, context)
    if failures:
        raise _all_problems(program, failures)
    return program, models


def read_kernels(
    text: str,
    *,
    filename: str = "<input>",
    options: Mapping[str, str] | None = None,
    context: ResolveContext | None = None,
) -> tuple[Program, list[FunctionModel], dict[int, AdapterInputError]]:
    """The program, the models of the kernels that read and the problem of each one that does not
    (by the id of its `ProgramFunction`), as `plan_text` reads them kernel by kernel. Raises
    `AdapterInputError` for input that is not PyPTO, or when no kernel of it can be read."""
    program, models, failures = _read_kernels(text.removeprefix(BYTE_ORDER_MARK), filename, options, context)
    if failures and not models and not _any_refused(failures):
        raise _all_problems(program, failures)
    return program, models, failures


def _any_refused(failures: Mapping[int, AdapterInputError]) -> bool:
    """A kernel was read far enough to be refused: the file is PyPTO the reader understands."""
    return any(isinstance(error, KernelRefusal) for error in failures.values())


def _all_problems(program: Program, failures: dict[int, AdapterInputError]) -> AdapterInputError:
    """The first kernel's problem, carrying each further kernel's as `others`, in file order."""
    first, *others = [failures[id(each)] for each in program.functions if id(each) in failures]
    first.others = tuple(others)
    return first


def _read_kernels(
    text: str, filename: str, options: Mapping[str, str] | None, context: ResolveContext | None
) -> tuple[Program, list[FunctionModel], dict[int, AdapterInputError]]:
    """The program, the models of the kernels that read and the problem of each one that does not
    (by the id of its `ProgramFunction`)."""
    adapter_options(options or {})  # a bad option is refused before the text is read
    try:
        program = parse_program(text, filename, context)
    except RecursionError:
        raise AdapterInputError(
            codes.UNSUPPORTED_CONSTRUCT, "the program nests expressions or statements too deeply to read"
        ) from None
    models, failures = _read_models(program, range(len(program.functions)), options)
    return program, models, failures


def read_functions(
    program: Program, indices: Iterable[int], options: Mapping[str, str] | None = None
) -> list[FunctionModel]:
    """The models of the program's functions at `indices`, in that order, as `build_requests` reads
    them; the first unreadable one raises, carrying the others' errors."""
    models, failures = _read_models(program, indices, options)
    if failures:
        raise _all_problems(program, failures)
    return models


def _read_models(
    program: Program, indices: Iterable[int], options: Mapping[str, str] | None
) -> tuple[list[FunctionModel], dict[int, AdapterInputError]]:
    """The models of the functions at `indices` that read, and the problem of each one that does not."""
    settings = adapter_options(options or {})
    models: list[FunctionModel] = []
    failures: dict[int, AdapterInputError] = {}
    for index in indices:
        function = program.functions[index]
        try:
            models.append(read_function(program, function, settings.target, settings.division))
        except AdapterInputError as exc:
            failures[id(function)] = exc
        except RecursionError:
            failures[id(function)] = _too_deep(program, function)
    return models, failures


def _too_deep(program: Program, function: ProgramFunction) -> AdapterInputError:
    message = "the kernel nests expressions or statements too deeply to read"
    return program.source.error(codes.UNSUPPORTED_CONSTRUCT, message, function.node)


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
