"""What a comparison finds: one disagreement between the planner and an implementation.

A report is meant to be pasted into a bug: a one-line summary, the evidence (a concrete
assignment where two coordinates differ, the op and field), and the minimal request JSON
that reproduces it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel


@dataclass(frozen=True)
class Disagreement:
    """One way the implementation's answer differs from the planner's on one request.

    `where` names the part of the answer (`ok`, `ops[l0].offsets[2]`, `plan.strategies`,
    `results[multiple_of]`); `message` says what each side answered and why it matters.
    """

    where: str
    message: str


@dataclass(frozen=True)
class Finding:
    """The minimal request on which the implementation disagrees, with both answers."""

    method: str
    request: BaseModel
    disagreements: tuple[Disagreement, ...]
    planner_response: dict[str, Any]
    implementation_response: dict[str, Any] | None

    def request_json(self) -> str:
        """The request without null fields (if it reads back the same): to paste into a bug and replay."""
        compact = self.request.model_dump(mode="json", exclude_none=True)
        if type(self.request).model_validate(compact) != self.request:
            compact = self.request.model_dump(mode="json")
        return json.dumps(compact, indent=2, sort_keys=True)

    def render(self) -> str:
        """What differs, then the request; both answers stay on the record for a closer look."""
        lines = [f"{self.method}: the implementation disagrees with the planner"]
        lines += [f"  - {item.where}: {item.message}" for item in self.disagreements]
        return "\n".join([*lines, "minimal request:", self.request_json()])


class PassDisagreement(AssertionError):
    """Raised by the `check_*_pass` helpers; `finding` holds the shrunk request and the evidence."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.render())
        self.finding = finding
