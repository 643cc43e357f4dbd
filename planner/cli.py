"""The `planner` command line."""

from __future__ import annotations

import argparse
import sys

from planner import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="planner", description=__doc__)
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help(sys.stdout)
    return 0
