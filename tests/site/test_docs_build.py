"""The English pages of the whole site, as ``nox -s docs`` builds it (``whole_site``), and what they show.

What changes and builds again (a rebuild, a new runner, a moved example, a
record that drifts) is in ``test_rebuilds.py``, on a small site.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest
import torch
from _html import parse_page, read_page
from _site import (
    LANGUAGES,
    ROOT,
    SYNTHETIC_CUDA_EXAMPLE,
    SYNTHETIC_SAME_CUDA_EXAMPLE,
    Build,
    Site,
    assert_same_script,
)

from autograd_notes.site.build.leaks import find_leaks, leak_patterns

# where the test build is published: the default of docs/conf.py (no AUTOGRAD_NOTES_SITE_URL)
SITE_URL = "https://autograd-notes.github.io/autograd-notes/"
EXAMPLES = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))
# the examples the whole site gives a synthetic CUDA record (conftest.whole_site)
WITH_CUDA = {Path(SYNTHETIC_CUDA_EXAMPLE), Path(SYNTHETIC_SAME_CUDA_EXAMPLE)}


@pytest.fixture(scope="module")
def project(whole_site: Site) -> Path:
    return whole_site.project


@pytest.fixture(scope="module")
def site(whole_site: Site) -> Build:
    """The English pages (the fixture checked that the build succeeded without a warning)."""
    return Build(0, "", whole_site.html / "en")


def text_of(page: str) -> str:
    """The visible text of a page, tags removed and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def example_page(site: Build, example: Path) -> str:
    return site.page(f"examples/{example.with_suffix('.html').as_posix()}")


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_page_shows_outputs_and_sources(site: Build, example: Path) -> None:
    page = text_of(example_page(site, example))
    source = (ROOT / "gallery" / example).read_text(encoding="utf-8")
    # each check() with a label that ran on this runner prints "label: value" into the page (a check
    # in a branch for GPUs does not run here)
    record = json.loads((ROOT / "records" / "cpu" / example.with_suffix(".json")).read_text("utf-8"))
    ran = {e["label"] for cell in record["cells"] for e in cell["events"] if e["kind"] == "value"}
    for label in [label for label in re.findall(r'\blabel="([^"]+)"', source) if label in ran]:
        assert f"{label}: " in page, f"{example}: output of check(label={label!r}) missing"
    if any(e["kind"] == "error" for cell in record["cells"] for e in cell["events"]):  # one ran here
        assert "Traceback (most recent call last):" in page
        assert "inside PyTorch" in page or "File " in page
    assert "Sources" in page
    assert "Download Python source code" in page
    assert "Download Jupyter notebook" in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_install_command_is_a_code_block_on_home_gallery_and_example_pages(
    whole_site: Site, language: str
) -> None:
    """The command stands alone in a code block (no break inside, a copy button on it) on each such page."""
    command = f"pip install --upgrade autograd-notes --find-links {SITE_URL}packages/"
    pages = [
        "index.html",
        "examples/index.html",
        *(f"examples/{e.with_suffix('.html').as_posix()}" for e in EXAMPLES),
    ]
    for name in pages:
        lines = read_page(whole_site.html / language, name).root.find_all("div", "install-line")
        blocks = [
            pre.text()
            for line in lines
            for code in line.find_all("div", "highlight")
            for pre in code.find_all("pre")
        ]
        assert blocks == [command], (language, name, blocks)


def test_the_notebook_stylesheet_loads_only_on_pages_with_notebook_cells(site: Build) -> None:
    with_sheet, with_cells = set(), set()
    for page in site.html.rglob("*.html"):
        raw = page.read_text(encoding="utf-8")
        name = page.relative_to(site.html).as_posix()
        if re.search(r'<link[^>]+href="[^"]*_static/mystnb\.[0-9a-f]+\.css', raw):
            with_sheet.add(name)
        if re.search(r'class="cell(?: [\w-]+)* docutils container"', raw):
            with_cells.add(name)
    assert "concepts/mental_model.html" in with_cells
    assert with_sheet == with_cells


def test_concept_notebook_was_executed(site: Build) -> None:
    page = text_of(site.page("concepts/mental_model.html"))
    assert "ExpBackward0 saves: ['_saved_result']" in page
    assert "AccumulateGrad" in page
    assert "which is output 0 of Exp, is at version 1" in page


def test_runner_page_names_this_runner(site: Build) -> None:
    page = text_of(site.page("runners.html"))
    assert torch.__version__ in page
    assert "CPU" in page
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in page


def test_downloads_exist_for_every_example(site: Build) -> None:
    downloads = site.html / "_downloads"
    for example in EXAMPLES:
        assert list(downloads.rglob(example.name)), example
        assert list(downloads.rglob(example.with_suffix(".ipynb").name)), example
    zips = {p.name for p in downloads.rglob("*.zip")}
    assert {"examples_python.zip", "examples_jupyter.zip"} <= zips


def test_no_page_leaks_the_build_machine(whole_site: Site, project: Path) -> None:
    patterns = leak_patterns([ROOT, project])
    for page in whole_site.html.rglob("*.html"):
        assert find_leaks(page.read_text(encoding="utf-8"), patterns) == [], page


def test_downloaded_script_identical_code(site: Build) -> None:
    """The .py a reader downloads is the example itself, line for line, so it runs as the page did.

    Only added: three comment lines naming its page and the install command,
    and the three-line guard before its first import of a module outside the
    standard library; its comments' cross-references become titles and links.
    """
    for example in EXAMPLES:
        download = next((site.html / "_downloads").rglob(example.name)).read_text(encoding="utf-8")
        lines = download.splitlines()
        assert lines[0].startswith("# This script is a page of Autograd Notes: https://"), lines[0]
        assert lines[0].endswith(f"/en/examples/{example.with_suffix('.html').as_posix()}")
        assert lines[2] == f"#     pip install --upgrade autograd-notes --find-links {SITE_URL}packages/"
        assert_same_script(download, (ROOT / "gallery" / example).read_text(encoding="utf-8"))


def test_example_pages_say_where_their_outputs_come_from(site: Build) -> None:
    for example in EXAMPLES:
        page = text_of(example_page(site, example))
        said = f"by its CPU runner, the machine that runs every example: torch {torch.__version__}"
        assert said in page, example
        # its own record: the PyTorch and machine the sentence before named, not said again
        assert "CPU runner: recorded " in page, example
        assert "The outputs on this page match it." in page, example
        if example in WITH_CUDA:
            assert "CUDA runner: torch 2.13.0+cu130, NVIDIA H100 80GB HBM3, recorded" in page, example
        else:
            # no record, no line: a page names only the runners that recorded it
            assert "CUDA runner:" not in page, example
            assert "no record yet" not in page, example


def test_runner_matrix_lists_every_example_and_runner(site: Build) -> None:
    raw = site.page("runners.html")
    page = text_of(raw)
    for example in EXAMPLES:
        assert f'href="examples/{example.with_suffix(".html").as_posix()}"' in raw
        assert f"records/cpu/{example.with_suffix('.json').as_posix()}" in page
    # every CPU record and the CUDA record that printed the same; no CUDA record for the others
    assert raw.count('<details class="runner-cell runner-same">') == len(EXAMPLES) + 1
    assert raw.count('<details class="runner-cell runner-differs">') == 1
    assert raw.count('<span class="runner-cell runner-none"') == len(EXAMPLES) - len(WITH_CUDA)
    assert f"All {len(EXAMPLES)} examples have a CPU record." in page
    assert f"{len(WITH_CUDA)} of {len(EXAMPLES)} examples have a CUDA record of PyTorch 2.13.0." in page
    same = "Every example printed here the same output as its earlier recorded run on the same runner."
    assert same in page


def test_a_differing_gpu_record_shows_as_tabs_with_the_reason(site: Build) -> None:
    raw = example_page(site, Path(SYNTHETIC_CUDA_EXAMPLE))
    page = text_of(raw)
    assert 'class="runner-tabs' in raw
    assert "CUDA runner · torch 2.13.0+cu130, NVIDIA H100 80GB HBM3, recorded" in page
    assert "[torch.cuda.FloatTensor []], which is output 0 of Add" in page
    assert "Only the tensor type named in the message differs" in page
    # cells whose outputs agree show one output and a mark
    assert "✓ Same output on the CUDA runner" in page
    assert "CUDA runner: torch 2.13.0+cu130, NVIDIA H100 80GB HBM3, recorded" in page


def test_a_gpu_record_that_printed_the_same_shows_no_tabs(site: Build) -> None:
    raw = example_page(site, Path(SYNTHETIC_SAME_CUDA_EXAMPLE))
    assert 'class="runner-tabs' not in raw
    assert "✓ Same output on the CUDA runner" in text_of(raw)


def test_error_index_lists_every_documented_message_with_links(site: Build) -> None:
    raw = site.page("errors.html")
    page = text_of(raw)
    records = [json.loads(p.read_text("utf-8")) for p in (ROOT / "records" / "cpu").rglob("*.json")]
    messages = {
        f"{e['raised']}: {e['message']}"
        for r in records
        for c in r["cells"]
        for e in c["events"]
        if e["kind"] == "error" and e["raised"]
    }
    assert len(messages) >= 10
    for message in messages:
        assert message in page, message
    assert 'href="examples/05_inplace/plot_detach_inplace_saved.html#cell-' in raw
    assert not re.search(r"\.py, line \d", page)
    anchors = set(re.findall(r'id="((?:error|warning)-[0-9a-f]{12})"', raw))
    assert len(anchors) >= len(messages)
    # an entry shows its first text; the others, which differ by shape or number, are folded
    entries = parse_page(raw, "errors.html").root.find_all("div", "error-entry")
    folded = [entry for entry in entries if entry.find_all("details", "error-more-variants")]
    assert folded, "no entry folds its other texts"
    for entry in entries:
        shown = [
            v
            for v in entry.find_all(class_="error-variant")
            if all(a.tag != "details" for a in v.ancestors())
        ]
        assert len(shown) == 1, entry.find(class_="error-summary").text()
    for entry in folded:
        details = entry.find("details", "error-more-variants")
        count = len(details.find_all(class_="error-variant"))
        said = "One more text of this message" if count == 1 else f"{count} more texts of this message"
        assert details.find("summary").text().startswith(said)


def test_tracebacks_on_example_pages_link_to_their_index_entry(site: Build) -> None:
    anchors = set(re.findall(r'id="((?:error|warning)-[0-9a-f]{12})"', site.page("errors.html")))
    linked = 0
    for example in EXAMPLES:
        raw = example_page(site, example)
        for anchor in re.findall(r'href="(?:\.\./)+errors\.html#((?:error|warning)-[0-9a-f]{12})"', raw):
            assert anchor in anchors, (example, anchor)
            linked += 1
        if "Traceback (most recent call last):" in raw:
            assert "Explained in the error-message index" in raw, example
    assert linked >= 10


def test_sources_page_says_whether_claims_hold_per_runner(site: Build) -> None:
    raw = site.page("sources.html")
    page = text_of(raw)
    # the runner, its PyTorch and the dates are said once, above the tables; a cell: whether checks hold
    assert page.count(f"CPU runner: torch {torch.__version__}, recorded ") == 1
    assert page.count("checks hold") >= 5
    assert "checks hold (torch" not in page
    # examples are named by their title, not their file
    assert "Edits that backward notices" in page
    tables = re.findall(r"<table[^>]*source-status.*?</table>", raw, flags=re.S)
    assert len(tables) == 5
    assert all("plot_" not in text_of(table) for table in tables)
    assert "checks do not hold" not in page
    assert "no record yet" in page
