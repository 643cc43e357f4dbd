"""The values a `for` binding's variable takes: those of Python's `range(start, stop, step)` (proofs.md 6).

One rule for every step, which the Z3 encoding, the concrete evaluator, the range/residue
domains and the PyPTO reader all follow:

| step | values of `v` |
|---|---|
| `> 0` | `start <= v < stop`, `v - start` a multiple of `step` |
| `< 0` | `stop < v <= start`, `start - v` a multiple of `-step`: the countdown's ascending value set |
| `0` | any value: no range is defined (a literal 0 is a bad request; an expression may still be 0) |

A symbolic step of unknown sign admits the values of whichever sign it has, so a goal holds
only if it holds for both. Iteration `i` of a value is `(v - start) // step` under either
sign: a countdown's first iteration is `start`. A loop whose range is empty never runs: its
variable takes no value, and what reads it holds vacuously (`empty_loops` in a response).
"""

from __future__ import annotations


def takes(value: int, start: int, stop: int, step: int) -> bool:
    """Whether the loop variable may hold `value` (the table above)."""
    return step == 0 or value in range(start, stop, step)


def iteration(value: int, start: int, step: int) -> int | None:
    """Which iteration of the loop holds `value` (exact for a value the loop takes); None for step 0."""
    return None if step == 0 else (value - start) // step
