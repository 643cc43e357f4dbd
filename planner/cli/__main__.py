"""`python -m planner.cli`: what PlannerClient starts by default."""

import sys

from planner.cli import main

sys.exit(main())
