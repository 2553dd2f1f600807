"""Paste your error: the normalisation and ranking of ``site/error_match.py``, over the real records.

``error_search_cases.json`` holds the cases: how texts normalise (the
browser test runs the same through ``static/error_search.js``), and pasted
errors, taken from old and new releases' records with their shapes, numbers
and names changed, with the example page that must come first.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _site import LANGUAGES, Site

from autograd_notes._explain import match as error_match
from autograd_notes._explain.match import (
    Message,
    Normalised,
    error_message,
    normalise,
    rank,
    similarity,
    token_weights,
    unknown_weight,
)
from autograd_notes.records.history.runners import load_runner_records
from autograd_notes.site.build.error_index import build_index, cell_messages, cell_quotes
from autograd_notes.site.errors.families import recorded_messages
from autograd_notes.site.errors.subjects import is_about, page_quotes

# its module-scoped fixtures build once, in one worker
pytestmark = pytest.mark.xdist_group("test_error_search")

ROOT = Path(__file__).resolve().parents[2]
CASES: dict[str, Any] = json.loads((Path(__file__).parent / "error_search_cases.json").read_text("utf-8"))
SCRIPT = ROOT / "src" / "autograd_notes" / "site" / "web" / "static" / "error_search.js"


Recorded = tuple[list[Message], dict[str, float], dict[str, tuple[str, ...]]]


@pytest.fixture(scope="module")
def recorded() -> Recorded:
    """Every message of the committed records, each explained on its example's page, at its cells;
    the token weights; the messages each page's questions quote."""
    messages = cell_messages(ROOT)
    return messages, token_weights(m.normalised for m in messages), cell_quotes(ROOT)


@pytest.mark.parametrize("case", CASES["normalise"], ids=lambda case: case["text"][:40])
def test_texts_normalise_as_the_cases_say(case: dict[str, Any]) -> None:
    assert error_message(case["text"]) == case["message"]
    assert normalise(case["text"]) == Normalised(case["type"], tuple(case["tokens"]), tuple(case["details"]))


def test_the_wordings_of_212_and_213_are_the_same_tokens() -> None:
    old, new, *_ = CASES["normalise"]
    assert "AddBackward0" in old["text"]
    assert "output 0 of Add," in new["text"]
    assert normalise(old["text"]).tokens == normalise(new["text"]).tokens
    assert normalise(old["text"]).details != normalise(new["text"]).details  # the shapes and versions


def test_a_traceback_is_its_last_error_and_a_warning_loses_its_path_and_source_line() -> None:
    traceback = 'Traceback (most recent call last):\n  File "x.py", line 1\n    f()\nKeyError: first\n'
    assert error_message(traceback + "\nDuring handling\n\nValueError: second\n  y") == "ValueError: second"
    assert error_message("/a/b.py:3: UserWarning: one\ntwo\n  code()") == "UserWarning: one\ntwo"
    assert error_message("  just words  ") == "just words"


@pytest.mark.parametrize("case", CASES["pastes"], ids=lambda case: case["page"].rsplit("/", 1)[-1])
def test_a_pasted_error_lists_its_example_first(recorded: Recorded, case: dict[str, str]) -> None:
    messages, weights, quotes = recorded
    found = rank(case["paste"], messages, weights, quotes)
    assert found, case["paste"]
    # the page that must come first, or one that explains the message as well ("also")
    assert found[0].page in {case["page"], *case.get("also", [])}, [(m.page, m.score) for m in found]
    assert found[0].cells  # the lines (here) or cells (on the site) that raise it
    assert all(m.score >= found[0].score * error_match.NEAR_BEST for m in found)


def test_the_pastes_come_from_old_and_new_releases_and_are_many() -> None:
    pastes = [case["paste"] for case in CASES["pastes"]]
    assert len(pastes) >= 15
    assert len({case["page"] for case in CASES["pastes"]}) >= 15
    assert any("Backward0, is at version" in paste for paste in pastes)  # 2.12 and before
    assert any("output 0 of Add," in paste for paste in pastes)  # 2.13 and after


def test_unrelated_text_finds_nothing(recorded: Recorded) -> None:
    messages, weights, quotes = recorded
    assert rank("", messages, weights, quotes) == []
    assert rank("the weather in Lisbon is mild in November", messages, weights, quotes) == []


def test_the_score_is_an_f_score_over_weighted_tokens_plus_the_type() -> None:
    a = Normalised("RuntimeError", ("one", "two"), ("n:1",))
    b = Normalised("RuntimeError", ("one", "three"), ())
    weights = {"one": 1.0, "two": 2.0, "three": 3.0, "n:1": 0.5}
    beta2 = error_match.RECALL_WEIGHT**2
    # (1 + β²) · shared / (pasted + β² · recorded): the recorded message's words weigh more
    expected = (1 + beta2) * 1.0 / (1.0 + 2.0 + 0.5 + beta2 * (1.0 + 3.0)) + error_match.TYPE_BONUS
    assert similarity(a, b, weights, 9.0) == pytest.approx(expected)
    assert similarity(Normalised("", ("new",), ()), b, weights, 9.0) == 0.0
    # a token no message holds weighs as the rarest; a detail a fifth of it
    rarest = Normalised("", ("one", "zzz"), ("n:7",))
    expected = (1 + beta2) * 1.0 / (1.0 + 9.0 + 9.0 * error_match.DETAIL_WEIGHT + beta2 * (1.0 + 3.0))
    assert similarity(rarest, Normalised("", ("one", "three"), ()), weights, 9.0) == pytest.approx(expected)
    # padding the recorded message with the reader's own words costs less than missing its words
    padded = Normalised("", ("one", "three", "mine"), ())
    short = Normalised("", ("one",), ())
    assert similarity(padded, b, weights, 9.0) > similarity(short, b, weights, 9.0)


def test_the_page_that_raises_a_message_in_more_cells_comes_first() -> None:
    def said(shape: str) -> str:
        return f"RuntimeError: a view of a leaf Variable of shape {shape} is used in an in-place operation"

    messages = [
        Message(normalise(said("[2, 3]")), {"examples/a": [3]}),
        Message(normalise(said("[4, 5]")), {"examples/b": [5, 9]}),
        Message(normalise("ValueError: quite another thing"), {"examples/c": [1]}),
    ]
    weights = token_weights(m.normalised for m in messages)
    found = rank(said("[2, 3]"), messages, weights)
    assert [m.page for m in found] == ["examples/b", "examples/a"]
    assert (found[0].depth, found[1].depth) == (2, 1)
    # the same message, other shapes: the exact text scores higher, on a page that raises it once
    assert found[0].score < found[1].score <= found[0].score + error_match.SAME_MESSAGE


def test_the_page_about_a_message_comes_before_pages_that_raise_it_more() -> None:
    said = "RuntimeError: a view of a leaf Variable that requires grad is used in an in-place operation"
    messages = [
        Message(
            normalise(said),
            {"examples/about": [4], "examples/often": [2, 5, 8]},
            frozenset({"examples/about"}),
        )
    ]
    weights = token_weights(m.normalised for m in messages)
    found = rank(said, messages, weights)
    assert [(m.page, m.about, m.depth) for m in found] == [
        ("examples/about", True, 1),
        ("examples/often", False, 3),
    ]
    # without the page's word for it, the page that raises it in more cells comes first
    plain = [Message(messages[0].normalised, messages[0].places)]
    assert [m.page for m in rank(said, plain, weights)] == ["examples/often", "examples/about"]


def test_a_quote_the_pasted_message_holds_lists_its_page_without_a_record() -> None:
    """A GPU's message no CPU record holds: the page that quotes it is listed, with the quote, no cell."""
    messages = [
        Message(normalise("IndexError: index 10 is out of bounds for dimension 0"), {"examples/gpu": [3]})
    ]
    weights = token_weights(m.normalised for m in messages)
    pasted = (
        'Traceback (most recent call last):\n  File "x.py", line 1\n    # device-side assert triggered\n'
        "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be reported later"
    )
    quotes = {"examples/gpu": ("device-side assert triggered",), "examples/other": ("index out of range",)}
    (found,) = rank(pasted, messages, weights, quotes)
    assert (found.page, found.about, found.quote, found.message, found.cells) == (
        "examples/gpu",
        True,
        "device-side assert triggered",
        -1,
        [],
    )
    # only the message counts, not the source lines of the traceback's frames
    assert (
        rank(
            '  File "x.py", line 1\n    # device-side assert triggered\nKeyError: 1',
            messages,
            weights,
            quotes,
        )
        == []
    )


def test_a_quote_is_a_question_literal_of_plain_words_not_code() -> None:
    script = (
        '"""\nTitle\n=====\n\nOpening.\n\n.. questions::\n\n'
        "   - Why does ``x = x + 1`` differ from ``x += 1``?\n"
        "   - Why does ``torch.randn(3, requires_grad=True)`` say\n"
        "     ``can't optimize a non-leaf Tensor``?\n"
        '   - What does ``Mismatch in shape`` mean?\n"""\n'
    )
    assert page_quotes(script) == ("can't optimize a non-leaf Tensor", "Mismatch in shape")


def test_every_quote_of_the_gallery_is_a_message_its_page_records_or_one_no_runner_can_raise() -> None:
    """A page's quote names a message its records hold (the CUDA records' too); the exceptions are
    listed here with why."""
    without_record = {
        # the child process prints it on its stderr, which the record keeps as "failed with a CUDA error"
        ("07_cpu_vs_gpu/plot_async_cuda_errors.py", "device-side assert triggered"): "a child's stderr",
        # read_after() keeps "raises" for each kept loss whose reading raises it, not the message
        (
            "16_extending_autograd/plot_cudagraph_overwritten.py",
            "accessing tensor output of CUDAGraphs that has been overwritten",
        ): "summed up as 'raises'",
    }
    texts = recorded_messages(load_runner_records(ROOT / "records"))
    unmatched = set()
    for script in sorted((ROOT / "gallery").glob("*/plot_*.py")):
        example = script.relative_to(ROOT / "gallery").as_posix()
        own = [text for text, by_example in texts.items() if example in by_example]
        for quote in page_quotes(script.read_text(encoding="utf-8")):
            if not any(is_about([quote], text) for text in own):
                unmatched.add((example, quote))
    assert unmatched == set(without_record)


def test_a_cpp_error_is_its_message_without_its_frames() -> None:
    pasted = (
        "element 0 of tensors does not require grad and does not have a grad_fn\n"
        "Exception raised from run_backward at ../torch/csrc/autograd/autograd.cpp:105 "
        "(most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb0 "
        "(0x7ea4 in /libtorch/lib/libc10.so)"
    )
    assert error_message(pasted) == "element 0 of tensors does not require grad and does not have a grad_fn"
    assert unknown_weight(9) == pytest.approx(2.302585, abs=1e-6)


def test_the_script_has_the_same_constants_and_patterns() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    for name in (
        "DETAIL_WEIGHT",
        "TYPE_BONUS",
        "MIN_SCORE",
        "NEAR_BEST",
        "RECALL_WEIGHT",
        "SAME_MESSAGE",
        "MAX_PAGES",
    ):
        assert re.search(rf"var {name} = {getattr(error_match, name)};", script), name
    for name in (
        "TYPE",
        "TYPE_START",
        "CPP_CONTEXT",
        "TENSOR",
        "SIZE",
        "BARE_SHAPE",
        "ADDRESS",
        "QUOTED",
        "NODE",
        "NUMBER",
    ):
        pattern: re.Pattern[str] = getattr(error_match, f"_{name}")
        assert re.search(rf"var {name} = /{re.escape(pattern.pattern)}/g?;", script), name


def _holdout_quality() -> Any:
    """The benchmark's measure of the matcher on errors users posted (benchmarks/error_search_quality.py)."""
    spec = importlib.util.spec_from_file_location(
        "error_search_quality", ROOT / "benchmarks" / "error_search_quality.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (a dataclass looks its module up there)
    spec.loader.exec_module(module)
    return module.measure()


def test_errors_users_posted_find_their_page_and_unrelated_ones_find_none() -> None:
    """A floor, not the goal: issue 34 asks 90% first, none missed, no false lead (the benchmark prints it).

    Measured when the hold-out set was collected (78 errors from public issue threads, none from the
    records): 46 of 58 first, 4 of 20 unrelated errors given a page (16 before the lowest score rose).
    Since the pages for five more error families (seven of the 20 are explained now), the F-score and
    the page that raises the message in more cells first: 54 of 65 first, 59 in the top three, 1 of 13
    unrelated errors given a page; 52 first once three more pages recorded five more messages. With the
    page about an error first (its questions quote it) and the pages that explain an error as well
    counted: 61 of 65 first, 63 in the top three, 1 not found.
    """
    quality = _holdout_quality()
    assert quality.explained >= 65
    assert quality.unrelated >= 13
    assert quality.first >= 61
    assert quality.top_three >= 63
    assert len(quality.missed) <= 2
    assert quality.false_leads <= 1


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_package_ships_the_data_the_box_ranks(whole_site: Site, language: str) -> None:
    """``explain`` and the box rank the same messages, weights and places; the pages titled alike.

    The index is written as the package's is, from the built copy's records (which hold the test's
    synthetic records too): the package's own is checked against the project's records in
    ``tests/helpers/test_explain.py``.
    """
    script = (whole_site.html / language / "_static" / "error_search_data.js").read_text(encoding="utf-8")
    box = json.loads(script.removeprefix("window.AUTOGRAD_NOTES_ERRORS = ").rstrip().removesuffix(";"))
    index = build_index(whole_site.project)
    assert box["weights"] == index["weights"]
    assert box["unknown"] == index["unknown"]

    def places(pages: list[str], message: dict[str, Any]) -> tuple[object, ...]:
        where = sorted((pages[place["page"]], tuple(place["cells"])) for place in message["places"])
        return (message["text"], message["type"], tuple(message["tokens"]), tuple(message["details"]), *where)

    box_pages = [page["doc"] for page in box["pages"]]
    shipped_pages = [page["path"].removesuffix(".html") for page in index["pages"]]
    assert sorted(places(box_pages, m) for m in box["messages"]) == sorted(
        places(shipped_pages, m)
        for m in index["messages"]  # type: ignore[arg-type]
    )
    titles = {page["doc"]: page["title"] for page in box["pages"]}
    assert {page["path"].removesuffix(".html"): page["titles"][language] for page in index["pages"]} == titles
