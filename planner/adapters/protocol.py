"""Request/response models of the adapter methods (`pypto.plan`, `ttlang.plan`) and of features
that read one IR file the same way (`layout.suggest`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue

from planner.contract import ContractModel


class AdapterPlanRequest(ContractModel):
    """Plan one IR file given as text (`pypto.plan`, `ttlang.plan`)."""

    text: Annotated[str, Field(max_length=16 * 1024 * 1024)]
    filename: Annotated[str, Field(min_length=1, max_length=4096)] = "<input>"
    options: dict[str, str] = Field(default_factory=dict)  # adapter options, e.g. {"target": "a5"}


class PyptoPlanRequest(AdapterPlanRequest):
    """`pypto.plan` and `layout.suggest`: a PyPTO file, and the text of the modules it imports by
    dotted name (the service reads no file a client names; docs/design/nz-layout.md section 19)."""

    modules: Annotated[
        dict[Annotated[str, Field(max_length=1024)], Annotated[str, Field(max_length=16 * 1024 * 1024)]],
        Field(max_length=256),
    ] = Field(default_factory=dict)


KernelState = Literal["planned", "refused", "unreadable", "skipped"]


class KernelStatus(ContractModel):
    """One kernel of a PyPTO file as `pypto.plan` saw it (the report's `kernels`, in file order).

    `planned`: its plan succeeded; `refused`: the planner refused it (`code` is the first
    diagnostic's); `unreadable`: the reader could not read it (`code` is the adapter's);
    `skipped`: defined in a way the reader does not follow (a parser's text, a decorator called
    as a function). `reason` says why for every state but `planned`."""

    name: str
    status: KernelState
    line: int | None = None
    column: int | None = None
    code: str | None = None
    reason: str | None = None


class AdapterPlanResponse(ContractModel):
    """The planned IR (or the input unchanged), compiler-style diagnostics and the per-function report."""

    ok: bool
    text: str
    diagnostics: list[str] = Field(default_factory=list)
    report: dict[str, JsonValue] = Field(default_factory=dict)


class PyptoPlanResponse(AdapterPlanResponse):
    """`pypto.plan`: also every kernel of the file with its status, as the report's `kernels`."""

    kernels: list[KernelStatus] = Field(default_factory=list)


ExtentCauseKind = Literal[
    "dynamic", "import_time", "builder_parameter", "mutated", "unreadable_import", "not_evaluated"
]


class UnresolvedExtent(ContractModel):
    """Why a name a kernel reads has no static value (docs/design/nz-layout.md section 19).

    `dynamic`: declared `pl.dynamic(..)`; `import_time`: chosen when the module is imported (it
    reads `os.environ` / `sys.argv`); `builder_parameter`: a builder's parameter without a default
    or `--bind`; `mutated`: bound more than once, or changed after it is bound; `unreadable_import`:
    read from a module that could not be found or read; `not_evaluated`: computed by an expression
    the reader does not evaluate. `file` and `line` are where the cause is written."""

    name: str  # as the kernel spells it
    cause: ExtentCauseKind
    file: str
    line: int | None = None
    message: str
