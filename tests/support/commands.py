"""The two console scripts as subprocess command lines that run this tree's code under the running
interpreter, as the installed `planner` and `planner-opt` would (their public entry paths)."""

from __future__ import annotations

import sys

PLANNER = [sys.executable, "-m", "planner.cli"]
PLANNER_OPT = [
    sys.executable,
    "-c",
    "from planner.adapters.ttlang.opt_main import main; raise SystemExit(main())",
]
