"""How much an example may print: a quarter of the limit per cell, the limit in all."""

from __future__ import annotations

import pytest

from autograd_notes.records.capture.limits import (
    OUTPUT_LIMIT_VARIABLE,
    OutputLimitError,
    check_output,
    output_limits,
)


def test_the_default_limits_are_far_above_what_examples_print() -> None:
    assert output_limits() == (256 * 1024, 1024 * 1024)
    check_output("plot_x.py", [(10, 2500), (40, 9000)])  # the most a real example prints, and more


def test_a_cell_over_a_quarter_of_the_limit_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OUTPUT_LIMIT_VARIABLE, "64")
    with pytest.raises(OutputLimitError) as caught:
        check_output("plot_x.py", [(10, 100), (25, 20_000)])
    assert str(caught.value) == (
        "plot_x.py: the cell at line 25 printed 20 KiB, over the limit of 16 KiB per cell "
        f"(a quarter of {OUTPUT_LIMIT_VARIABLE}, 64 KiB)"
    )


def test_an_example_over_the_limit_in_all_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OUTPUT_LIMIT_VARIABLE, "64")
    with pytest.raises(OutputLimitError, match=r"^plot_x\.py: it printed 75 KiB, over the limit of 64 KiB"):
        check_output("plot_x.py", [(line, 15_000) for line in range(5)] + [(99, 1_800)])


@pytest.mark.parametrize("value", ["lots", "0", "-3"])
def test_a_bad_limit_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(OUTPUT_LIMIT_VARIABLE, value)
    with pytest.raises(ValueError, match=OUTPUT_LIMIT_VARIABLE):
        output_limits()
