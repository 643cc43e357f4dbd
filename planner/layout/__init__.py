"""NZ layout planning for PyPTO / pto-isa: blocking, load/slice/store rewrites, GM-gap guard, N-split."""

from planner.layout.plan import BLOCKED_STAMP, plan
from planner.layout.runtime import check_runtime_batch_rank

__all__ = ["BLOCKED_STAMP", "check_runtime_batch_rank", "plan"]
