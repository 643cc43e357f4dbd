"""Resident memory of a service: its process and all its workers, for the tests that bound its growth."""

from __future__ import annotations

from pathlib import Path


def tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants (the service and its workers)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        proc = Path(f"/proc/{current}")
        try:
            status = (proc / "status").read_text()
            children = (proc / "task" / str(current) / "children").read_text().split()
        except OSError:
            continue
        total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
        pending.extend(int(child) for child in children)
    return total
