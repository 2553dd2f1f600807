"""Behaviour across PyTorch releases on the site: every example page, the timeline page, sources.

The rendering is tested on synthetic timelines first (no build); then the
real site, built once with the committed release records plus one synthetic
release (``_site.SYNTHETIC_RELEASE``, which rewords one message of one
example), is read in every language.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _html import Element, read_page
from _render import NodeWriter
from _site import SYNTHETIC_RELEASE, SYNTHETIC_RELEASE_EDIT, SYNTHETIC_RELEASE_EXAMPLE, Site
from docutils import nodes
from sphinx.addnodes import pending_xref

from autograd_notes.records.record import FORMAT
from autograd_notes.records.releases import version_key
from autograd_notes.records.timeline import example_timeline
from autograd_notes.site.catalogs import translations
from autograd_notes.site.gallery_rst import timeline_directive
from autograd_notes.site.html_nodes import HtmlCode
from autograd_notes.site.links import cell_label
from autograd_notes.site.release_timeline import SECTION_ID, summary_sentence, timeline_nodes

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ["en", "ru", "zh_CN", "pt_BR"]
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
    body = timeline_nodes(example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", releases), [1, 12])
    page = html.write(body)
    heads = re.findall(r'<th class="tl-release[^"]*" scope="col" title="([^"]+)">([^<]+)</th>', page)
    assert [short for _, short in heads] == ["2.4", "2.9", "2.12", "2.13"]
    assert heads[-1][0] == "2.13.0 (today, the release the pages document)"
    marks = re.findall(r'<td class="tl-mark tl-(\w+)" title="([^"]+)"', page)
    assert marks == [
        ("missing", "2.4.1: not available in this release"),
        ("words", "2.9.1: message differs"),
        ("same", "2.12.1: same as today"),
        ("same", "2.13.0: same as today"),
    ]
    assert '<th scope="row">Cell 2</th>' in page
    # the word diff, escaped: the message's own "<is>" is text, not markup
    assert "<del>AddBackward0</del><ins>Add</ins> &lt;is&gt; at version 1" in page
    assert "ImportError: nope" in page  # why 2.4.1 cannot run the cell
    assert re.search(r'<details class="tl-check"><summary>Cell 2 · line 15 · expected error · ', page)
    # the links are references Sphinx resolves, and warns about when their target is missing:
    # the row's and the details' to the cell's label, one to the timeline page
    refs = [(ref["reftype"], ref["reftarget"], ref.astext()) for ref in body.findall(pending_xref)]
    assert refs == [
        ("ref", cell_label("05_x/plot_fixture.py", 2), "Cell 2"),
        ("ref", cell_label("05_x/plot_fixture.py", 2), "Cell 2"),
        ("doc", "/timeline", "Behaviour across PyTorch releases"),
    ]
    assert "⟦" not in body.astext()


def test_summary_sentences() -> None:
    same = example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", {"2.12.1": TODAY})
    assert (
        sentence(summary_sentence(same)) == "Holds as documented in every recorded release, 2.12.1 to 2.13.0."
    )
    renamed = example_timeline(
        "05_x/plot_fixture.py",
        TODAY,
        "2.13.0",
        {"2.12.1": record("2.12.1", error("output 0 of AddBackward0 <is> at version 1"))},
    )
    assert sentence(summary_sentence(renamed)) == (
        "Holds as documented in every recorded release, 2.12.1 to 2.13.0. In 2.13.0, the words of a checked "
        "message changed: `AddBackward0` → `Add`."
    )
    broken = example_timeline(
        "05_x/plot_fixture.py",
        TODAY,
        "2.13.0",
        {"2.9.1": record("2.9.1", error("other", holds=False)), "2.12.1": TODAY},
    )
    assert (
        sentence(summary_sentence(broken))
        == "Holds as documented since 2.12.1; in 2.9.1, the release before it, 1 of 1 checks differ."
    )
    alone = example_timeline("05_x/plot_fixture.py", TODAY, "2.13.0", {})
    assert (
        sentence(summary_sentence(alone)) == "No other PyTorch release has been recorded for this page yet."
    )


# -- the built site -----------------------------------------------------------------------------


def release_of_title(title: str) -> str:
    """A column's release, from its title: ``2.13.0`` of ``2.13.0 (today, ...)`` in any language."""
    found = re.match(r"\d+\.\d+\.\d+", title)
    assert found is not None, title
    return found.group(0)


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
        shown = [
            release_of_title(th.attrs["title"]) for th in table.find_all("th") if "tl-release" in th.classes
        ]
        assert shown == releases, (language, example)
        assert section.find("p", "tl-summary").text().strip(), (language, example)
        for row in table.find("tbody").find_all("tr"):
            assert len(row.find_all("td", "tl-mark")) == len(releases)
        assert "⟦" not in section.text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_synthetic_release_rewords_one_message(whole_site: Site, language: str) -> None:
    section = timeline_section(whole_site, language, SYNTHETIC_RELEASE_EXAMPLE)
    column = [
        release_of_title(th.attrs["title"])
        for th in section.find("table").find_all("th")
        if "tl-release" in th.classes
    ]
    index = column.index(SYNTHETIC_RELEASE)
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
            assert re.search(r"\d+\.\d+\.\d+", row.find_all("td")[-1].text()), row.text()
