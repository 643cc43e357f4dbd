#!/usr/bin/env bash
# Plans every bundled example with the given planner executable.
set -euo pipefail
planner=${1:-planner}
cd "$(dirname "$0")"
"$planner" --version
