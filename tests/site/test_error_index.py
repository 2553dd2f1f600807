"""Grouping the recorded errors and warnings for the error-message index."""

from __future__ import annotations

from typing import Any

from autograd_notes.site.error_index import (
    Occurrence,
    collect_messages,
    event_messages,
    message_head,
    message_label,
)

INPLACE = (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.FloatTensor []], which is output 0 of {node}, is at version 1; expected version 0 instead."
)


def error(line: int, message: str, raised: str = "RuntimeError") -> dict[str, Any]:
    return {"kind": "error", "line": line, "raised": raised, "message": message, "holds": True}


def record(*events: dict[str, Any]) -> dict[str, Any]:
    return {"cells": [{"lines": [1, 10], "events": list(events)}]}


def test_variants_of_one_message_form_one_family() -> None:
    records = {
        "cpu": {
            "05_inplace/plot_a.py": record(error(12, INPLACE.format(node="Add"))),
            "06_views/plot_b.py": record(error(30, INPLACE.format(node="Pow"))),
        },
        "cuda": {"05_inplace/plot_a.py": record(error(12, INPLACE.format(node="Add")))},
    }
    (family,) = collect_messages(records)
    assert family.kind == "error"
    assert family.head == (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an "
        "inplace operation"
    )
    add, pow_ = family.variants
    assert add.text == "RuntimeError: " + INPLACE.format(node="Add")
    assert add.occurrences == [
        Occurrence("05_inplace/plot_a.py", 12, "cpu"),
        Occurrence("05_inplace/plot_a.py", 12, "cuda"),
    ]
    assert pow_.occurrences == [Occurrence("06_views/plot_b.py", 30, "cpu")]
    assert add.label == message_label("error", add.text) != pow_.label


def test_errors_come_before_warnings_and_events_without_a_message_are_skipped() -> None:
    warning = {
        "kind": "warning",
        "line": 5,
        "warnings": [
            {"category": "UserWarning", "message": "The .grad attribute of a Tensor that is not a leaf"}
        ],
        "holds": True,
    }
    nothing_raised = {"kind": "error", "line": 7, "raised": None, "message": None, "holds": False}
    value = {"kind": "value", "line": 9, "label": "x", "value": "1", "documented": "1", "holds": True}
    records = {
        "cpu": {"01/plot_c.py": record(warning, nothing_raised, value, error(3, "boom", "IndexError"))}
    }
    families = collect_messages(records)
    assert [(f.kind, f.head) for f in families] == [
        ("error", "IndexError: boom"),
        ("warning", "UserWarning: The .grad attribute of a Tensor that is not a leaf"),
    ]
    assert event_messages(nothing_raised) == []
    assert event_messages(value) == []


def test_heads_stop_at_the_first_clause() -> None:
    assert message_head("RuntimeError: Mismatch in shape: grad_output[0] has a shape") == (
        "RuntimeError: Mismatch in shape"
    )
    assert message_head("RuntimeError: Trying to backward through the graph a second time (or directly") == (
        "RuntimeError: Trying to backward through the graph a second time"
    )


def test_labels_are_stable_and_distinct() -> None:
    assert message_label("error", "RuntimeError: x") == message_label("error", "RuntimeError: x")
    assert message_label("error", "RuntimeError: x") != message_label("warning", "RuntimeError: x")
    assert message_label("error", "RuntimeError: x").startswith("error-")
