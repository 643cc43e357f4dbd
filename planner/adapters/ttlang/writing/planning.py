"""`planner plan` on TT-Lang MLIR: the text-preserving face (docs/design/kernel-config.md section 7).

The planned file is the input with only the touched attribute dictionaries rewritten, so
comments and layout survive. Every function of every `// -----` chunk is resolved before
any plan is applied; one refusal anywhere returns the input byte for byte with the
diagnostics. Deciding (the resolver) and rewriting (`apply`) stay separate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.adapters.outcome import AdapterOutcome
from planner.adapters.ttlang.reading.diagnostics import Located
from planner.adapters.ttlang.reading.ir_log import input_chunks, read_chunk
from planner.adapters.ttlang.reading.nesting import room_for_nesting
from planner.adapters.ttlang.reading.source import ParsedChunk
from planner.adapters.ttlang.requests.kernels import (
    AnsweredKernel,
    FunctionKernel,
    Resolver,
    answer,
    chunk_kernels,
    diagnostics_of,
)
from planner.adapters.ttlang.requests.pass_options import option_policy
from planner.adapters.ttlang.requests.target_choice import given_target
from planner.adapters.ttlang.writing.apply import Edit, apply_edits, function_edit, strategy_edit
from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest

SECTION_OPTION = "section"
"""The option naming the dump of an IR-printing log to plan (`--section TEXT`); not a pass option."""


@dataclass(frozen=True)
class ReadFile:
    """A file's parsed chunks, its functions, and the notes on what was read (a log's section)."""

    parsed: list[ParsedChunk]
    kernels: list[FunctionKernel]
    notes: tuple[str, ...]


def read_kernels(text: str, filename: str, options: Mapping[str, str] | None) -> ReadFile:
    """Parse every chunk (of a log: the dumps it plans) and collect its functions (malformed
    input: `AdapterInputError`)."""
    given = dict(options or {})
    section = given.pop(SECTION_OPTION, None)
    target = given_target(given)
    option_fields = option_policy(given)
    found = input_chunks(text, filename, section)
    with room_for_nesting():
        parsed_chunks = [read_chunk(planned, filename) for planned in found.chunks]
        kernels = [
            kernel
            for parsed, planned in zip(parsed_chunks, found.chunks, strict=True)
            for kernel in chunk_kernels(parsed, option_fields, target)
            if planned.functions is None or kernel.function.sym_name.data in planned.functions
        ]
    return ReadFile(parsed_chunks, kernels, found.notes)


def build_requests(
    text: str, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> list[KernelcfgResolveRequest]:
    """The `kernelcfg.resolve` request of every function, in file order.

    A function attribute the request cannot carry (a non-bool `fp32_dest_acc_en`, a malformed
    `ttl.unpack_to_dest_fp32`) raises the resolver's own `KcfgError`.
    """
    requests: list[KernelcfgResolveRequest] = []
    for kernel in read_kernels(text, filename, options).kernels:
        if kernel.refusal is not None:
            raise kernel.refusal
        assert kernel.request is not None
        requests.append(kernel.request)
    return requests


def _edits(answered: AnsweredKernel) -> list[Edit]:
    """Section 7: a strategy on each choice op, the configuration on the function."""
    kernel, plan = answered.kernel, answered.response.plan
    assert plan is not None
    sites = kernel.parsed.sites
    edits = []
    for op_id, strategy in sorted(plan.strategies.items()):
        site = sites[kernel.kernel.op_by_id[op_id]].attr_dict
        assert site is not None
        edits.append(strategy_edit(site, strategy))
    function_site = sites[kernel.function].attr_dict
    assert function_site is not None
    edits.append(
        function_edit(
            function_site,
            dst_width=plan.dst_width,
            full_sync=plan.dst_sync == "full",
            unpack=plan.unpack_to_dest_fp32,
        )
    )
    return edits


def _report_entry(answered: AnsweredKernel, filename: str) -> dict[str, Any]:
    """One function's record: where it is, the request sent (`{}` when its attributes could not be
    put into one) and the answer."""
    kernel, response = answered.kernel, answered.response
    line, column = kernel.parsed.op_line_col(kernel.function)
    entry: dict[str, Any] = {
        "function": kernel.function.sym_name.data,
        "location": f"{filename}:{line}:{column}",
    }
    source = Located(kernel.parsed, kernel.function).source()
    if source is not None:
        entry["source_location"] = str(source.position)
    entry["request"] = kernel.request.model_dump(mode="json") if kernel.request is not None else {}
    entry["response"] = response.model_dump(mode="json")
    return entry


def plan_text_with(
    text: str, resolver: Resolver, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> AdapterOutcome:
    """`plan_text` with the resolver passed in."""
    read = read_kernels(text, filename, options)
    answers = [answer(kernel, resolver) for kernel in read.kernels]
    found = diagnostics_of(answers)
    diagnostics = [*(each.render(filename) for each in found), *read.notes]
    report: dict[str, Any] = {
        "adapter": "ttlang",
        "functions": [_report_entry(answered, filename) for answered in answers],
    }
    if any(each.source is not None for each in found):  # both positions of each, for `--json`
        report["diagnostics"] = [each.to_json(filename) for each in found]
    if read.notes:  # an IR-printing log: which dumps were planned
        report["notes"] = list(read.notes)
    if not all(answered.response.ok for answered in answers):
        return AdapterOutcome(ok=False, text=text, diagnostics=diagnostics, report=report)
    edits_by_chunk: dict[int, list[Edit]] = {id(parsed): [] for parsed in read.parsed}
    for answered in answers:
        edits_by_chunk[id(answered.kernel.parsed)].extend(_edits(answered))
    pieces: list[str] = []
    kept_from = 0  # the text between chunks (separators, a log's other dumps) is kept as it is
    for parsed in read.parsed:
        chunk = parsed.chunk
        pieces += (text[kept_from : chunk.offset], apply_edits(chunk.text, edits_by_chunk[id(parsed)]))
        kept_from = chunk.offset + len(chunk.text)
    pieces.append(text[kept_from:])
    return AdapterOutcome(ok=True, text="".join(pieces), diagnostics=diagnostics, report=report)


def plan_text(
    text: str, *, filename: str = "<input>", options: Mapping[str, str] | None = None
) -> AdapterOutcome:
    """Plan every compute kernel of a TT-Lang MLIR file (malformed input: `AdapterInputError`)."""
    return plan_text_with(text, resolve, filename=filename, options=options)
