"""Tests of planner/cli: exit codes and outputs of every command, recorded answers, inputs, batch."""
