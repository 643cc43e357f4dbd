"""The planning service: one method registry shared by `planner serve` and `planner call`.

Submodules import their dependencies themselves, so importing this package stays cheap
(the CLI's `--help` path must not pay for pydantic, z3 or networkx).
"""
