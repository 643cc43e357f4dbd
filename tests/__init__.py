"""The test tree: a package per room of `planner/`, imported from the repository root (tests/README.md)."""
