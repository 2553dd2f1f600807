"""The error-message index: messages grouped by type, short summaries, links named by title and cell.

Unit tests group and summarise messages; the built site (every language, with
one synthetic CUDA record) is read for the page a reader lands on.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from _html import Page, read_page
from _site import LANGUAGES, ROOT, SYNTHETIC_CUDA_EXAMPLE, Site

from autograd_notes.records.format.record import load_all_records
from autograd_notes.site.errors.families import (
    SUMMARY_LIMIT,
    Occurrence,
    collect_messages,
    event_messages,
    group_by_type,
    message_head,
    message_label,
    message_summary,
    message_type,
)
from autograd_notes.site.web.links import cell_anchor, cell_label, cell_number

INPLACE = (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.FloatTensor []], which is output 0 of {node}, is at version 1; expected version 0 instead. "
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
OUT_ARGUMENT = (
    "{op}(): functions with out=... arguments don't support automatic differentiation, but one of the "
    "arguments requires grad."
)


def error(line: int, message: str, raised: str = "RuntimeError") -> dict[str, Any]:
    return {"kind": "error", "line": line, "raised": raised, "message": message, "holds": True}


def record(*events: dict[str, Any]) -> dict[str, Any]:
    return {"cells": [{"lines": [1, 10], "events": list(events)}]}


# -- grouping and summaries ------------------------------------------------------------------------


def test_variants_of_one_message_form_one_family() -> None:
    records = {
        "cpu": {
            "05_inplace/plot_a.py": record(error(12, INPLACE.format(node="Add"))),
            "06_views/plot_b.py": record(error(30, INPLACE.format(node="Pow"))),
        },
        "cuda": {
            "05_inplace/plot_a.py": record(
                error(12, INPLACE.format(node="Add").replace("torch.FloatTensor", "torch.cuda.FloatTensor"))
            )
        },
    }
    (family,) = collect_messages(records)
    assert (family.kind, family.type) == ("error", "RuntimeError")
    assert family.summary == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[<tensor>], which is output <n> of <op> …"
    )
    add, pow_, add_on_cuda = family.variants  # by text: torch.F... before torch.c...
    assert add.text == "RuntimeError: " + INPLACE.format(node="Add")
    assert add.occurrences == [Occurrence("05_inplace/plot_a.py", 12, "cpu")]
    assert add_on_cuda.occurrences == [Occurrence("05_inplace/plot_a.py", 12, "cuda")]
    assert pow_.occurrences == [Occurrence("06_views/plot_b.py", 30, "cpu")]
    assert add.label == message_label("error", add.text) != pow_.label


def test_a_message_is_not_cut_at_its_first_colon() -> None:
    """ "RuntimeError: add()" said nothing: the summary is the message's first sentence."""
    add = "RuntimeError: " + OUT_ARGUMENT.format(op="add")
    assert message_summary(add) == (
        "<op>(): functions with out=... arguments don't support automatic differentiation, "
        "but one of the arguments requires grad"
    )
    assert message_head(add) == "RuntimeError: " + message_summary(add)
    mismatch = (
        "RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a "
        "shape of torch.Size([3])."
    )
    assert message_summary(mismatch) == (
        "Mismatch in shape: grad_output[0] has a shape of <shape> and output[0] has a shape of <shape>"
    )
    records = {
        "cpu": {
            "12/plot_c.py": record(
                error(3, OUT_ARGUMENT.format(op="add")), error(5, OUT_ARGUMENT.format(op="exp"))
            )
        }
    }
    (family,) = collect_messages(records)
    assert len(family.variants) == 2


def test_a_key_errors_repr_is_summarised_from_its_first_line() -> None:
    # a browser review saw "...last_epoch >= 0.\\nThis typically happens when:\\n1" as a link's text
    resumed = (
        "KeyError: \"param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with "
        "last_epoch >= 0.\\nThis typically happens when:\\n1. You're trying to resume training\""
    )
    assert message_summary(resumed) == (
        "param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with last_epoch >= 0"
    )
    assert message_summary("KeyError: 'weight'") == "'weight'"


def test_a_summary_is_the_first_sentence_shortened_at_a_clause() -> None:
    assert (
        message_summary(
            "RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed."
            "You can make a clone to get a normal tensor before doing inplace update."
        )
        == "Inplace update to inference tensor outside InferenceMode is not allowed"
    )
    second_time = (
        "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed). Saved intermediate values of the graph are freed"
    )
    assert message_summary(second_time) == (
        "Trying to backward through the graph a second time (or directly access saved tensors after they "
        "have already been freed)"
    )
    assert message_summary(second_time, limit=60) == "Trying to backward through the graph a second time …"
    assert message_summary(
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    ) == ("Can't call numpy() on Tensor that requires grad")
    assert message_type("UserWarning: Anomaly Detection has been enabled.") == "UserWarning"
    assert message_type("no type here") == ""
    # a first line that stops mid-sentence, the numbers on the next lines
    assert message_summary(
        "GradcheckError: Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([1.])"
    ) == ("Jacobian mismatch for output 0 with respect to input 0")
    # a dotted name is no sentence end: aten.add.Tensor, torch.Tensor
    assert message_summary(
        "RuntimeError: aten.add.Tensor got mixed torch.Tensor and DTensor, need to convert all torch.Tensor "
        "to DTensor."
    ) == ("aten.add.Tensor got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor")
    assert message_summary("TypeError: expected torch.Tensor. Got list instead.") == "expected torch.Tensor"
    # nor a name of code: an overload (aten::add_.Tensor), an enum member (ShardingStrategy.FULL_SHARD)
    assert message_summary(
        "RuntimeError: attempted to call in-place operation (aten::add_.Tensor) that would mutate it. No."
    ) == ("attempted to call in-place operation (aten::add_.Tensor) that would mutate it")
    assert message_summary(
        "UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the "
        "world size is 1."
    ).endswith("since the world size is 1")
    assert message_summary("RuntimeError: This is not allowed.You should not.") == "This is not allowed"
    assert message_summary(
        "RuntimeError: In order to use an autograd.Function with functorch transforms, it must override "
        "the setup_context staticmethod."
    ).startswith("In order to use an autograd.Function with functorch transforms")


def test_every_recorded_message_has_a_short_readable_summary() -> None:
    families = collect_messages(load_all_records(ROOT / "records"))
    assert len(families) >= 20
    for family in families:
        assert len(family.summary) <= SUMMARY_LIMIT + 2, family.summary
        if family.type != "KeyError":  # a KeyError's message is the key: 'initial_lr'
            assert len(family.summary.split()) >= 3, family.summary  # never just "add()"
        assert not family.summary.endswith((":", "(", ",")), family.summary
        for variant in family.variants:
            assert variant.text.startswith(f"{family.type}: ")


def test_types_group_the_families_errors_first() -> None:
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
        "cpu": {
            "01/plot_c.py": record(
                warning,
                nothing_raised,
                value,
                error(3, "boom", "IndexError"),
                error(4, "bang"),
                error(6, "abc"),
            )
        }
    }
    groups = group_by_type(collect_messages(records))
    assert [(g.kind, g.name, [f.summary for f in g.families]) for g in groups] == [
        ("error", "IndexError", ["boom"]),
        ("error", "RuntimeError", ["abc", "bang"]),
        ("warning", "UserWarning", ["The .grad attribute of a Tensor that is not a leaf"]),
    ]
    assert event_messages(nothing_raised) == []
    assert event_messages(value) == []


def test_labels_are_stable_and_distinct() -> None:
    assert message_label("error", "RuntimeError: x") == message_label("error", "RuntimeError: x")
    assert message_label("error", "RuntimeError: x") != message_label("warning", "RuntimeError: x")
    assert message_label("error", "RuntimeError: x").startswith("error-")


def test_an_events_line_falls_in_the_cell_that_starts_before_it() -> None:
    first_lines = [20, 35, 50]
    assert [cell_number(first_lines, line) for line in (20, 34, 35, 51, 99)] == [1, 1, 2, 3, 3]
    assert cell_anchor(2) == "cell-2"
    assert cell_label("05_inplace/plot_a.py", 2) == "cell-05_inplace/plot_a.py-2"


# -- the page, in every language -------------------------------------------------------------------

CELL = {
    "en": r"cell (\d+)",
    "ru": r"ячейка (\d+)",
    "zh_CN": r"第 (\d+) 个单元格",
    "pt_BR": r"célula (\d+)",
}


def expected_types(site: Site) -> list[str]:
    return [
        group.name for group in group_by_type(collect_messages(load_all_records(site.project / "records")))
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_of_contents_lists_the_types_only(whole_site: Site, language: str) -> None:
    page = read_page(whole_site.html / language, "errors.html")
    toc = page.root.find("div", "toc-tree")
    (top,) = [li for li in toc.find("ul").children if not isinstance(li, str)]
    entries = [a.text() for a in top.find("ul").find_all("a")]
    assert entries == expected_types(whole_site)
    assert "RuntimeError" in entries
    headings = [h.text() for h in page.article.find_all() if re.fullmatch(r"h[2-6]", h.tag)]
    assert headings == entries


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_recorded_message_is_on_the_page_whole_and_wrapped(whole_site: Site, language: str) -> None:
    page = read_page(whole_site.html / language, "errors.html")
    blocks = {div.find("pre").text() for div in page.article.find_all("div", "error-text")}
    for family in collect_messages(load_all_records(whole_site.project / "records")):
        for variant in family.variants:
            assert " ".join(variant.text.split()) in blocks, variant.text
    css = (whole_site.html / language / "_static" / "autograd_notes.css").read_text(encoding="utf-8")
    assert re.search(r"\.error-variant \.highlight pre \{[^}]*white-space: pre-wrap", css)


def explained_in(page: Page) -> list[tuple[str, str]]:
    """(href, text) of every link under "Explained in" on the errors page."""
    return [
        (a.attrs["href"], a.text())
        for region in page.article.find_all(class_="error-examples")
        for a in region.find_all("a")
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_links_are_named_by_the_examples_title_and_the_cell(whole_site: Site, language: str) -> None:
    folder = whole_site.html / language
    page = read_page(folder, "errors.html")
    links = explained_in(page)
    titles = cells = 0
    for href, text in links:
        target, fragment = page.resolve(href)
        assert re.fullmatch(r"examples/\d\d_\w+/plot_\w+\.html", target), href
        example = read_page(folder, target)
        if not fragment:  # the example, by its title in this language
            assert text == example.h1, (href, text)
            titles += 1
            continue
        number = re.fullmatch(CELL[language], text)
        assert number is not None, (language, text)
        assert fragment == f"cell-{number.group(1)}"
        assert example.root.by_id(fragment) is not None, (target, fragment)
        cells += 1
    assert titles >= 20
    assert cells >= titles
    assert not any(re.search(r"\.py|line \d", text) for _href, text in links)


def test_a_linked_cell_is_the_one_that_raises(whole_site: Site) -> None:
    """Follow each cell link of the English index: that cell's traceback ends with the message."""
    folder = whole_site.html / "en"
    page = read_page(folder, "errors.html")
    checked = 0
    for entry in page.article.find_all("div", "error-variant"):
        message = entry.find("pre").text()
        if not message.split(":")[0].endswith("Error"):
            continue  # a warning: the page shows it in its own words, not always as printed
        for href, _text in [(a.attrs["href"], a.text()) for a in entry.find_all("a")]:
            target, fragment = page.resolve(href)
            if not fragment:
                continue
            raw = (folder / target).read_text(encoding="utf-8")
            start = raw.index(f'id="{fragment}"')
            following = re.search(r'id="cell-\d+"', raw[start + 10 :])
            cell = raw[start : start + 10 + following.start()] if following else raw[start:]
            shown = " ".join(html.unescape(re.sub(r"<[^>]+>", "", cell)).split())
            assert message.splitlines()[0][:60] in shown, (target, fragment, message[:60])
            checked += 1
    assert checked >= 40


def test_a_cuda_variant_joins_its_cpu_family_and_says_where_it_was_seen(whole_site: Site) -> None:
    page = read_page(whole_site.html / "en", "errors.html")
    family = next(
        entry
        for entry in page.article.find_all("div", "error-entry")
        if "torch.cuda.FloatTensor" in entry.text()
    )
    summary = family.find("p", "error-summary").text()
    assert summary.startswith("one of the variables needed for gradient computation has been modified")
    runners = [p.text() for p in family.find_all("p", "error-runners")]
    assert "Recorded on: CUDA runner." in runners
    assert "Recorded on: CPU runner." in runners
    example = f"examples/{Path(SYNTHETIC_CUDA_EXAMPLE).with_suffix('.html').as_posix()}"
    assert any(page.resolve(href)[0] == example for href, _text in explained_in(page))


def test_quotes_in_summaries_stay_as_pytorch_prints_them(whole_site: Site) -> None:
    summaries = [
        p.text()
        for p in read_page(whole_site.html / "en", "errors.html").article.find_all("p", "error-summary")
    ]
    assert "'NoneType' object has no attribute 'norm'" in summaries
    assert not any("‘" in s or "’" in s for s in summaries)
