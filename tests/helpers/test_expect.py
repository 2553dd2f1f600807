"""expect_error and expect_warning: suppress what is documented, raise BehaviourDrift otherwise."""

from __future__ import annotations

import inspect
import re
import warnings

import pytest
import torch

from autograd_notes import BehaviourDrift, expect_error, expect_warning
from autograd_notes._drift import Location
from autograd_notes._expect import ExampleTimeout

HERE = "tests/helpers/test_expect.py"
TRIGGERED = " (Triggered internally at /pytorch/aten/src/ATen/core/TensorBody.h:494.)"


def next_line() -> int:
    """The line number after the caller's current line."""
    frame = inspect.currentframe()
    assert frame is not None
    assert frame.f_back is not None
    return frame.f_back.f_lineno + 1


def drift_text(line: int, documented: str, observed: str) -> str:
    return (
        f"behaviour drift at {HERE}:{line}\n"
        f"  documented: {documented}\n"
        f"  observed:   {observed}\n"
        f"  PyTorch {torch.__version__}: this example was written for a PyTorch "
        "that behaves as documented; yours behaves differently."
    )


# -- expect_error: the documented error -----------------------------------------


def test_backward_twice_prints_clean_traceback_and_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with expect_error(RuntimeError, match="backward through the graph a second time") as caught:
        line = next_line()
        y.backward()
    went_on = True

    assert went_on
    assert isinstance(caught.value, RuntimeError)
    assert "a second time" in str(caught.value)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == (
        f'  File "{HERE}", line {line}, in test_backward_twice_prints_clean_traceback_and_goes_on'
    )
    assert lines[2] == "    y.backward()"
    assert re.fullmatch(r"  \[\d+ frames inside PyTorch: torch\._tensor\.backward( > [\w.]+)+\]", lines[3])
    assert lines[4].startswith("RuntimeError: Trying to backward through the graph a second time")
    assert len(lines) == 5
    assert not any("site-packages" in text or "/work/" in text for text in lines)


def test_inplace_after_pow_collapses_pytorch_frames_into_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b.pow(2)
    b.add_(1)
    with expect_error(RuntimeError, match="modified by an inplace operation") as caught:
        line = next_line()
        c.sum().backward()

    assert caught.value is not None
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1:3] == [
        f'  File "{HERE}", line {line}, in test_inplace_after_pow_collapses_pytorch_frames_into_one_line',
        "    c.sum().backward()",
    ]
    collapsed = [text for text in lines if "inside PyTorch" in text]
    assert len(collapsed) == 1
    match = re.fullmatch(
        r"  \[(\d+) frames inside PyTorch: (torch\._tensor\.backward(?: > [\w.]+)+)\]", lines[3]
    )
    assert match is not None
    assert int(match[1]) == len(match[2].split(" > ")) >= 2
    assert lines[-1].startswith("RuntimeError: one of the variables needed for gradient computation")
    assert lines[-1] == "RuntimeError: " + " ".join(str(caught.value).split())


def test_value_is_none_until_the_block_has_raised() -> None:
    guard = expect_error(ZeroDivisionError)
    assert guard.value is None
    with guard:
        1 / 0  # noqa: B018
    assert isinstance(guard.value, ZeroDivisionError)


def test_match_is_a_regular_expression_searched_in_the_message(capsys: pytest.CaptureFixture[str]) -> None:
    with expect_error(ValueError, match=r"width \d+ is odd") as caught:
        raise ValueError("the width 7 is odd")
    assert str(caught.value) == "the width 7 is odd"
    assert capsys.readouterr().out.splitlines()[-1] == "ValueError: the width 7 is odd"


def test_tuple_of_types_is_accepted() -> None:
    with expect_error((KeyError, ValueError), match="boom") as caught:
        raise ValueError("boom")
    assert type(caught.value) is ValueError


def test_subclass_of_the_expected_type_is_accepted() -> None:
    with expect_error(LookupError) as caught:
        {}["missing"]
    assert type(caught.value) is KeyError


def test_printed_exception_line_is_normalised(capsys: pytest.CaptureFixture[str]) -> None:
    with expect_error(ValueError):
        raise ValueError("bad node <Node object at 0x7f00aa11bb22>" + TRIGGERED)
    assert capsys.readouterr().out.splitlines()[-1] == "ValueError: bad node <Node>"


# -- expect_error: each way it drifts -----------------------------------------------


def test_nothing_raised_is_drift() -> None:
    line = next_line()
    with pytest.raises(BehaviourDrift) as info, expect_error(ValueError, match="boom"):
        pass
    drift = info.value
    assert str(drift) == drift_text(line, "ValueError matching 'boom'", "no exception was raised")
    assert str(drift.location) == f"{HERE}:{line}"
    assert drift.documented == "ValueError matching 'boom'"
    assert drift.observed == "no exception was raised"
    assert drift.torch_version == torch.__version__


def test_nothing_raised_names_every_type_of_a_tuple() -> None:
    with pytest.raises(BehaviourDrift) as info, expect_error((KeyError, ValueError)):
        pass
    assert info.value.documented == "KeyError or ValueError"


def test_another_type_is_drift_chained_to_the_original() -> None:
    original = KeyError("boom")
    line = next_line()
    with pytest.raises(BehaviourDrift) as info, expect_error(ValueError, match="boom"):
        raise original
    drift = info.value
    assert drift.__cause__ is original
    assert str(drift) == drift_text(line, "ValueError matching 'boom'", "KeyError: 'boom'")


def test_another_type_with_a_long_message_is_shown_on_one_normalised_line() -> None:
    message = "first line 0x7f00aa11bb22\n   second line" + TRIGGERED
    with pytest.raises(BehaviourDrift) as info, expect_error(KeyError):
        raise RuntimeError(message)
    assert info.value.observed == "RuntimeError: first line 0x… second line"


def test_message_that_no_longer_matches_is_drift() -> None:
    original = ValueError("the new wording at 0x7f00aa11bb22")
    line = next_line()
    with pytest.raises(BehaviourDrift) as info, expect_error(ValueError, match="old wording"):
        raise original
    drift = info.value
    assert drift.__cause__ is original
    assert str(drift) == drift_text(
        line, "ValueError matching 'old wording'", "the message changed to 'the new wording at 0x…'"
    )


def test_drift_prints_no_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(BehaviourDrift), expect_error(ValueError, match="old"):
        raise ValueError("new")
    assert capsys.readouterr().out == ""


def test_behaviour_drift_inside_the_block_propagates_unchanged() -> None:
    inner = BehaviourDrift(location=Location("plot_x.py", 3), documented="a", observed="b")
    with pytest.raises(BehaviourDrift) as info, expect_error(Exception):
        raise inner
    assert info.value is inner
    assert info.value.__cause__ is None


def test_nested_drift_is_not_swallowed_by_an_outer_expect_error() -> None:
    with pytest.raises(BehaviourDrift) as info, expect_error(Exception):  # noqa: PT012 - nested on purpose
        line = next_line()
        with expect_error(ValueError):
            pass
    assert info.value.observed == "no exception was raised"
    assert str(info.value.location) == f"{HERE}:{line}"


# -- expect_warning -----------------------------------------------------------------


def test_matching_warning_is_printed_with_path_line_category_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    message = "grad of a non-leaf is not populated" + TRIGGERED
    with expect_warning(UserWarning, match="non-leaf") as caught:
        line = next_line()
        warnings.warn(message, UserWarning, stacklevel=1)
    assert capsys.readouterr().out == f"{HERE}:{line}: UserWarning: grad of a non-leaf is not populated\n"
    assert len(caught.records) == 1
    assert str(caught.records[0].message) == message


def test_real_pytorch_warning_is_printed_without_its_build_path(capsys: pytest.CaptureFixture[str]) -> None:
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with expect_warning(UserWarning, match="not a leaf Tensor"):
        line = next_line()
        y.grad  # noqa: B018
    out = capsys.readouterr().out
    assert out.startswith(f"{HERE}:{line}: UserWarning: The .grad attribute of a Tensor that is not a leaf")
    assert "Triggered internally" not in out
    assert out.endswith("for more information.\n")


def test_every_matching_warning_is_printed_and_kept(capsys: pytest.CaptureFixture[str]) -> None:
    with expect_warning((DeprecationWarning, FutureWarning)) as caught:
        warnings.warn("old", DeprecationWarning, stacklevel=1)
        warnings.warn("soon", FutureWarning, stacklevel=1)
    out = capsys.readouterr().out.splitlines()
    assert [text.split(": ", 1)[1] for text in out] == ["DeprecationWarning: old", "FutureWarning: soon"]
    assert [record.category for record in caught.records] == [DeprecationWarning, FutureWarning]


def test_no_warning_is_drift() -> None:
    line = next_line()
    with pytest.raises(BehaviourDrift) as info, expect_warning(UserWarning, match="non-leaf"):
        pass
    assert str(info.value) == drift_text(line, "UserWarning matching 'non-leaf'", "no warning was emitted")


def test_only_other_warnings_is_drift_listing_them(capsys: pytest.CaptureFixture[str]) -> None:
    line = next_line()
    with pytest.raises(BehaviourDrift) as info, expect_warning(UserWarning, match="wanted"):  # noqa: PT012
        warnings.warn("something else", UserWarning, stacklevel=1)
        warnings.warn("old api at 0x7f00aa11bb22" + TRIGGERED, DeprecationWarning, stacklevel=1)
    assert str(info.value) == drift_text(
        line,
        "UserWarning matching 'wanted'",
        "other warnings: UserWarning: something else; DeprecationWarning: old api at 0x…",
    )
    assert capsys.readouterr().out == ""


def test_other_warnings_are_emitted_again_after_the_block(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.warns(RuntimeWarning, match="unrelated") as recorded, expect_warning(UserWarning):  # noqa: PT031
        line = next_line()
        warnings.warn("wanted", UserWarning, stacklevel=1)
        warnings.warn("unrelated", RuntimeWarning, stacklevel=1)
    assert [(record.category, str(record.message)) for record in recorded] == [(RuntimeWarning, "unrelated")]
    assert recorded[0].filename == __file__
    assert recorded[0].lineno == line + 1
    assert capsys.readouterr().out == f"{HERE}:{line}: UserWarning: wanted\n"


def test_exception_inside_expect_warning_propagates_and_restores_filters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = list(warnings.filters)
    with pytest.raises(KeyError, match="inside"), expect_warning(UserWarning):  # noqa: PT012
        warnings.warn("wanted", UserWarning, stacklevel=1)
        raise KeyError("inside")
    assert warnings.filters == before
    assert capsys.readouterr().out == ""


def test_exception_without_the_warning_is_not_drift() -> None:
    with pytest.raises(KeyError, match="inside") as info, expect_warning(UserWarning):
        raise KeyError("inside")
    assert info.value.__cause__ is None


def test_warning_filters_are_restored_after_the_block() -> None:
    before = list(warnings.filters)
    with expect_warning(UserWarning):
        warnings.warn("wanted", UserWarning, stacklevel=1)
    assert warnings.filters == before
    with pytest.raises(UserWarning, match="errors again"):  # pytest's "error" filter is back
        warnings.warn("errors again", UserWarning, stacklevel=1)


def test_other_warnings_become_errors_where_warnings_are_errors(capsys: pytest.CaptureFixture[str]) -> None:
    # pytest runs with filterwarnings=error, as an example runs after reset_example("before").
    with pytest.raises(DeprecationWarning, match="undocumented"), expect_warning(UserWarning):  # noqa: PT012
        warnings.warn("wanted", UserWarning, stacklevel=1)
        warnings.warn("undocumented", DeprecationWarning, stacklevel=1)
    assert capsys.readouterr().out.endswith(": UserWarning: wanted\n")


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), ExampleTimeout("plot_x.py did not finish")])
def test_interrupts_and_timeouts_are_never_documented_errors(interrupt: BaseException) -> None:
    """Even ``expect_error(BaseException)`` lets an interrupt or a timeout through."""
    with pytest.raises(type(interrupt)), expect_error(BaseException):
        raise interrupt
