"""`gc_paused`: no cyclic collection inside, the collector's previous state restored after."""

from __future__ import annotations

import gc

import pytest

from planner.budget import gc_paused


def test_the_collector_is_paused_inside_and_enabled_again_after_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause leaves the outer one in force
        raise RuntimeError
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
