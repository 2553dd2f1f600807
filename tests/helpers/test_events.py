"""recording and report: during a capture the checks report what they observed instead of raising."""

from __future__ import annotations

import inspect
import warnings

import pytest
import torch

from autograd_notes import BehaviourDrift, check, expect_error, expect_warning
from autograd_notes._drift import Location
from autograd_notes._events import is_recording, recording, report
from autograd_notes._expect import ExampleTimeout

HERE = "tests/helpers/test_events.py"


def next_line() -> int:
    """The line number after the caller's current line."""
    frame = inspect.currentframe()
    assert frame is not None
    assert frame.f_back is not None
    return frame.f_back.f_lineno + 1


# -- recording and report -------------------------------------------------------


def test_report_outside_a_recording_does_nothing() -> None:
    assert not is_recording()
    report({"kind": "value", "value": "1"})
    with recording() as events:
        pass
    assert events == []


def test_recording_collects_the_events_reported_inside_it() -> None:
    with recording() as events:
        assert is_recording()
        report({"kind": "value", "value": "1"})
        report({"kind": "value", "value": "2"})
    assert not is_recording()
    assert events == [{"kind": "value", "value": "1"}, {"kind": "value", "value": "2"}]


def test_recordings_nest_and_events_go_to_the_innermost() -> None:
    with recording() as outer:
        report({"n": 1})
        with recording() as inner:
            report({"n": 2})
        assert is_recording()
        report({"n": 3})
    assert outer == [{"n": 1}, {"n": 3}]
    assert inner == [{"n": 2}]
    assert not is_recording()


def test_recording_ends_when_its_block_raises() -> None:
    with pytest.raises(KeyError), recording():
        raise KeyError("x")
    assert not is_recording()


# -- expect_error during a capture ----------------------------------------------


def test_documented_error_holds_and_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events:
        line = next_line()
        with expect_error(ZeroDivisionError, match="division") as caught:
            1 / 0  # noqa: B018
    assert isinstance(caught.value, ZeroDivisionError)
    assert events == [
        {
            "kind": "error",
            "line": line,
            "documented": "ZeroDivisionError matching 'division'",
            "raised": "ZeroDivisionError",
            "message": "division by zero",
            "holds": True,
        }
    ]
    assert capsys.readouterr().out.splitlines()[-1] == "ZeroDivisionError: division by zero"


def test_no_error_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events:
        line = next_line()
        with expect_error(RuntimeError) as caught:
            torch.ones(2, requires_grad=True).sum().backward()
        went_on = True
    assert went_on
    assert caught.value is None
    assert events == [
        {
            "kind": "error",
            "line": line,
            "documented": "RuntimeError",
            "raised": None,
            "message": None,
            "holds": False,
        }
    ]
    assert capsys.readouterr().out == ""


def test_unexpected_type_is_reported_and_suppressed(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events:
        line = next_line()
        with expect_error(RuntimeError, match="scalar") as caught:
            raise ValueError("not the documented one")
        went_on = True
    assert went_on
    assert isinstance(caught.value, ValueError)
    assert events[0]["raised"] == "ValueError"
    assert events[0]["message"] == "not the documented one"
    assert events[0]["holds"] is False
    assert events[0]["line"] == line
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Traceback (most recent call last):"
    assert f'  File "{HERE}", line {line + 1}, in test_unexpected_type_is_reported_and_suppressed' in out
    assert out[-1] == "ValueError: not the documented one"


def test_changed_message_is_reported_with_the_new_message(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events, expect_error(RuntimeError, match="only for scalar outputs"):
        torch.ones(2, requires_grad=True).mul(2).backward(torch.ones(3))
    assert events[0]["raised"] == "RuntimeError"
    assert events[0]["holds"] is False
    assert "Mismatch in shape" in events[0]["message"]
    assert "Mismatch in shape" in capsys.readouterr().out


def test_reported_message_is_normalised(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events, expect_error(RuntimeError):
        raise RuntimeError(
            "bad <AddBackward0 object at 0x7f00aa11bb22> (Triggered internally at /pytorch/x.cpp:1.)"
        )
    assert events[0]["message"] == "bad <AddBackward0>"
    assert "0x7f" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "error",
    [
        BehaviourDrift(location=Location("a.py", 1), documented="x", observed="y"),
        ExampleTimeout("too slow"),
        KeyboardInterrupt(),
    ],
    ids=["drift", "timeout", "interrupt"],
)
def test_drift_timeouts_and_interrupts_pass_through_unreported(error: BaseException) -> None:
    with recording() as events, pytest.raises(type(error)), expect_error(Exception):
        raise error
    assert events == []


# -- expect_warning during a capture ---------------------------------------------


def test_documented_warning_holds(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events:
        line = next_line()
        with expect_warning(UserWarning, match="old"):
            warnings.warn("old api", UserWarning, stacklevel=1)
    assert events == [
        {
            "kind": "warning",
            "line": line,
            "documented": "UserWarning matching 'old'",
            "warnings": [{"category": "UserWarning", "message": "old api"}],
            "holds": True,
        }
    ]
    assert capsys.readouterr().out == f"{HERE}:{line + 1}: UserWarning: old api\n"


def test_missing_warning_is_reported_not_raised() -> None:
    with recording() as events, expect_warning(UserWarning):
        pass
    assert events[0]["warnings"] == []
    assert events[0]["holds"] is False


def test_other_warning_is_reported_printed_and_not_emitted_again(capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as in a capture: an emitted warning would stop the example
        with recording() as events:
            line = next_line()
            with expect_warning(UserWarning, match="old"):
                warnings.warn("new api", FutureWarning, stacklevel=1)
            went_on = True
    assert went_on
    assert events[0]["warnings"] == [{"category": "FutureWarning", "message": "new api"}]
    assert events[0]["holds"] is False
    assert capsys.readouterr().out == f"{HERE}:{line + 1}: FutureWarning: new api\n"


def test_other_warnings_beside_the_documented_one_are_still_emitted() -> None:
    def documented_and_beside() -> None:
        with expect_warning(UserWarning):
            warnings.warn("documented", UserWarning, stacklevel=1)
            warnings.warn("beside", FutureWarning, stacklevel=1)

    with recording() as events, pytest.warns(FutureWarning, match="beside"):
        documented_and_beside()
    assert events[0]["holds"] is True
    assert [w["category"] for w in events[0]["warnings"]] == ["UserWarning", "FutureWarning"]


# -- check during a capture -------------------------------------------------------


def test_check_that_holds_reports_value_and_documented(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events:
        line = next_line()
        check(torch.tensor(8.0), 8.0, label="x.grad")
    assert events == [
        {
            "kind": "value",
            "line": line,
            "label": "x.grad",
            "value": "tensor(8.)",
            "documented": "8.0",
            "holds": True,
        }
    ]
    assert capsys.readouterr().out == "x.grad: tensor(8.)\n"


def test_check_mismatch_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    with recording() as events:
        check(torch.tensor(9.0), 8.0, label="x.grad")
        check(None, None)
        went_on = True
    assert went_on
    assert events[0]["value"] == "tensor(9.)"
    assert events[0]["documented"] == "8.0"
    assert events[0]["holds"] is False
    assert events[1]["label"] is None
    assert events[1]["holds"] is True
    assert capsys.readouterr().out == "x.grad: tensor(9.)\nNone\n"


def test_outside_a_capture_the_checks_still_raise() -> None:
    with pytest.raises(BehaviourDrift):
        check(torch.tensor(9.0), 8.0)
    with pytest.raises(BehaviourDrift), expect_error(RuntimeError):
        pass
    with pytest.raises(BehaviourDrift), expect_warning(UserWarning):
        pass
