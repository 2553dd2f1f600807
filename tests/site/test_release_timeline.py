"""Behaviour across PyTorch releases on the site: every example page, the timeline page, sources.

The rendering is tested on synthetic timelines first (no build); then the
real site, built once with the committed release records plus one synthetic
release (``_site.SYNTHETIC_RELEASE``, which rewords one message of one
example), is read in every language.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from _html import Element, parse_page, read_page
from _render import NodeWriter
from _site import (
    LANGUAGES,
    SYNTHETIC_RELEASE,
    SYNTHETIC_RELEASE_EDIT,
    SYNTHETIC_RELEASE_EXAMPLE,
    Site,
    build_site,
    small_site,
)
from docutils import nodes
from sphinx.addnodes import pending_xref

from autograd_notes.records.format.record_format import FORMAT
from autograd_notes.records.history import timeline_summary
from autograd_notes.records.history.changelog import FOLLOWS, SENTENCES
from autograd_notes.records.history.releases import pinned_torch, version_key
from autograd_notes.records.history.timeline import example_timeline
from autograd_notes.records.history.timeline_summary import Wording
from autograd_notes.site.i18n.catalogs import translations
from autograd_notes.site.pages import timeline_sentences
from autograd_notes.site.pages.timeline_section import timeline_nodes
from autograd_notes.site.pages.timeline_sentences import (
    SECTION_ID,
    changed_note,
    follows_template,
    sentence_templates,
    summary_sentence,
)
from autograd_notes.site.upstream.gallery_rst import timeline_directive
from autograd_notes.site.web.html_nodes import HtmlCode
from autograd_notes.site.web.links import cell_label

# its module-scoped fixtures build once, in one worker
pytestmark = pytest.mark.xdist_group("test_release_timeline")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(ROOT / "gallery").as_posix() for p in (ROOT / "gallery").glob("*/plot_*.py"))
RELEASES = sorted((p.name for p in (ROOT / "records" / "releases").iterdir() if p.is_dir()), key=version_key)


def error(message: str, *, holds: bool = True) -> dict[str, Any]:
    return {
        "kind": "error",
        "line": 15,
        "documented": "RuntimeError matching 'version'",
        "raised": "RuntimeError",
        "message": message,
        "holds": holds,
    }


def record(torch: str, event: dict[str, Any] | None, status: str = "ran") -> dict[str, Any]:
    return {
        "format": FORMAT,
        "example": "05_x/plot_fixture.py",
        "runner": {"torch": torch},
        "recorded": "2026-11-24",
        "cells": [
            {"lines": [1, 9], "status": "ran", "output": [], "events": []},
            {
                "lines": [10, 19],
                "status": status,
                "output": ["ImportError: nope"],
                "events": [event] if event else [],
            },
        ],
    }


TODAY = record("2.13.0+cpu", error("output 0 of Add <is> at version 1"))


# -- rendering, without a build ---------------------------------------------------------------


def test_timeline_directive_goes_above_the_downloads() -> None:
    source = "Title\n=====\n\ntext\n\n.. _sphx_glr_download_x:\n\ndownloads\n"
    lines = timeline_directive(source, "05_x/plot_fixture.py").splitlines()
    assert lines.index(".. release-timeline:: 05_x/plot_fixture.py") < lines.index(".. _sphx_glr_download_x:")
    assert (
        timeline_directive("Title\n=====\n", "a/plot_b.py")
        .rstrip()
        .endswith(".. release-timeline:: a/plot_b.py")
    )


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> NodeWriter:
    return NodeWriter(tmp_path_factory.mktemp("html"), "html")


def sentence(parts: list[nodes.Node]) -> str:
    """A sentence's text, its code marked as in Markdown: ``... `AddBackward0` → `Add`.``"""
    return "".join(f"`{part.astext()}`" if isinstance(part, HtmlCode) else part.astext() for part in parts)


def test_the_table_marks_each_release_and_shows_the_difference_on_demand(html: NodeWriter) -> None:
    releases = {
        "2.4.1": record("2.4.1", None, status="unavailable"),
        "2.9.1": record("2.9.1", error("output 0 of AddBackward0 <is> at version 1")),
        "2.12.1": record("2.12.1", error("output 0 of Add <is> at version 1")),
    }
    timeline = example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", releases)
    body = timeline_nodes(timeline, [1, 12], headings=["Fixture", "An ``x.add_`` edit"])
    page = html.write(body)
    heads = re.findall(r'<th class="tl-release[^"]*" scope="col">(.*?)</th>', page)
    # neighbours that every row marks alike share a column: each release that differs is in view
    assert [re.sub(r"<(?!br>)[^>]+>", "", head) for head in heads] == [
        "2.4",
        "2.9",
        "2.12–2.13<br>documented: 2.13",
    ]
    assert "title=" not in page  # no tooltip: a mouse is not needed to learn what a mark means
    # each mark is a button (reached by keyboard) whose text says what it means
    marks = re.findall(
        r'<td class="tl-mark tl-(\w+)"><button class="tl-mark-button"><span aria-hidden="true">.</span>'
        r'<span class="tl-tip">([^<]+)</span></button></td>',
        page,
    )
    assert marks == [
        ("missing", "2.4.1: not available in this release"),
        ("words", "2.9.1: message differs"),
        ("same", "2.12.1–2.13.0: same as documented"),
    ]
    # the row is named by what it checks (its section's title), and by its cell's number
    row = re.search(r'<th scope="row">(.*?)</th>', page)
    assert row is not None
    assert re.sub(r"<[^>]+>", "", row.group(1)) == "An x.add_ edit cell 2"
    assert "<code>x.add_</code>" in row.group(1)
    # the word diff, escaped: the message's own "<is>" is text, not markup; 2.9.1 is older than today,
    # so its words are the struck ones
    assert "<del>AddBackward0</del><ins>Add</ins> &lt;is&gt; at version 1" in page
    assert "older words</del> are struck and <ins>newer words</ins> inserted" in page
    assert page.count("ImportError: nope") == 1  # why 2.4.1 cannot run the cell, said once for the page
    assert (
        '<details class="tl-check"><summary><span>An <code>x.add_</code> edit</span> '
        '<span class="tl-cell-number">cell 2</span> · line 15 · expected error · '
    ) in page
    # the closed box names the releases that differ: two boxes of one line are told apart
    assert "expected error · message differs · 2.9.1</summary>" in page
    # the links are references Sphinx resolves, and warns about when their target is missing:
    # the row's and the details' to the cell's label (the details by its number: their summary names
    # the row), one to the timeline page
    refs = [(ref["reftype"], ref["reftarget"], ref.astext()) for ref in body.findall(pending_xref)]
    assert refs == [
        ("ref", cell_label("05_x/plot_fixture.py", 2), "An x.add_ edit"),
        ("ref", cell_label("05_x/plot_fixture.py", 2), "Go to cell 2"),
        ("doc", "/timeline", "Behaviour across PyTorch releases"),
    ]
    assert "⟦" not in body.astext()
    # without a section title, a row is named by its check's label, else by its cell's number
    assert '<th scope="row"><span>Cell 2</span> <span' in html.write(timeline_nodes(timeline, [1, 12]))
    # a check's line is its line in the page's download (a header, an import guard and translated
    # text move every line): a review found the list 6 lines off the page's tracebacks
    moved = html.write(timeline_nodes(timeline, [1, 12], line_numbers={15: 21}))
    assert '<span class="tl-cell-number">cell 2</span> · line 21 · expected error · ' in moved
    assert "line 15" not in moved


def test_the_differences_of_a_cell_are_listed_in_the_order_of_their_lines(html: NodeWriter) -> None:
    """A check that runs before one above it is listed after it (a review read line 365 before 364)."""

    def run_first_below(torch: str, below: str, above: str) -> dict[str, Any]:
        made = record(torch, {**error(below), "line": 16})
        made["cells"][1]["events"].append(error(above))
        return made

    today = run_first_below("2.13.0+cpu", "below at version 1", "above at version 1")
    older = run_first_below("2.9.1", "below, worded at version 1", "above, worded at version 1")
    timeline = example_timeline("05_x/plot_fixture.py", today, "2.13.0", {"2.9.1": older})
    page = html.write(timeline_nodes(timeline, [1, 12]))
    boxes = re.findall(r"</span> · (line \d+) · expected error · ", page)
    assert boxes == ["line 15", "line 16"]


def test_a_newer_release_diffs_from_today_to_it(html: NodeWriter) -> None:
    """Diffs run in the order of the releases: for a release newer than today, today's words are struck."""
    releases = {"2.14.1": record("2.14.1", error("output 0 of AddRenamed <is> at version 1"))}
    page = html.write(
        timeline_nodes(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", releases), [1, 12])
    )
    assert "<del>Add</del><ins>AddRenamed</ins>" in page


def test_the_changed_note_names_the_release_where_the_change_began(html: NodeWriter) -> None:
    """A newer release that kept a change does not move the note: 2.14 changed it, 2.15 kept it."""
    renamed = error("output 0 of AddRenamed <is> at version 1")
    kept = {"2.14.1": record("2.14.1", renamed), "2.15.0": record("2.15.0", renamed)}
    note = changed_note(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", kept))
    assert note is not None
    assert "Changed in 2.14" in html.write(note)
    # the sentence names the same release as the title: where the change began, not the newest
    assert "In PyTorch 2.14.1, one check of this page differs from 2.13.0" in html.write(note)
    # changed again in 2.15: the note says 2.15
    again = {**kept, "2.15.0": record("2.15.0", error("output 0 of AddAgain <is> at version 1"))}
    note = changed_note(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", again))
    assert note is not None
    assert "Changed in 2.15" in html.write(note)
    # a newest release that does as today: no note
    same = {**kept, "2.15.0": record("2.15.0", error("output 0 of Add <is> at version 1"))}
    assert changed_note(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", same)) is None


def test_the_changed_note_says_what_the_check_does_in_that_release(html: NodeWriter) -> None:
    """Not "one check differs: expected error", but what happened to it."""
    reworded = {"2.14.1": record("2.14.1", error("output 0 of AddRenamed <is> at version 1"))}
    note = changed_note(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", reworded))
    assert note is not None
    assert "2.13.0, the release the page documents: the expected error is worded otherwise." in note.astext()
    missing = {**error("", holds=False), "raised": None, "message": None}
    quiet = {"2.14.1": record("2.14.1", missing)}
    note = changed_note(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", quiet))
    assert note is not None
    assert "documents: the error it expects is no longer raised." in note.astext()
    other = {**error("boom", holds=False), "raised": "ValueError"}
    note = changed_note(
        example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", {"2.14.1": record("2.14.1", other)})
    )
    assert note is not None
    assert "documents: it raises ValueError instead." in note.astext()


def test_summary_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    same = example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", {"2.12.1": TODAY})
    assert (
        sentence(summary_sentence(same)) == "Every check holds in every recorded release, 2.12.1 to 2.13.0."
    )
    renamed = example_timeline(
        "05_x/plot_fixture.py",
        TODAY,
        "2.13.0",
        {"2.12.1": record("2.12.1", error("output 0 of AddBackward0 <is> at version 1"))},
    )
    assert sentence(summary_sentence(renamed)) == (
        "Every check holds in every recorded release, 2.12.1 to 2.13.0. One check still holds, "
        "but prints other words in 2.12.1: `RuntimeError`."
    )
    # two checks of one type reworded: counted as two, the type named once
    summary = timeline_summary.summarise(renamed)
    twice = dataclasses.replace(summary, wording=Wording(("2.12.1",), ("RuntimeError",), 2, (("2.12.1",),)))
    monkeypatch.setattr(timeline_sentences, "summarise", lambda timeline: twice)
    assert sentence(summary_sentence(renamed)).endswith(
        "2 checks still hold, but print other words in 2.12.1: `RuntimeError`."
    )
    # reworded in other releases: each name says its own (a review read "2 checks … in 2.4.1–2.12.1"
    # of a check reworded only up to 2.9.1)
    apart = Wording(
        ("2.9.1", "2.12.1"), ("RuntimeError", "UserWarning"), 2, (("2.9.1", "2.12.1"), ("2.9.1",))
    )
    monkeypatch.setattr(
        timeline_sentences, "summarise", lambda timeline: dataclasses.replace(summary, wording=apart)
    )
    two_releases = example_timeline(
        "05_x/plot_fixture.py", TODAY, "2.13.0", {"2.9.1": TODAY, "2.12.1": TODAY}
    )
    assert sentence(summary_sentence(two_releases)).endswith(
        "2 checks still hold, but print other words: `RuntimeError` in 2.9.1–2.12.1 and "
        "`UserWarning` in 2.9.1."
    )
    monkeypatch.undo()
    broken = example_timeline(
        "05_x/plot_fixture.py",
        TODAY,
        "2.13.0",
        {"2.9.1": record("2.9.1", {**error("other", holds=False), "raised": "ValueError"}), "2.12.1": TODAY},
    )
    assert (
        sentence(summary_sentence(broken))
        == "Every check holds since 2.12.1; in 2.9.1, the release before it, its one check differs."
    )

    # the release before counts every check the page lists as differing: one reworded as well as one
    # that failed (a review counted 2 in the sentence and 3 in the list)
    def both(first: dict[str, Any], second: dict[str, Any], torch: str) -> dict[str, Any]:
        made = record(torch, first)
        made["cells"][1]["events"].append({**second, "line": 16, "documented": "RuntimeError matching 'x'"})
        return made

    today = both(error("output 0 of Add <is> at version 1"), error("x"), "2.13.0+cpu")
    mixed = both({**error("other", holds=False), "raised": "ValueError"}, error("x, worded"), "2.9.1")
    two = example_timeline("05_x/plot_fixture.py", today, "2.13.0", {"2.9.1": mixed, "2.12.1": today})
    assert sentence(summary_sentence(two)) == (
        "Every check holds since 2.12.1; in 2.9.1, the release before it, 2 of 2 checks differ."
    )  # the reworded check's ≈ is under its cell's ✗ in the table: the summary says what the table shows
    alone = example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", {})
    assert (
        sentence(summary_sentence(alone)) == "No other PyTorch release has been recorded for this page yet."
    )


def test_a_page_that_checks_nothing_says_so_and_shows_no_table(html: NodeWriter) -> None:
    # a review found an empty table under "Every check holds in every recorded release"
    unchecked = record("2.13.0+cpu", None)
    timeline = example_timeline("05_x/plot_fixture.py", unchecked, "2.13.0", {"2.12.1": unchecked})
    said = "No cell of this page checks anything on a CPU, so no release can differ here."
    assert sentence(summary_sentence(timeline)) == said
    written = html.write(timeline_nodes(timeline, [1, 10]))
    assert said in written
    assert "<table" not in written
    assert "Every check holds" not in written


# -- the built site -----------------------------------------------------------------------------


def releases_of_head(head: Element, releases: list[str]) -> list[str]:
    """A column's releases, from its head: ``["2.13.0"]`` of ``2.13``, three of ``2.4–2.6`` (any language)."""
    found = re.match(r"(\d+\.\d+)(?:–(\d+\.\d+))?", head.text().strip())
    assert found is not None, head.text()
    minors = ["{}.{}".format(*version_key(r)[:2]) for r in releases]
    first, last = found.group(1), found.group(2) or found.group(1)
    return releases[minors.index(first) : minors.index(last) + 1]


def reworded_checks() -> int:
    """How many checks of the synthetic release's example see the reworded message."""
    text = (ROOT / "records" / "cpu" / Path(SYNTHETIC_RELEASE_EXAMPLE).with_suffix(".json")).read_text(
        "utf-8"
    )
    events = [e for c in json.loads(text)["cells"] for e in c["events"]]
    old = next(iter(SYNTHETIC_RELEASE_EDIT))
    return sum(old in (e.get("message") or "") for e in events)


def page_name(example: str) -> str:
    return f"examples/{Path(example).with_suffix('.html').as_posix()}"


def timeline_section(whole_site: Site, language: str, example: str) -> Element:
    page = read_page(whole_site.html / language, page_name(example))
    section = page.article.by_id(SECTION_ID)
    assert section is not None, (language, example)
    return section


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_example_page_ends_with_its_timeline(whole_site: Site, language: str) -> None:
    sphinx = (
        translations(ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "sphinx.po")
        if language != "en"
        else {}
    )
    heading = sphinx.get("Across PyTorch releases", "Across PyTorch releases")
    releases = sorted({*RELEASES, "2.13.0", SYNTHETIC_RELEASE}, key=version_key)
    for example in EXAMPLES:
        section = timeline_section(whole_site, language, example)
        assert section.tag == "section"
        assert section.find("h2").text().rstrip("#¶ ") == heading, (language, example)
        # a section of the page, beside "Sources", not inside it; the downloads follow it
        assert section.parent is not None
        assert section.parent.parent is not None
        assert section.parent.parent.tag == "article", (language, example)
        table = section.find("table", "tl-table")
        heads = [th for th in table.find_all("th") if "tl-release" in th.classes]
        shown = [release for th in heads for release in releases_of_head(th, releases)]
        assert shown == releases, (language, example)
        assert section.find("p", "tl-summary").text().strip(), (language, example)
        for row in table.find("tbody").find_all("tr"):
            assert len(row.find_all("td", "tl-mark")) == len(heads)
        assert "⟦" not in section.text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_synthetic_release_rewords_one_message(whole_site: Site, language: str) -> None:
    section = timeline_section(whole_site, language, SYNTHETIC_RELEASE_EXAMPLE)
    releases = sorted({*RELEASES, SYNTHETIC_RELEASE}, key=version_key)
    column = [
        releases_of_head(th, releases)
        for th in section.find("table").find_all("th")
        if "tl-release" in th.classes
    ]
    index = next(n for n, group in enumerate(column) if SYNTHETIC_RELEASE in group)
    marks = [row.find_all("td", "tl-mark")[index].classes for row in section.find("tbody").find_all("tr")]
    # the cells with a reworded message differ in words only; the others are the same
    assert sum("tl-words" in m for m in marks) >= 1
    assert all("tl-words" in m or "tl-same" in m for m in marks)
    details = section.find_all("details", "tl-check")
    inserted = [ins.text() for d in details for ins in d.find_all("ins")]
    deleted = [d_.text() for d in details for d_ in d.find_all("del")]
    assert "else" in " ".join(inserted + deleted)
    # the cell link goes to a cell of this very page
    link = details[0].find("a").attrs["href"]
    assert link.startswith("#cell-")
    page = read_page(whole_site.html / language, page_name(SYNTHETIC_RELEASE_EXAMPLE))
    assert page.article.by_id(link[1:]) is not None


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_timeline_page_has_every_example_and_the_changelog(whole_site: Site, language: str) -> None:
    page = read_page(whole_site.html / language, "timeline.html")
    matrix = page.article.find("table", "tl-matrix")
    rows = matrix.find("tbody").find_all("tr")
    assert len(rows) == len(EXAMPLES)
    for row in rows:
        href = row.find("a").attrs["href"]
        target, anchor = page.resolve(href)
        assert anchor == SECTION_ID
        assert (whole_site.html / language / target).exists(), href
        assert "⟦" not in row.text()
    changes = page.article.by_id(f"changes-{SYNTHETIC_RELEASE.replace('.', '-')}")
    assert changes is not None, "no changelog section for the synthetic release"
    # the same rewording in several checks is one entry, linking each cell once
    entries = changes.find_all("li")
    assert len(entries) == 1
    assert 1 <= len(entries[0].find_all("a")) <= reworded_checks()
    target, anchor = page.resolve(entries[0].find("a").attrs["href"])
    assert target == page_name(SYNTHETIC_RELEASE_EXAMPLE)
    assert anchor.startswith("cell-")
    # real changes between real releases are listed too, newest first
    listed = [
        s.id.removeprefix("changes-").replace("-", ".")
        for s in page.article.find_all("section")
        if s.id.startswith("changes-")
    ]
    assert listed == sorted(listed, key=version_key, reverse=True)
    assert len(listed) >= 2


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sources_page_says_in_which_releases_claims_held(whole_site: Site, language: str) -> None:
    page = read_page(whole_site.html / language, "sources.html")
    tables = page.article.find_all("table", "source-status")
    assert len(tables) == 5
    sphinx = (
        translations(ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "sphinx.po")
        if language != "en"
        else {}
    )
    heading = sphinx.get("Across PyTorch releases", "Across PyTorch releases")
    for table in tables:
        assert table.find("thead").find_all("th")[-1].text().strip() == heading
        for row in table.find("tbody").find_all("tr"):
            said = row.find_all("td")[-1].text()
            assert re.search(r"\d+\.\d+\.\d+", said), row.text()
            # releases listed as the language lists: Chinese with 、
            assert not (language == "zh_CN" and re.search(r"\d, \d", said)), said


# -- the reader's side, on a small site built with the committed records ----------------------------

SMALL_EXAMPLES = [
    "15_silent_gradients/plot_nan_through_masking.py",
    "10_higher_order/plot_forward_mode.py",
    "04_detach_vs_data/plot_data_vs_detach.py",
]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small site in English and Russian: three examples whose records changed across releases."""
    project = small_site(tmp_path_factory.mktemp("timeline-site"), SMALL_EXAMPLES)
    result = build_site(project, "--language", "en", "--language", "ru")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return project / "build" / "html"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_an_example_page_says_at_the_top_what_the_newest_release_changed(small: Path) -> None:
    page = (small / "en/examples/15_silent_gradients/plot_nan_through_masking.html").read_text("utf-8")
    note = page.index('class="admonition attention release-changed')
    assert note < page.index("runner-summary") < page.index('id="cell-1"')
    top = page[note : page.index("runner-summary")]
    assert "Changed in 2.14" in top
    assert '<a class="reference internal" href="#across-pytorch-releases">' in top
    # the prose says where clamp's gradient at its bound changed
    assert "PyTorch 2.14 changed clamp at its bounds: there it gives 0" in _text(page)
    russian = (small / "ru/examples/15_silent_gradients/plot_nan_through_masking.html").read_text("utf-8")
    assert "Изменилось в 2.14" in russian
    assert "В PyTorch 2.14 clamp на границах изменился" in _text(russian)
    # a page whose newest release does as documented has no such note
    data = (small / "en/examples/04_detach_vs_data/plot_data_vs_detach.html").read_text("utf-8")
    assert "release-changed" not in data


def test_code_cells_are_numbered_and_a_cell_link_lands_on_the_code(small: Path) -> None:
    page = (small / "en/examples/15_silent_gradients/plot_nan_through_masking.html").read_text("utf-8")
    numbers = re.findall(
        r'<p class="cell-number"><a class="reference internal" href="#cell-(\d+)">Cell \1</a>', page
    )
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)]
    assert len(numbers) >= 6
    # the anchor is the code's own: the number, then the code, then (later) its output
    code = re.search(r'<div class="highlight-Python notranslate" id="cell-6">', page)
    assert code is not None
    assert page.index('href="#cell-6">Cell 6</a>') < code.start()
    # the timeline's rows are named by their section, not "Cell 6"
    section = page[page.index('id="across-pytorch-releases"') :]
    rows = [_text(row) for row in re.findall(r'<th scope="row">(.*?)</th>', section)]
    assert any(re.fullmatch(r"Gradients at kinks cell \d+", row) for row in rows), rows
    assert not any(row.startswith("Cell ") for row in rows)
    # 2.14.1 is newer than today: its diff strikes today's 1.0 and inserts its 0.0
    assert "<del>1.0,</del><ins>0.0,</ins>" in section
    assert "<del>0.0,</del><ins>1.0,</ins>" not in section
    assert "older words</del> are struck and <ins>newer words</ins> inserted" in section


def test_the_timeline_page_links_every_release_and_words_its_changes(small: Path) -> None:
    page = (small / "en/timeline.html").read_text("utf-8")
    matrix = page[page.index('<table class="tl-table tl-matrix">') : page.index("</table>")]
    assert page.index('<ul class="tl-legend">') < page.index('<table class="tl-table tl-matrix">')
    assert "title=" not in matrix  # the marks are buttons that say what they mean, not tooltips
    heads = re.findall(
        r'<th class="tl-release[^"]*" scope="col"><a class="reference internal" href="#([^"]+)">', matrix
    )
    assert heads == [f"changes-{release.replace('.', '-')}" for release in RELEASES]
    assert all(f'id="{anchor}"' in page for anchor in heads)
    # a release where nothing changed says so
    sections = dict(re.findall(r'<section id="(changes-[\d-]+)">(.*?)</section>', page, re.S))
    assert "No documented check changed in this release." in sections["changes-2-12-1"]
    # a renamed node inside the same RuntimeError is a message that differs, in every older release
    row = re.search(r'<tr><th scope="row"><a[^>]*href="[^"]*plot_data_vs_detach[^"]*">.*?</tr>', matrix)
    assert row is not None
    assert "tl-outcome" not in row.group(0)
    # every release older than today's (from 2.14 on, node names are today's again)
    older = [release for release in RELEASES if version_key(release) < version_key(str(pinned_torch(ROOT)))]
    assert row.group(0).count("tl-words") == len(older)
    # the changelog in sentences, old to new: a warning's new category, and its count with it
    newest = _text(sections["changes-2-14-1"])
    assert "is a FutureWarning, no longer a DeprecationWarning" in newest
    assert "With it, the value warnings on the first call changed: 180." in newest
    assert newest.count("warnings on the first call") == 1
    assert "The RuntimeError is worded otherwise" in _text(sections["changes-2-13-0"])
    assert "<del>SigmoidBackward0,</del><ins>Sigmoid,</ins>" in sections["changes-2-13-0"]


def test_the_page_words_the_sentences_the_records_choose() -> None:
    """The changelog's sentence is chosen once (records); the page's English msgids are the terminal's."""
    templates = sentence_templates()
    assert set(templates) == set(SENTENCES)
    assert {sentence: str(text) for sentence, text in templates.items()} == SENTENCES
    assert str(follows_template()) == FOLLOWS


_DOUBLED = re.compile(r"[.。,，:：;；…]\s*[.。,，:：;；]")


def _before_break(element: Element) -> list[Element | str]:
    """An element's children up to its first line break: a changelog entry's sentence, not its places."""
    found: list[Element | str] = []
    for child in element.children:
        if not isinstance(child, str) and child.tag == "br":
            break
        found.append(child)
    return found


def _garbled(element: Element) -> list[str]:
    """What reads as garbled in a sentence: an operand of no words, raw markup, doubled punctuation.

    The operands are the sentence's code (a word diff is the recorded text itself, not an operand);
    the words around them are what the template and its translation wrote.
    """
    parts = _before_break(element)
    operands = [
        code
        for part in parts
        if not isinstance(part, str)
        for code in part.find_all("code")
        if "tl-diff" not in code.classes and not any("tl-diff" in a.classes for a in code.ancestors())
    ]
    faults = [
        f"an operand of no words: {code.text()!r}" for code in operands if not re.search(r"\w", code.text())
    ]
    words = "".join(part if isinstance(part, str) else part.text() for part in parts)
    for part in parts:
        if not isinstance(part, str):
            for code in part.find_all("code"):
                # an operand that ends a sentence of its own ("…graph`.") keeps that stop: ".." then shows
                last = code.text()[-1:]
                words = words.replace(code.text(), "x" + (last if last in ".;:,。；：，…" else ""), 1)
    if "`" in words or ":ref:" in words or ":doc:" in words:
        faults.append(f"raw markup: {words!r}")
    if _DOUBLED.search(words):
        faults.append(f"doubled punctuation: {words!r}")
    return faults


def test_the_garble_check_finds_what_a_review_found() -> None:
    def paragraph(html: str) -> Element:
        return parse_page(f"<html><body>{html}</body></html>", "x.html").root.find("p")

    symbols = paragraph("<p>In 2.10.0, the words changed: <code>…</code> → <code>(×2)</code>.</p>")
    assert _garbled(symbols) == ["an operand of no words: '…'"]
    doubled = paragraph("<p>Changed: <code>calling `_set_static_graph`.</code>.</p>")
    assert [fault.split(":")[0] for fault in _garbled(doubled)] == ["doubled punctuation"]
    assert _garbled(paragraph("<p>See `x` here.</p>")) == ["raw markup: 'See `x` here.'"]
    assert _garbled(paragraph("<p>The <code>UserWarning</code> is worded otherwise.<br>On: .data.</p>")) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_summary_or_changelog_sentence_is_garbled(whole_site: Site, language: str) -> None:
    """Every example's summary and every changelog entry, in every language, reads as a sentence."""
    faults = []
    for example in EXAMPLES:
        summary = timeline_section(whole_site, language, example).find("p", "tl-summary")
        faults += [(example, fault) for fault in _garbled(summary)]
    changelog = read_page(whole_site.html / language, "timeline.html").article
    for entry in changelog.find_all("ul", "tl-changelog"):
        for item in entry.find_all("li"):
            faults += [("timeline", fault) for fault in _garbled(item)]
    assert not faults, "\n".join(map(str, faults))


def _sentence(item: Element) -> str:
    """A changelog entry's sentence: its text before the line break that starts its places."""
    words = [part if isinstance(part, str) else part.text() for part in _before_break(item)]
    return " ".join("".join(words).split())


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_timeline_page_says_each_change_once(whole_site: Site, language: str) -> None:
    page = read_page(whole_site.html / language, "timeline.html").article
    for changelog in page.find_all("ul", "tl-changelog"):
        said = [_sentence(item) for item in changelog.find_all("li")]
        assert len(said) == len(set(said)), [s for s in said if said.count(s) > 1][:3]
    lines = [element.text() for element in page.find_all("p") + page.find_all("li")]
    repeated = {line: lines.count(line) for line in set(lines) if line and lines.count(line) > 3}
    assert not repeated, list(repeated.items())[:3]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_stopped_example_says_why_once_per_page(whole_site: Site, language: str) -> None:
    # each release run that stopped at a missing API is said once, not once per check
    for example in EXAMPLES:
        section = timeline_section(whole_site, language, example)
        said = [item.text() for item in section.find_all("li", "tl-missing")]
        assert len(said) == len(set(said)), (example, said[:3])


def _plain(text: str) -> str:
    """Text with its spaces collapsed and typographic quotes as plain ones (the timeline keeps the plain)."""
    quotes = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "«": '"', "»": '"', "„": '"'})
    return " ".join(text.translate(quotes).split())


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_rows_name_is_its_cells_section_title_as_the_page_shows_it(whole_site: Site, language: str) -> None:
    # the names come from the gallery script (English): a translated page shows its own titles
    wrong = []
    for example in EXAMPLES:
        page = read_page(whole_site.html / language, page_name(example))
        headings = page.article.find_all("h2") + page.article.find_all("h3")
        titles = {_plain(h.text().rstrip("#¶ ")) for h in headings}
        for row in timeline_section(whole_site, language, example).find("tbody").find_all("tr"):
            link = row.find("th").find("a")
            name = _plain(link.text())
            named_by_label = [c.text() for c in link.find_all("code")] == [name]
            if name not in titles and not named_by_label and not re.fullmatch(r"\D*\d+\D*", name):
                wrong.append((example, name, sorted(titles)[:3]))
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_differences_line_is_its_checks_line_in_the_download(whole_site: Site, language: str) -> None:
    """ "line N" in "Every difference" is where the reader's download has the check, as its tracebacks say.

    A browser review found the English lists 6 lines before the downloads (their header and import
    guard), and the translated lists on the English script's lines.
    """
    wrong, seen = [], 0
    for example in EXAMPLES:
        page = read_page(whole_site.html / language, page_name(example))
        boxes = [box for box in page.article.find_all("details", "tl-check")]
        if not boxes:
            continue
        name = Path(example).name
        (href,) = {
            a.attrs["href"] for a in page.article.find_all("a") if a.attrs.get("href", "").endswith(name)
        }
        download = (whole_site.html / language / page_name(example)).parent / href
        lines = download.resolve().read_text(encoding="utf-8").splitlines()
        for box in boxes:
            where = box.find("summary").text().split(" · ")[1]
            for number in map(int, re.findall(r"\d+", where)):
                seen += 1
                line = lines[number - 1] if number <= len(lines) else ""
                if "check" not in line and "expect" not in line:
                    wrong.append((example, where, line.strip()))
    assert seen, "no list of differences: the test would say nothing"
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_the_timeline_names_checks_in_the_pages_language(whole_site: Site, language: str) -> None:
    """A check's label in a sentence is the page language's words; the English label is its title."""
    labels = translations(ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "check_labels.po")
    # the labels a translation words (not those it keeps whole as code, before its own words)
    prose = {label for label, translation in labels.items() if f"``{label}``" not in translation}
    page = read_page(whole_site.html / language, "timeline.html").article
    named = page.find_all("span", "check-label")
    assert {span.attrs.get("title") for span in named} >= {"norm of the raw entries", "modified in place"}
    in_english = sorted({code.text() for code in page.find_all("code")} & prose)
    assert not in_english, f"labels shown in English: {in_english}"
