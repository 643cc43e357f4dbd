"""A JSON request file answered through the method registry, as the commands that read one share it
(`planner explain-conflict`, `planner batch`)."""

from __future__ import annotations

from planner.budget import deadline_after
from planner.explain.conflicts import Subject
from planner.inputs import read_request
from planner.limits import Limits
from planner.service.methods import find_method, invoke


def answer_request_file(data: bytes, limits: Limits) -> Subject:
    """Read the request (any form `read_request` accepts), answer it within the time budget, and say
    whether its method counts the answer as a refusal."""
    request = read_request(data, limits)
    method = find_method(request.method)
    response = invoke(method.name, request.params, deadline_after(limits.time_budget))
    return Subject(
        method.name, request.params.get("function"), request.params, response, not method.succeeded(response)
    )
