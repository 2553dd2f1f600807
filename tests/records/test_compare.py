"""compare_records, word_diff, compare_live: every kind of difference, as data."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autograd_notes._device import DEVICE_VARIABLE
from autograd_notes.records.capture.cells import capture_example
from autograd_notes.records.drift.compare import (
    Difference,
    DifferenceKind,
    compare_live,
    compare_records,
    record_cell,
    same_behaviour,
)
from autograd_notes.records.drift.printed import comparable_output, same_printed
from autograd_notes.records.drift.reasons import OutputReason, output_difference_reason
from autograd_notes.records.format.record_format import Record
from autograd_notes.records.format.word_diffs import Change, Segment, render_word_diff, word_diff

ROOT = Path(__file__).resolve().parents[2]
INPLACE = "05_inplace/plot_detach_inplace_saved.py"  # errors and values
NON_LEAF = "02_backward/plot_non_leaf_grad.py"  # a warning


@pytest.fixture(scope="module")
def captured() -> Iterator[dict[str, Record]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DEVICE_VARIABLE, "cpu")
        yield {example: capture_example(ROOT / "gallery", example, ROOT) for example in (INPLACE, NON_LEAF)}


@pytest.fixture
def inplace(captured: dict[str, Record]) -> Record:
    return copy.deepcopy(captured[INPLACE])


@pytest.fixture
def non_leaf(captured: dict[str, Record]) -> Record:
    return copy.deepcopy(captured[NON_LEAF])


def first_event(record: Record, kind: str) -> tuple[int, dict[str, Any]]:
    """The index of the cell holding the first event of ``kind``, and that event."""
    for index, cell in enumerate(record["cells"]):
        for event in cell["events"]:
            if event["kind"] == kind:
                return index, event
    raise AssertionError(f"no {kind} event")


def only(differences: list[Difference]) -> Difference:
    assert len(differences) == 1, differences
    return differences[0]


# -- word_diff ----------------------------------------------------------------------


KEPT, REMOVED, ADDED = Change.KEPT, Change.REMOVED, Change.ADDED


def test_word_diff_is_segments_kept_removed_and_added() -> None:
    assert word_diff("a b c", "a x c") == (
        Segment(KEPT, "a"),
        Segment(REMOVED, "b"),
        Segment(ADDED, "x"),
        Segment(KEPT, "c"),
    )
    assert word_diff("a b c", "a c") == (Segment(KEPT, "a"), Segment(REMOVED, "b"), Segment(KEPT, "c"))
    assert word_diff("a c", "a b c") == (Segment(KEPT, "a"), Segment(ADDED, "b"), Segment(KEPT, "c"))
    # words keep their brackets: nothing is read back from a text
    assert word_diff("[-x-] y", "{+x+} y") == (
        Segment(REMOVED, "[-x-]"),
        Segment(ADDED, "{+x+}"),
        Segment(KEPT, "y"),
    )


def test_a_word_diff_renders_for_the_terminal() -> None:
    def render(old: str, new: str) -> str:
        return render_word_diff(word_diff(old, new))

    assert render("a b c", "a x c") == "a [-b-]{+x+} c"
    assert render("a b c", "a c") == "a [-b-] c"
    assert render("a c", "a b c") == "a {+b+} c"
    assert render("which is output 0 of AddBackward0, is at", "which is output 0 of Add, is at") == (
        "which is output 0 of [-AddBackward0,-]{+Add,+} is at"
    )
    assert render_word_diff(word_diff("a b", "x y"), lambda s: f"<{s.change}:{s.text}>") == (
        "<removed:a b><added:x y>"
    )
    assert render_word_diff(()) == ""


def test_two_messages_that_say_other_things_are_replaced_whole() -> None:
    """Their few shared words ("no", "on", "system.") do not weave them into one line."""
    old = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"
    new = "RuntimeError: pin_memory=True requires an accelerator backend; no allocator is on this system."
    assert render_word_diff(word_diff(old, new)) == (
        "RuntimeError: [-"
        + old.removeprefix("RuntimeError: ")
        + "-]{+"
        + new.removeprefix("RuntimeError: ")
        + "+}"
    )


def test_word_diff_collapses_long_unchanged_runs_keeping_context() -> None:
    words = [f"w{n}" for n in range(1, 41)]
    head, middle, tail = " ".join(words[:10]), " ".join(words[10:30]), " ".join(words[30:])
    old, new = f"{head} X {middle} Y {tail}", f"{head} Z {middle} Q {tail}"
    assert render_word_diff(word_diff(old, new)) == (
        "… w7 w8 w9 w10 [-X-]{+Z+} w11 w12 w13 w14 … w27 w28 w29 w30 [-Y-]{+Q+} w31 w32 w33 w34 …"
    )
    assert render_word_diff(word_diff(old, new, context=1)) == "… w10 [-X-]{+Z+} w11 … w30 [-Y-]{+Q+} w31 …"


def test_word_diff_keeps_a_run_of_twice_the_context() -> None:
    run = " ".join(f"w{n}" for n in range(8))
    assert word_diff(f"{run} a", f"{run} b") == (
        Segment(KEPT, run),
        Segment(REMOVED, "a"),
        Segment(ADDED, "b"),
    )
    assert render_word_diff(word_diff(f"{run} w8 a", f"{run} w8 b")) == "… w5 w6 w7 w8 [-a-]{+b+}"


def test_word_diff_ignores_how_words_are_spaced() -> None:
    assert word_diff("a  b\nc", "a b c") == (Segment(KEPT, "a b c"),)


# -- compare_records: synthetic records, each kind ------------------------------------


def test_the_same_capture_has_no_difference(inplace: Record, captured: dict[str, Record]) -> None:
    assert compare_records(captured[INPLACE], inplace) == []


def test_no_longer_raises(captured: dict[str, Record], inplace: Record) -> None:
    index, event = first_event(inplace, "error")
    event.update(raised=None, message=None, holds=False)
    difference = only([d for d in compare_records(captured[INPLACE], inplace) if d.kind != "output changed"])
    assert difference.kind == "no longer raises"
    assert difference.cell == index
    assert difference.lines == tuple(inplace["cells"][index]["lines"])
    assert difference.line == event["line"]
    assert (difference.old, difference.new) == ("RuntimeError", None)
    assert difference.detail == f"documented: {event['documented']}"


def test_now_raises(captured: dict[str, Record], inplace: Record) -> None:
    old = copy.deepcopy(inplace)
    _, event = first_event(old, "error")
    event.update(raised=None, message=None, holds=False)
    difference = only(compare_records(old, inplace))
    assert difference.kind == "now raises"
    assert (difference.old, difference.new) == (None, "RuntimeError")
    assert difference.detail.startswith("one of the variables needed for gradient computation")


def test_now_raises_another_type(captured: dict[str, Record], inplace: Record) -> None:
    _, event = first_event(inplace, "error")
    event.update(raised="ValueError", message="something else", holds=False)
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.old, difference.new) == ("now raises", "RuntimeError", "ValueError")
    assert difference.detail == "something else"


def test_message_changed_shows_the_changed_words(captured: dict[str, Record], inplace: Record) -> None:
    _, event = first_event(inplace, "error")
    was = event["message"]
    event["message"] = was.replace("output 0 of Add,", "output 0 of AddBackward0,")
    difference = only(compare_records(captured[INPLACE], inplace))
    assert difference.kind is DifferenceKind.MESSAGE_CHANGED
    assert (difference.old, difference.new) == (was, event["message"])
    assert (Segment(REMOVED, "Add,"), Segment(ADDED, "AddBackward0,")) == difference.words[1:3]
    assert difference.words[0].text.startswith("…"), "the unchanged start is collapsed"
    assert difference.detail == ""
    # the page's pattern still matches the new words: cosmetic; once it does not, the page breaks
    assert difference.breaks is False
    event["holds"] = False
    assert only(compare_records(captured[INPLACE], inplace)).breaks is True


def test_value_changed_shows_old_and_new(captured: dict[str, Record], inplace: Record) -> None:
    index, event = first_event(inplace, "value")
    was = event["value"]
    event.update(value="tensor(1.)", holds=False)
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.cell, difference.line) == ("value changed", index, event["line"])
    assert (difference.old, difference.new) == (was, "tensor(1.)")
    assert difference.detail == f"{event['label']}: {was} -> tensor(1.)"


def test_value_changed_without_a_label() -> None:
    def record(value: str) -> Record:
        event = {"kind": "value", "line": 2, "label": None, "value": value, "documented": "1", "holds": True}
        return {"cells": [{"lines": [1, 3], "status": "ran", "output": [], "events": [event]}]}

    assert only(compare_records(record("1"), record("2"))).detail == "1 -> 2"


def test_a_float_rounded_one_unit_apart_is_not_drift() -> None:
    """Two CPUs sum a matrix product in another order: the fourth decimal may round otherwise."""

    def record(number: str) -> Record:
        value = f"tensor([[  2.7340,  {number}]])"
        event = {"kind": "value", "line": 2, "label": "g", "value": value, "documented": value, "holds": True}
        cell = {"lines": [1, 3], "status": "ran", "output": [f"g: {value}"], "events": [event]}
        return {"cells": [cell]}

    assert compare_records(record("15.6379"), record("15.6378")) == []
    assert same_behaviour(record("15.6379"), record("15.6380"))
    assert compare_live([(1, ["g: tensor([[  2.7340,  15.6378]])"])], record("15.6379")) == []
    # two units, or another number of decimals, is a change
    assert only(compare_records(record("15.6379"), record("15.6377"))).kind == "value changed"
    assert only(compare_records(record("15.6379"), record("15.638"))).kind == "value changed"
    assert not same_printed("loss 1.25", "loss 1.26 (nan)")


def test_output_changed_is_a_diff(captured: dict[str, Record], inplace: Record) -> None:
    index, _ = first_event(inplace, "value")
    output = inplace["cells"][index]["output"]
    was = output[0]
    output[0] = "y: tensor(1., grad_fn=<AddBackward0>)"
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.cell, difference.line) == ("output changed", index, None)
    lines = difference.detail.splitlines()
    assert lines[:2] == ["--- recorded", "+++ now"]
    assert f"-{was}" in lines
    assert "+y: tensor(1., grad_fn=<AddBackward0>)" in lines


def test_pytorch_internal_lines_and_folded_frames_are_not_drift(
    captured: dict[str, Record], inplace: Record
) -> None:
    """A release that moves PyTorch's own code changes where it warns and how many frames fold."""
    index, _ = first_event(inplace, "value")
    old = copy.deepcopy(captured[INPLACE])
    old["cells"][index]["output"][:0] = [
        "torch/autograd/graph.py:979: UserWarning: the same words",
        "  [3 frames inside PyTorch: torch._tensor.backward > torch.autograd.backward > x]",
        '  File "gallery/05/plot_x.py", line 12, in <module>',
    ]
    inplace["cells"][index]["output"][:0] = [
        "torch/autograd/graph.py:1072: UserWarning: the same words",
        "  [2 frames inside PyTorch: torch._tensor.backward > y]",
        '  File "gallery/05/plot_x.py", line 12, in <module>',
        # a frame that a release folds where the other has none (custom_function's apply)
        "  [1 frame inside PyTorch: torch.autograd.function.apply]",
    ]
    assert compare_records(old, inplace) == []
    assert compare_records(inplace, old) == []
    assert same_behaviour(old, inplace)
    # the words of the warning, or a line of the example itself, still count
    inplace["cells"][index]["output"][0] = "torch/autograd/graph.py:1072: UserWarning: other words"
    assert only(compare_records(old, inplace)).kind == "output changed"
    assert comparable_output(["gallery/05/plot_x.py:12: UserWarning: w"]) == [
        "gallery/05/plot_x.py:12: UserWarning: w"
    ]


def test_a_check_moved_inside_its_cell_is_listed(captured: dict[str, Record], inplace: Record) -> None:
    """The cells kept their lines but a check moved: the record would name a wrong line."""
    index, event = first_event(inplace, "value")
    event["line"] += 1
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.cell, difference.line) == ("cells changed", index, event["line"])
    assert (difference.old, difference.new) == (str(event["line"] - 1), str(event["line"]))
    assert not same_behaviour(captured[INPLACE], inplace)


def test_an_unexpected_warning_that_appears_breaks_the_page(
    captured: dict[str, Record], inplace: Record
) -> None:
    index, _ = first_event(inplace, "value")
    first = inplace["cells"][index]["lines"][0]
    inplace["cells"][index]["unexpected"] = [{"line": first, "category": "FutureWarning", "message": "soon"}]
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.cell, difference.breaks) == ("unexpected warning", index, True)
    assert (difference.old, difference.new) == (None, f"line {first}: FutureWarning: soon")
    gone = only(compare_records(inplace, captured[INPLACE]))
    assert (gone.kind, gone.old, gone.new, gone.breaks) == (
        "unexpected warning",
        f"line {first}: FutureWarning: soon",
        None,
        False,
    )
    reworded = copy.deepcopy(inplace)
    reworded["cells"][index]["unexpected"][0]["message"] = "later"
    assert render_word_diff(only(compare_records(inplace, reworded)).words).endswith("[-soon-]{+later+}")


def test_no_longer_warns(captured: dict[str, Record], non_leaf: Record) -> None:
    _, event = first_event(non_leaf, "warning")
    was = event["warnings"][0]
    event.update(warnings=[], holds=False)
    difference = only(compare_records(captured[NON_LEAF], non_leaf))
    assert (difference.kind, difference.line) == ("no longer warns", event["line"])
    assert difference.old == f"{was['category']}: {was['message']}"
    assert difference.new is None
    assert difference.detail == f"documented: {event['documented']}"


def test_now_warns(captured: dict[str, Record], non_leaf: Record) -> None:
    old = copy.deepcopy(non_leaf)
    _, event = first_event(old, "warning")
    event.update(warnings=[], holds=False)
    difference = only(compare_records(old, non_leaf))
    assert difference.kind == "now warns"
    assert difference.old is None
    assert difference.new is not None
    assert difference.new.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf")


def test_warning_changed(captured: dict[str, Record], non_leaf: Record) -> None:
    _, event = first_event(non_leaf, "warning")
    event["warnings"] = [{"category": "FutureWarning", "message": event["warnings"][0]["message"]}]
    difference = only(compare_records(captured[NON_LEAF], non_leaf))
    assert difference.kind is DifferenceKind.WARNING_CHANGED
    assert difference.old is not None
    assert difference.old.startswith("UserWarning: ")
    assert difference.new is not None
    assert difference.new.startswith("FutureWarning: ")
    assert difference.words[:2] == (Segment(REMOVED, "UserWarning:"), Segment(ADDED, "FutureWarning:"))
    assert difference.words[2].text.startswith("The .grad")


def test_status_changed(captured: dict[str, Record], inplace: Record) -> None:
    inplace["cells"][2]["status"] = "failed"
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.cell) == ("status changed", 2)
    assert (difference.old, difference.new) == ("ran", "failed")


def test_an_edited_example_is_reported_once_before_the_rest(
    captured: dict[str, Record], inplace: Record
) -> None:
    for cell in inplace["cells"][3:]:
        cell["lines"] = [cell["lines"][0] + 1, cell["lines"][1] + 1]
        for event in cell["events"]:  # a check that only moved is not reported again
            event["line"] += 1
    inplace["cells"][2]["lines"][1] += 1
    differences = compare_records(captured[INPLACE], inplace)
    assert differences[0] == Difference(
        0, (0, 0), "cells changed", None, None, None, "the example was edited since it was recorded"
    )
    assert differences[1:] == []


def test_checks_added_or_removed(captured: dict[str, Record], inplace: Record) -> None:
    index, _ = first_event(inplace, "value")
    inplace["cells"][index]["events"].pop()
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.detail) == ("cells changed", "checks added or removed")
    assert (difference.old, difference.new) == (
        str(len(captured[INPLACE]["cells"][index]["events"])),
        str(len(inplace["cells"][index]["events"])),
    )


def test_a_check_that_became_another_kind(captured: dict[str, Record], inplace: Record) -> None:
    index, event = first_event(inplace, "value")
    position = inplace["cells"][index]["events"].index(event)
    inplace["cells"][index]["events"][position] = {
        "kind": "warning",
        "line": event["line"],
        "documented": "UserWarning",
        "warnings": [],
        "holds": False,
    }
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.old, difference.new) == ("cells changed", "value", "warning")
    assert difference.detail == "the checks of this cell changed"


def test_an_edited_expectation_with_the_same_observation(
    captured: dict[str, Record], inplace: Record
) -> None:
    _, event = first_event(inplace, "value")
    event.update(documented="1.0", holds=False)
    difference = only(compare_records(captured[INPLACE], inplace))
    assert (difference.kind, difference.line) == ("cells changed", event["line"])
    assert (difference.old, difference.new) == ("0.0", "1.0")


def test_differences_are_in_cell_order_and_json_ready(captured: dict[str, Record], inplace: Record) -> None:
    inplace["cells"][5]["status"] = "failed"
    inplace["cells"][1]["output"].append("more")
    differences = compare_records(captured[INPLACE], inplace)
    assert [(d.cell, d.kind) for d in differences] == [(1, "output changed"), (5, "status changed")]
    assert differences[1].as_dict() == {
        "cell": 5,
        "lines": list(inplace["cells"][5]["lines"]),
        "kind": "status changed",
        "line": None,
        "old": "ran",
        "new": "failed",
        "detail": "",
        "breaks": True,
        "words": [],
    }
    assert differences[0].breaks is False  # only printed output differs: what the page checks holds


# -- record_cell and compare_live ------------------------------------------------------

SMALL: Record = {
    "cells": [
        {"lines": [1, 5], "status": "ran", "output": [], "events": []},
        {"lines": [6, 10], "status": "ran", "output": ["a", "b"], "events": []},
        {"lines": [11, 14], "status": "ran", "output": ["c"], "events": []},
    ]
}


def test_record_cell_is_the_cell_holding_the_line() -> None:
    assert record_cell(SMALL, 6) == SMALL["cells"][1]
    assert record_cell(SMALL, 10) == SMALL["cells"][1]
    assert record_cell(SMALL, 11) == SMALL["cells"][2]
    assert record_cell(SMALL, 15) is None
    cell = record_cell(SMALL, 1)
    assert cell is not None
    cell["status"] = "changed"
    assert SMALL["cells"][0]["status"] == "ran", "a copy"


def test_compare_live_of_the_same_outputs_is_empty() -> None:
    assert compare_live([(7, ["a", "b"]), (12, ["c"])], SMALL) == []


def test_compare_live_reports_each_cell_that_printed_otherwise() -> None:
    differences = compare_live([(7, ["a", "B"]), (12, ["c"]), (20, ["new"])], SMALL)
    assert [(d.cell, d.lines, d.kind) for d in differences] == [
        (0, (6, 10), "output changed"),
        (2, (20, 20), "output changed"),
    ]
    assert differences[0].detail.splitlines() == [
        "--- recorded",
        "+++ now",
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "+B",
    ]
    assert "+new" in differences[1].detail


def test_compare_live_ignores_pytorch_internal_line_numbers() -> None:
    recorded = {"cells": [{"lines": [1, 3], "output": ["torch/nn/modules/module.py:1830: UserWarning: w"]}]}
    live = [(1, ["torch/nn/modules/module.py:1911: UserWarning: w"])]
    assert compare_live(live, recorded) == []


# -- output_difference_reason -----------------------------------------------------


def test_the_reason_of_a_difference_in_the_tensor_type_only() -> None:
    cpu = ["RuntimeError: ... [torch.FloatTensor []], which is output 0 of Add"]
    cuda = ["RuntimeError: ... [torch.cuda.FloatTensor []], which is output 0 of Add"]
    assert output_difference_reason(cpu, cuda) is OutputReason.TENSOR_TYPE


def test_the_reason_of_a_difference_in_numbers_only() -> None:
    cpu = ["x.grad: tensor([0.1234, -2.5000e-08])", "loss: 3"]
    cuda = ["x.grad: tensor([0.1235, -2.4999e-08])", "loss: 3"]
    assert output_difference_reason(cpu, cuda) is OutputReason.NUMBERS


def test_the_reason_of_a_difference_in_the_device_printed_only() -> None:
    """A GPU tensor's repr names its device, which can wrap the line elsewhere; the runner line says cuda."""
    cpu = ["runner device: cpu", "y: tensor([2., 4.], grad_fn=<MulBackward0>)", "on: cpu"]
    cuda = [
        "runner device: cuda",
        "y: tensor([2., 4.], device='cuda:0',",
        "       grad_fn=<MulBackward0>)",
        "on: cuda:0",
    ]
    assert output_difference_reason(cpu, cuda) is OutputReason.DEVICE


def test_the_reason_of_a_difference_in_the_device_and_the_last_digits() -> None:
    cpu = ["w.grad: tensor([0.1234, 0.5000])"]
    cuda = ["w.grad: tensor([0.1235, 0.5000], device='cuda:0')"]
    assert output_difference_reason(cpu, cuda) is OutputReason.DEVICE_AND_NUMBERS


def test_the_reason_of_other_values_than_rounding_gives() -> None:
    """torch.randn on a GPU draws from the GPU's generator: other numbers from the same seed."""
    cpu = ["w: tensor([ 1.1164, -0.2126])"]
    cuda = ["w: tensor([ 0.7304,  0.3360], device='cuda:0')"]
    assert output_difference_reason(cpu, cuda) is OutputReason.VALUES
    assert output_difference_reason(["w: tensor([1.1164])"], ["w: tensor([0.7304])"]) is OutputReason.VALUES
    assert output_difference_reason(["w: 2.0001"], ["w: 2.0002"]) is OutputReason.NUMBERS
    # a sign moves a tensor's padding: still only values
    padded = (
        ["jac: tensor([[ 1.1164, -0.2126],", "        [-0.6401,  0.8255]])"],
        ["jac: tensor([[ 0.7304,  0.3360],", "        [ 1.0725, -0.3625]], device='cuda:0')"],
    )
    assert output_difference_reason(*padded) is OutputReason.VALUES


def test_a_device_named_in_a_different_message_is_a_difference_in_behaviour() -> None:
    """The device words are set aside, not what the runners did: an error on one runner only stays one."""
    cpu = ["w on cpu: tensor([1.])"]
    cuda = ["RuntimeError: Expected all tensors to be on the same device, but found cuda:0 and cpu!"]
    assert output_difference_reason(cpu, cuda) is OutputReason.BEHAVIOUR
    assert (
        output_difference_reason(["CUDA error: device-side assert"], ["cpu error"]) is OutputReason.BEHAVIOUR
    )


def test_the_reason_of_any_other_difference() -> None:
    assert output_difference_reason(["a: 1"], ["b: 1"]) is OutputReason.BEHAVIOUR
    assert output_difference_reason(["1"], ["1", "2"]) is OutputReason.BEHAVIOUR
