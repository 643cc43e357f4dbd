"""`planner explain FILE`: every decision of a resolved kernel-config plan as an MLIR-style remark.

TT-Lang MLIR: each function is resolved with `explain: true` and each decision prints as
`file:line:col: remark: ...` at its deciding op (the function for kernel-wide reasons). A
`kernelcfg.resolve` JSON request (bare params or a `{"method", "params"}` envelope) prints
the same remarks located by op id. A refused input prints what `explain-conflict` prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from planner import request_codes
from planner.adapters.ttlang.diagnostics import Located
from planner.adapters.ttlang.planning import read_kernels
from planner.contract import JsonObject, RequestError, request_error_from_validation
from planner.explain import conflicts
from planner.inputs import is_json_request, read_request
from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import Decision, KernelcfgResolveRequest
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


def _at(source: str, where: Located) -> str:
    line, column = where.line_col()
    return f"{source}:{line}:{column}: "


def _from_mlir(source: str, text: str) -> Explained:
    lines: list[str] = []
    documents: list[JsonObject] = []
    for kernel in read_kernels(text, source, None)[2]:
        request = kernel.request
        response = resolve(request.model_copy(update={"explain": True})) if request is not None else None
        if request is None or response is None or response.explanation is None:
            return _refusal(conflicts.explain_ir(source, text))
        documents.append(
            {"function": request.function, "explanation": response.explanation.model_dump(mode="json")}
        )
        function = _at(source, Located(kernel.parsed, kernel.function))
        for decision in response.explanation.decisions:
            op = kernel.kernel.op_by_id.get(decision.op) if decision.op is not None else None
            where = _at(source, Located(kernel.parsed, op)) if op is not None else function
            lines.append(f"{where}remark: {remark(decision)}")
    return Explained(True, "".join(line + "\n" for line in lines), {"input": source, "functions": documents})


def _from_json(source: str, text: str, limits: Limits) -> Explained:
    found = read_request(text.encode("utf-8"), limits)
    if found.method != "kernelcfg.resolve":
        raise RequestError(
            request_codes.INVALID_PARAMS, f"{source}: planner explain reads kernelcfg.resolve requests"
        )
    try:
        request = KernelcfgResolveRequest.model_validate({**found.params, "explain": True})
    except ValidationError as exc:
        raise request_error_from_validation(exc) from None
    response = resolve(request)
    if response.explanation is None:
        refused = conflicts.Subject(
            found.method,
            found.params.get("function"),
            found.params,
            response.model_dump(mode="json"),
            refused=True,
        )
        return _refusal(conflicts.Explained(source, (refused,)))
    where = f"{source}:@{request.function}" if request.function else source
    lines = [
        f"{where}: remark: {f'op {d.op!r}: ' if d.op else ''}{remark(d)}"
        for d in response.explanation.decisions
    ]
    document = {"function": request.function, "explanation": response.explanation.model_dump(mode="json")}
    return Explained(True, "".join(line + "\n" for line in lines), {"input": source, "functions": [document]})


def explain_source(source: str, text: str, limits: Limits) -> Explained:
    """Remarks for every decision of every function in `text` (MLIR or a JSON request)."""
    return _from_json(source, text, limits) if is_json_request(source, text) else _from_mlir(source, text)
