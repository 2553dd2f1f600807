"""Building again: what runs, what is removed and what a changed record shows, on a small site.

The small site (``_site.small_site``) has the real configuration, extension
and catalogs, three real examples and their records. It is built once; each
test takes its own copy of that build (project, generated gallery, caches and
pages), changes one thing and builds again, so that no test depends on
another's changes or order.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
import torch
from _site import build_site, executions, patched_record, small_site

# its module-scoped fixtures build once, in one worker
pytestmark = pytest.mark.xdist_group("test_rebuilds")

EXAMPLES = [
    "01_graph_basics/plot_tensor_kinds.py",
    "02_backward/plot_retain_graph.py",
    "05_inplace/plot_detach_inplace_saved.py",
]


def text_of(page: str) -> str:
    """The visible text of a page, tags removed and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.fixture(scope="module")
def small_site_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small site, built once in English as ``nox -s docs`` builds it; the tests copy it."""
    project = small_site(tmp_path_factory.mktemp("small") / "project", EXAMPLES)
    log = project / "first.log"
    build = build_site(project, "--language", "en", log=log)
    output = build.stdout + build.stderr
    assert build.returncode == 0, output[-5000:]
    assert "WARNING" not in output, output[-5000:]
    assert sorted(executions(log)) == sorted(Path(e).name for e in EXAMPLES)
    return project


@pytest.fixture
def built(small_site_build: Path, tmp_path: Path) -> Path:
    """This test's own copy of the built small site."""
    return Path(shutil.copytree(small_site_build, tmp_path / "project", symlinks=True))


def rebuild(project: Path, name: str) -> tuple[str, list[str], Path]:
    """Build ``project`` again as ``nox -s docs`` does: its log, the examples it executed, its pages."""
    log = project / f"{name}.log"
    again = build_site(project, "--language", "en", log=log)
    output = again.stdout + again.stderr
    assert again.returncode == 0, output[-3000:]
    return output, executions(log), project / "build" / "html" / "en"


def test_rebuild_without_changes_executes_nothing(built: Path) -> None:
    _output, ran, pages = rebuild(built, "again")
    assert ran == []
    # the pages still show what the examples printed, from sphinx-gallery's cache
    page = text_of((pages / "examples/02_backward/plot_retain_graph.html").read_text(encoding="utf-8"))
    assert "Trying to backward through the graph a second time" in page


def test_changed_runner_reexecutes_every_example(built: Path) -> None:
    """A different torch version or device in the stored key runs everything again."""
    key_file = built / "docs" / "examples" / ".runner-key"
    assert key_file.read_text(encoding="utf-8").startswith(f"torch={torch.__version__};")
    key_file.write_text("torch=0.0.0;variant=CPU;device=cpu;python=3\n", encoding="utf-8")
    _output, ran, _pages = rebuild(built, "changed")
    assert sorted(ran) == sorted(Path(e).name for e in EXAMPLES)
    assert key_file.read_text(encoding="utf-8").startswith(f"torch={torch.__version__};")


def test_a_moved_example_leaves_no_stale_page(built: Path) -> None:
    old = built / "gallery" / "01_graph_basics" / "plot_tensor_kinds.py"
    new = built / "gallery" / "02_backward" / "plot_tensor_kinds.py"
    old.rename(new)
    # its record moves with it (without it, the build fails: see test_bad_input)
    old_record = built / "records" / "cpu" / "01_graph_basics" / "plot_tensor_kinds.json"
    old_record.rename(built / "records" / "cpu" / "02_backward" / "plot_tensor_kinds.json")
    output, ran, pages = rebuild(built, "moved")
    assert "01_graph_basics/plot_tensor_kinds.py no longer exists" in output
    assert ran == ["plot_tensor_kinds.py"]
    assert not (built / "docs" / "examples" / "01_graph_basics" / "plot_tensor_kinds.rst").exists()
    assert not (pages / "examples" / "01_graph_basics" / "plot_tensor_kinds.html").exists()
    assert (pages / "examples" / "02_backward" / "plot_tensor_kinds.html").exists()


def test_drift_between_a_record_and_this_build_is_shown(built: Path) -> None:
    example = "02_backward/plot_retain_graph.py"
    patched_record(built, example, "cpu", {"tensor(": "tensor(0.0 + "})
    _output, ran, pages = rebuild(built, "drift")
    # a record is no script: nothing runs again, the pages compare anew
    assert ran == []
    matrix = text_of((pages / "runners.html").read_text(encoding="utf-8"))
    assert f"Differences from the record: {example}" in matrix
    assert "Cells where its page shows something else: " in matrix
    assert "Every example printed here the same output" not in matrix
    page = (pages / f"examples/{Path(example).with_suffix('.html').as_posix()}").read_text(encoding="utf-8")
    assert "The outputs on this page differ from it in" in text_of(page)
    # the examples whose records were left alone show no drift
    other = (pages / "examples/05_inplace/plot_detach_inplace_saved.html").read_text(encoding="utf-8")
    assert "The outputs on this page differ from it in" not in text_of(other)


def test_a_changed_then_reverted_interface_catalog_reaches_the_pages(built: Path) -> None:
    """The interface strings are translated while pages are read: a catalog change must read them again."""
    po = built / "docs" / "locale" / "ru" / "LC_MESSAGES" / "sphinx.po"
    original = po.read_text(encoding="utf-8")
    assert 'msgid "Machine"\nmsgstr "Машина"\n' in original

    def runners_page() -> str:
        result = build_site(built, "--language", "ru")
        assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
        return text_of((built / "build" / "html" / "ru" / "runners.html").read_text(encoding="utf-8"))

    assert "Машина" in runners_page()
    po.write_text(original.replace('msgstr "Машина"', 'msgstr "Машина (изменено)"'), encoding="utf-8")
    assert "Машина (изменено)" in runners_page()
    po.write_text(original, encoding="utf-8")  # reverted, as `git checkout` would
    page = runners_page()
    assert "Машина" in page
    assert "изменено" not in page


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{\n "format": 1,\n "cells": [\n', "not valid JSON: line 4 column 1"),
        (b"[]", "not a record of format 1"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
    ids=["truncated", "wrong-shape", "not-utf-8"],
)
def test_a_broken_record_stops_the_build_naming_it(built: Path, content: bytes, said: str) -> None:
    """One line names the record and why, and the last good site stays."""
    record = built / "records" / "cpu" / "02_backward" / "plot_retain_graph.json"
    record.write_bytes(content)
    good = (built / "build" / "html" / "en" / "index.html").read_bytes()
    result = build_site(built, "--language", "en")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"records/cpu/02_backward/plot_retain_graph.json: {said}" in output
    assert "FrozenInstanceError" not in output
    assert (built / "build" / "html" / "en" / "index.html").read_bytes() == good
