"""Tests of planner/advice: which ND weights may be NZ, the verdicts, and writing the annotations."""
