"""A batch's answers do not depend on where or after what each file is planned."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.batch import collect_inputs, plan_file
from planner.limits import Limits
from tests.batch_corpus import write_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    assert len(write_corpus(root)) >= 300
    return root


def _answers_in_both_orders(paths: list[str]) -> list[str]:
    """The paths whose answer changes when the files planned before them in the process change."""
    forward = {path: plan_file(path, Limits()) for path in paths}
    backward = {path: plan_file(path, Limits()) for path in reversed(paths)}
    return [path for path in paths if forward[path] != backward[path]]


def test_a_tt_lang_file_is_answered_the_same_whatever_was_read_before_it_in_the_process(
    corpus: Path,
) -> None:
    folders = [corpus / "copy0" / name for name in ("ttlang", "lit", "json")]
    assert _answers_in_both_orders(collect_inputs(folders)) == []


@pytest.mark.slow
def test_every_file_is_answered_the_same_whatever_was_read_before_it_in_the_process(corpus: Path) -> None:
    assert _answers_in_both_orders(collect_inputs([corpus])) == []
