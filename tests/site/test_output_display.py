"""Outputs as pages show them: show_state tables marked for the stylesheet, repeated warnings folded."""

from __future__ import annotations

import json

import torch
from _site import ROOT
from pygments.token import Text

from autograd_notes import state_table
from autograd_notes.site.examples.output_lexer import STATE_NAME, STATE_ROW, OutputLexer
from autograd_notes.site.examples.repeated_warnings import fold_repeated_warnings


def tokens(text: str) -> list[tuple[object, str]]:
    return [(token, value) for _, token, value in OutputLexer().get_tokens_unprocessed(text)]


def test_a_state_table_is_marked_row_by_row_and_its_text_is_unchanged() -> None:
    weight = torch.tensor([1.5], requires_grad=True)
    scaled_weight = weight * 2
    table = state_table(weight=weight, scaled_weight=scaled_weight)
    text = f"before\n{table}\nweight.grad: None\n"
    found = tokens(text)
    assert "".join(value for _, value in found) == text
    names = [value.strip() for token, value in found if token is STATE_NAME]
    assert names == ["tensor", "weight", "scaled_weight"]
    rows = [value for token, value in found if token is STATE_ROW]
    assert rows[0].startswith(" requires_grad")  # one space: the row cannot wrap after the name
    assert rows[2].startswith(" True")
    assert "MulBackward0" in rows[2]
    # the name column is as wide as the longest name: every row's second column lines up
    assert len({len(value) for token, value in found if token is STATE_NAME}) == 1
    assert (Text, "before\n") in found
    assert (Text, "weight.grad: None\n") in found


def test_lines_that_only_look_like_a_table_are_plain_text() -> None:
    text = "tensor  True\nx       True           True     None\n"
    assert {token for token, _ in tokens(text)} == {Text}


def test_forward_modes_eighteen_warnings_are_shown_once_with_their_count() -> None:
    record = json.loads((ROOT / "records/cpu/10_higher_order/plot_forward_mode.json").read_text("utf-8"))
    last = "warnings on the first call: 18"
    output = next(cell["output"] for cell in record["cells"] if last in cell["output"])
    folded = fold_repeated_warnings(output, lambda n: f"[{n} times]")
    assert folded[1:] == ["[18 times]", last]
    assert folded[0] == output[0]
    assert "DeprecationWarning" in folded[0]


def test_other_repeated_lines_stay_as_printed() -> None:
    lines = ["tensor(0.)", "tensor(0.)", "a.py:3: UserWarning: once", "a.py:4: UserWarning: other"]
    assert fold_repeated_warnings(lines, lambda n: f"[{n} times]") == lines
