"""`planner explain FILE`: every decision of a resolved kernel-config plan as an MLIR-style remark.

TT-Lang MLIR: each function is resolved with `explain: true` and each decision prints as
`file:line:col: remark: ...` at its deciding op (the function for kernel-wide reasons), then
each lost f32 value of the plan's precision account (`report_precision: true`) at its op. A
`kernelcfg.resolve` JSON request (bare params or a `{"method", "params"}` envelope) prints
the same remarks located by op id. Options (`--option precision=exact`) are the pass
options; for a JSON request they set its policy fields. A refused input prints what
`explain-conflict` prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import ValidationError

from planner import request_codes
from planner.adapters.ttlang.base.codes import TARGET_UNKNOWN
from planner.adapters.ttlang.reading.diagnostics import Located, diagnostic
from planner.adapters.ttlang.requests.kernels import AnsweredKernel, answer, diagnostics_of
from planner.adapters.ttlang.requests.pass_options import option_policy
from planner.adapters.ttlang.writing.planning import read_kernels
from planner.contract import JsonObject, request_error_from_validation
from planner.errors import RequestError
from planner.explain import conflicts
from planner.inputs import is_json_request, read_request
from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import (
    Decision,
    KernelcfgResolveRequest,
    KernelcfgResolveResponse,
    PrecisionAccount,
)
from planner.limits import Limits


@dataclass(frozen=True, slots=True)
class Explained:
    """The remark lines (or the refusal's explanation), whether every function resolved, and the
    same as JSON (`planner explain --json`): each function's `explanation`, or the refusal's."""

    ok: bool
    text: str
    document: JsonObject


def _refusal(found: conflicts.Explained) -> Explained:
    return Explained(False, conflicts.render(found), {"refused": conflicts.to_json(found)})


def remark(decision: Decision) -> str:
    """One decision in words: `dst_width = 32 (forced by r1, r2): reason`."""
    setting = {"strategy": "strategy of {}", "unpack": "unpack mode of DFB {}"}.get(decision.setting, "{}")
    subject = setting.format(decision.subject if decision.subject is not None else decision.setting)
    causes = ", ".join(decision.causes)
    return f"{subject} = {decision.value} ({decision.how} by {causes}): {decision.reason}"


def precision_remarks(account: PrecisionAccount) -> list[tuple[str, str]]:
    """(op, remark) per lost f32 value (accumulation fallbacks are the resolver's warnings already)."""
    found = []
    for value in account.values:
        if not value.lossless:
            slot = "result" if value.operand is None else f"operand {value.operand}"
            said = f"precision of {value.op} {slot} = {value.format} (lost to {', '.join(value.causes)})"
            found.append((value.op, f"{said}: {value.reason}"))
    return found


_EXPLAINED = {"explain": True, "report_precision": True}


def _explained(request: KernelcfgResolveRequest) -> KernelcfgResolveResponse:
    """The resolver's answer with the decisions' reasons and the precision account."""
    return resolve(request.model_copy(update=_EXPLAINED))


def _document(function: str | None, response: KernelcfgResolveResponse) -> JsonObject:
    """One function's decisions and precision account, as `planner explain --json` prints them."""
    dumped = response.model_dump(mode="json", include={"explanation", "precision"})
    return {"function": function, **dumped}


def _remark(source: str, where: Located, text: str) -> str:
    """A remark at `where`: at the source position its op's location names, with the IR note, as
    errors are (`diagnostics`)."""
    return diagnostic(where, "remark", text).render(source)


def _refused_for_the_reasons(answered: AnsweredKernel) -> bool:
    """Refused only because the decisions' reasons depend on a target the log does not show: the
    plan itself may stand (`planner plan`), its explanation does not."""
    conflict = answered.response.conflict
    return conflict is not None and conflict.code == TARGET_UNKNOWN


def _reasons_refusal(source: str, answered: AnsweredKernel, notes: tuple[str, ...]) -> conflicts.Explained:
    kernel = answered.kernel
    assert kernel.request is not None
    line, column = kernel.parsed.op_line_col(kernel.function)
    refused = conflicts.Subject(
        "kernelcfg.resolve",
        kernel.request.function,
        kernel.request.model_dump(mode="json"),
        answered.response.model_dump(mode="json"),
        refused=True,
        location=f"{source}:{line}:{column}",
    )
    said = tuple(found.render(source) for found in diagnostics_of([answered]))
    return conflicts.Explained(source, (refused,), said, notes)


def _from_mlir(source: str, text: str, options: Mapping[str, str] | None) -> Explained:
    lines: list[str] = []
    documents: list[JsonObject] = []
    read = read_kernels(text, source, options)
    for kernel in read.kernels:
        request = kernel.request
        answered = answer(kernel, _explained) if request is not None else None
        response = answered.response if answered is not None else None
        if answered is not None and _refused_for_the_reasons(answered):
            return _refusal(_reasons_refusal(source, answered, read.notes))
        if request is None or response is None or response.explanation is None or response.precision is None:
            return _refusal(conflicts.explain_ir(source, text, options))
        documents.append(_document(request.function, response))
        function = Located(kernel.parsed, kernel.function)
        said = [(d.op, remark(d)) for d in response.explanation.decisions]
        for op_id, said_there in said + precision_remarks(response.precision):
            op = kernel.kernel.op_by_id.get(op_id) if op_id is not None else None
            where = Located(kernel.parsed, op) if op is not None else function
            lines.append(_remark(source, where, said_there))
    lines += read.notes
    return Explained(True, "".join(line + "\n" for line in lines), {"input": source, "functions": documents})


def _from_json(source: str, text: str, limits: Limits, options: Mapping[str, str] | None) -> Explained:
    found = read_request(text.encode("utf-8"), limits)
    if found.method != "kernelcfg.resolve":
        raise RequestError(
            request_codes.INVALID_PARAMS, f"{source}: planner explain reads kernelcfg.resolve requests"
        )
    params = dict(found.params)
    if options:
        params["policy"] = {**(params.get("policy") or {}), **option_policy(options)}
    try:
        request = KernelcfgResolveRequest.model_validate({**params, **_EXPLAINED})
    except ValidationError as exc:
        raise request_error_from_validation(exc) from None
    response = resolve(request)
    if response.explanation is None or response.precision is None:
        refused = conflicts.Subject(
            found.method, params.get("function"), params, response.model_dump(mode="json"), refused=True
        )
        return _refusal(conflicts.Explained(source, (refused,)))
    where = f"{source}:@{request.function}" if request.function else source
    said = [(d.op, remark(d)) for d in response.explanation.decisions]
    lines = [
        f"{where}: remark: {f'op {op!r}: ' if op else ''}{said_there}"
        for op, said_there in said + precision_remarks(response.precision)
    ]
    document = _document(request.function, response)
    return Explained(True, "".join(line + "\n" for line in lines), {"input": source, "functions": [document]})


def explain_source(
    source: str, text: str, limits: Limits, options: Mapping[str, str] | None = None
) -> Explained:
    """Remarks for every decision and precision loss of every function in `text` (MLIR or a JSON
    request); `options` are the pass options."""
    if is_json_request(source, text):
        return _from_json(source, text, limits, options)
    return _from_mlir(source, text, options)
