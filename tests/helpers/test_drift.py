"""BehaviourDrift and caller_location: where, what was documented, what happened."""

from __future__ import annotations

import inspect

import pytest
import torch

from autograd_notes import BehaviourDrift
from autograd_notes._drift import Location, caller_location


def where_called() -> Location:
    return caller_location()


def this_line() -> int:
    frame = inspect.currentframe()
    assert frame is not None
    assert frame.f_back is not None
    return frame.f_back.f_lineno


def test_location_prints_as_path_colon_line() -> None:
    assert str(Location("gallery/05_inplace/plot_x.py", 12)) == "gallery/05_inplace/plot_x.py:12"


def test_location_is_frozen_and_compares_by_value() -> None:
    assert Location("a.py", 1) == Location("a.py", 1)
    with pytest.raises(AttributeError):
        Location("a.py", 1).line = 2  # type: ignore[misc]


def test_caller_location_is_the_caller_of_the_caller() -> None:
    location, line = where_called(), this_line()
    assert location == Location("tests/helpers/test_drift.py", line)


def test_caller_location_depth_one_is_the_direct_caller() -> None:
    location, line = caller_location(depth=1), this_line()
    assert location == Location("tests/helpers/test_drift.py", line)


def test_message_names_place_documented_observed_and_torch() -> None:
    drift = BehaviourDrift(
        location=Location("gallery/plot_x.py", 7),
        documented="RuntimeError",
        observed="no exception was raised",
    )
    assert str(drift) == (
        "behaviour drift at gallery/plot_x.py:7\n"
        "  documented: RuntimeError\n"
        "  observed:   no exception was raised\n"
        f"  PyTorch {torch.__version__}: this example was written for a PyTorch that behaves as "
        "documented; yours behaves differently."
    )
    assert drift.location == Location("gallery/plot_x.py", 7)
    assert drift.documented == "RuntimeError"
    assert drift.observed == "no exception was raised"
    assert drift.torch_version == torch.__version__


def test_arguments_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        BehaviourDrift(Location("a.py", 1), "x", "y")  # type: ignore[misc]


def test_no_documented_expectation_can_swallow_it() -> None:
    assert not issubclass(BehaviourDrift, (AssertionError, RuntimeError, ValueError, TypeError))
    drift = BehaviourDrift(location=Location("a.py", 1), documented="x", observed="y")
    caught = None
    try:
        raise drift
    except (AssertionError, RuntimeError):  # pragma: no cover - the point is that this misses
        pytest.fail("BehaviourDrift was caught as an AssertionError or RuntimeError")
    except BehaviourDrift as error:
        caught = error
    assert caught is drift
