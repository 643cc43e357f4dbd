"""Tests of planner/targets: the Ascend and Tenstorrent fact tables and target construction."""
