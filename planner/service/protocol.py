"""Request/response models owned by the service: `planner.version`."""

from __future__ import annotations

from planner.contract import ContractModel


class VersionRequest(ContractModel):
    """`planner.version` takes no parameters."""


class VersionResponse(ContractModel):
    version: str
    protocol: str
    methods: list[str]
