"""`planner suggest` against the slow way: one `planner plan` of the whole file per candidate weight.

The oracle writes each candidate's `pl.NZ` annotation (and its forwarding host's) into the
generated text itself, plans the annotated file with `plan_text`, and reads the verdict off
the plans of the kernel and its host: eligible when both plan and every offset obligation is
proven, else the first error. `suggest`, which reads the file once, must give the same verdict,
the same blocking code and message, at the same position.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import plan_text
from planner.adapters.pypto.reading.program import parse_program
from planner.advice.edited_program import KeptFunctions, edited_program
from planner.advice.nz_annotations import nd_tensor_parameters
from planner.advice.suggest import suggest_text
from tests.support.hypothesis_budget import lowered
from tests.support.paths import ROOT

WEIGHT = "    w: pl.Tensor[[512, 1024], pl.{dtype}],"


@dataclass(frozen=True)
class Kernel:
    """One generated kernel: its weight's row offset, dtype, a second use, and who calls it."""

    rows: str  # the row offset expression over the lane `nb`
    dtype: str
    viewed: bool  # the weight is also reinterpreted by a view (NZ bytes cannot be)
    host: str  # "none", "forwards" (its own parameter), "local" (a value no annotation makes NZ)


KERNELS = st.builds(
    Kernel,
    st.sampled_from(("nb * 256", "nb * 8", "nb * 16", "256 - nb * 256", "(nb % 2) * 128")),
    st.sampled_from(("FP16", "BF16")),
    st.booleans(),
    st.sampled_from(("none", "forwards", "local")),
)


def kernel_lines(index: int, kernel: Kernel) -> list[str]:
    lines = [
        "@pl.jit.incore",
        f"def kernel_{index}(",
        f"    x: pl.Tensor[[64, 1024], pl.{kernel.dtype}],",
        WEIGHT.format(dtype=kernel.dtype),
        "    out: pl.Out[pl.Tensor[[64, 512], pl.FP32]],",
        "):",
        "    for nb in pl.spmd(2):",
        f"        n0 = {kernel.rows}",
        "        acc = pl.matmul(x[:, 0:256], w[n0 : n0 + 256, 0:256], out_dtype=pl.FP32, b_trans=True)",
        "        for k0 in pl.range(256, 1024, 256):",
        "            window = w[n0 : n0 + 256, k0 : k0 + 256]",
        "            acc = pl.matmul_acc(acc, x[:, k0 : k0 + 256], window, b_trans=True)",
        "        out[:, 0:256] = acc",
    ]
    if kernel.viewed:
        lines += ["    flat = pl.tensor.view(w, [1024, 512])", "    out[0:16, 0:512] = flat[0:16, 0:512]"]
    lines += ["    return out", "", ""]
    if kernel.host != "none":
        passed = "w" if kernel.host == "forwards" else "w_local"
        lines += [
            "@pl.jit",
            f"def host_{index}(",
            f"    x: pl.Tensor[[64, 1024], pl.{kernel.dtype}],",
            WEIGHT.format(dtype=kernel.dtype),
            "    out: pl.Out[pl.Tensor[[64, 512], pl.FP32]],",
            "):",
            *(
                ["    w_local = pl.create_tensor([512, 1024], dtype=pl.FP16)"]
                if kernel.host == "local"
                else []
            ),
            f"    out = kernel_{index}(x, {passed}, out)",
            "    return out",
            "",
            "",
        ]
    return lines


def source(kernels: list[Kernel]) -> str:
    lines = ["import pypto.language as pl", "", ""]
    for index, kernel in enumerate(kernels):
        lines += kernel_lines(index, kernel)
    return "\n".join(lines).rstrip() + "\n"


def annotated(text: str, index: int, kernel: Kernel) -> str:
    """The text with kernel `index`'s weight, and its forwarding host's, annotated `pl.NZ`."""
    functions = [f"def kernel_{index}("] + ([f"def host_{index}("] if kernel.host == "forwards" else [])
    for function in functions:
        head, found, tail = text.partition(function)
        weight = WEIGHT.format(dtype=kernel.dtype)
        text = head + found + tail.replace(weight, weight.removesuffix("],") + ", pl.NZ],", 1)
    return text


def slow_verdict(text: str, index: int, kernel: Kernel) -> tuple[Any, ...]:
    """(eligible, blocking code, its message, where `plan` prints it) from planning the annotated file."""
    try:
        outcome = plan_text(annotated(text, index, kernel), filename="k.py")
    except AdapterInputError as exc:
        return False, exc.code, exc.message, f"k.py:{exc.line}:{exc.column}"
    names = [f"kernel_{index}"] + ([f"host_{index}"] if kernel.host == "forwards" else [])
    responses = {entry["name"]: entry["response"] for entry in outcome.report["functions"]}
    for name in names:
        errors = [d for d in responses[name]["diagnostics"] if d["severity"] == "error"]
        if errors:
            code, message = errors[0]["code"], errors[0]["message"]
            printed = next(line for line in outcome.diagnostics if f"error: [{code}] {message}" in line)
            return False, code, message, printed.split(": error:")[0]
    proven = all(
        response["ok"]
        and all(o["status"] == "proven" for o in response["obligations"] if o["goal"] != "at_most")
        for response in (responses[name] for name in names)
    )
    return proven, None, None, None


@settings(max_examples=lowered(12))
@given(st.lists(KERNELS, min_size=1, max_size=4))
def test_suggest_gives_each_weight_the_verdict_of_planning_the_file_annotated_with_it(
    kernels: list[Kernel],
) -> None:
    text = source(kernels)
    tensors = suggest_text(text, filename="k.py").response.tensors
    assert [t.function for t in tensors] == [f"kernel_{index}" for index in range(len(kernels))]
    for index, (kernel, tensor) in enumerate(zip(kernels, tensors, strict=True)):
        blocking = tensor.blocking
        where = f"k.py:{tensor.line}:{tensor.column}" if blocking else None
        fast = (tensor.eligible, blocking and blocking.code, blocking and blocking.message, where)
        if kernel.host == "local":  # blocked before any plan: no annotation makes the host's value NZ
            assert fast[:2] == (False, "adapter.pypto.nd_argument_for_nz")
            continue
        assert fast == slow_verdict(text, index, kernel)


SIGNATURE = ", ".join(
    (
        "x: pl.Tensor[[64, 64], pl.FP16]",
        "w: pl.Tensor[[64, 64], pl.FP16]",
        "é: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
    )
)
ONE_LINE = (
    "import pypto.language as pl\n\n\n"
    "@pl.jit.incore\n"
    f"def k({SIGNATURE}):\n"
    "    é[:, :] = pl.matmul(x[:, :], w[:, :], out_dtype=pl.FP32)\n"
    "    return é\n"
)


COMMENTED = ONE_LINE.replace("):\n", "):  # the weight\n    # comes in ND\n\n", 1)
BODY_ON_SIGNATURE_LINE = ONE_LINE.replace("):\n    é[:, :]", "): é[:, :]", 1).replace("    return é\n", "")


@pytest.mark.parametrize(
    "text",
    [
        (ROOT / "examples" / "pypto" / "suggest_weights.py").read_text(encoding="utf-8"),
        ONE_LINE,
        COMMENTED,
        BODY_ON_SIGNATURE_LINE,
    ],
    ids=["printed-methods", "one-line-signature", "comments-before-the-body", "body-on-the-signature-line"],
)
def test_an_edited_program_holds_the_nodes_a_parse_of_the_edited_text_gives(text: str) -> None:
    """Each parameter annotated alone and with one of another function: the re-read functions' nodes,
    positions included, are those of the whole edited text parsed again (later parameters on the
    same line move right), whether read again or found kept from an earlier edit of that function."""
    program = parse_program(text, "k.py")
    sites = [
        site
        for index in range(len(program.functions))
        for site in nd_tensor_parameters(program, index).values()
    ]
    kept: KeptFunctions = {}
    for site in sites:
        index = site.function_index
        for other in [None, *(s for s in sites if s.function_index != index)]:  # `kept` serves the later ones
            also = [other] if other is not None else []
            touched = [index, *(s.function_index for s in also)]
            edited = edited_program(program, [site.edit, *(s.edit for s in also)], touched, kept)
            reread = parse_program(edited.source.text, "k.py")
            for each in touched:
                got, expected = edited.functions[each].node, reread.functions[each].node
                assert ast.dump(got, include_attributes=True) == ast.dump(expected, include_attributes=True)
                last = got.args.args[-1]
                assert edited.source.position(last) == reread.source.position(expected.args.args[-1])
