"""Target facts only: Ascend NPU limits and Tenstorrent capability tables. Imports nothing above it."""
