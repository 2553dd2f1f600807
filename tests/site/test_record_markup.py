"""Records are data, never markup: a message holding HTML, reST or Markdown shows as its text.

A record comes from a machine we do not control (``ingest``, a reader's
``verify``): whatever its messages say must reach the pages as text. A small
site is built in English with a CUDA record and a release record of one
example whose error message holds a ``<script>`` element, a reST role,
Markdown and the ``⟦doc:…⟧`` placeholders the pages once resolved; every
page that shows the message (the runners box, the error index, the
timeline) must show those characters, and no element, link or
emphasis may come of them. The same build's download-all
archive then feeds ``verify``, whose archive ``ingest`` takes.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
import torch
from _html import read_page
from _site import SYNTHETIC_CUDA_EDIT, SYNTHETIC_CUDA_EXAMPLE, build_site, patched_record, small_site

from autograd_notes.records.cli import main
from autograd_notes.records.history.releases import release_of

# its module-scoped fixtures build once, in one worker
pytestmark = [pytest.mark.xdist_group("test_record_markup")]

SCRIPT = "<script>alert(1)</script>"
ROLE = ":ref:`x`"
MARKDOWN = "**bold** [link](http://x)"
# what the site's pages once resolved as their own links (a placeholder syntax, now gone)
PLACEHOLDERS = "⟦title:index⟧ ⟦doc:index⟧"
MARKUP = f"{SCRIPT} {ROLE} {MARKDOWN} {PLACEHOLDERS}"
# the error message both records change: the CUDA record and a release's differ from the CPU's there
AT = "Hint: enable anomaly detection"
EDIT = {AT: f"Hint: {MARKUP} enable anomaly detection"}
RELEASE = "2.99.0"
OTHER_EXAMPLE = "02_backward/plot_retain_graph.py"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small site's project, built in English with the two records that hold markup."""
    project = small_site(tmp_path_factory.mktemp("markup"), [SYNTHETIC_CUDA_EXAMPLE, OTHER_EXAMPLE])
    patched_record(project, SYNTHETIC_CUDA_EXAMPLE, "cuda", {**SYNTHETIC_CUDA_EDIT, **EDIT})
    patched_record(
        project,
        SYNTHETIC_CUDA_EXAMPLE,
        f"releases/{RELEASE}/cpu",
        {**EDIT, '"torch": "2.13.0+cpu"': f'"torch": "{RELEASE}+cpu"'},
    )
    result = build_site(project, "--language", "en")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "WARNING" not in output, output[-3000:]
    return project


def pages_showing(html: Path) -> dict[str, str]:
    """Every page whose text shows the message's markup as text: name -> HTML."""
    found = {}
    for path in sorted(html.rglob("*.html")):
        name = path.relative_to(html).as_posix()
        page = read_page(html, name)
        if MARKUP in " ".join(page.article.text().split()):
            found[name] = path.read_text(encoding="utf-8")
    return found


def test_a_message_with_markup_shows_as_its_text_on_every_page(built: Path) -> None:
    html = built / "build" / "html" / "en"
    shown = pages_showing(html)
    example_page = f"examples/{Path(SYNTHETIC_CUDA_EXAMPLE).with_suffix('.html').as_posix()}"
    # the runners box of the example, the error index and the timeline show the message (the
    # runners page names the cells that differ, not what they printed)
    assert {example_page, "errors.html", "timeline.html"} <= set(shown), sorted(shown)
    for name, text in shown.items():
        page = read_page(html, name)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text, name
        assert not [s for s in page.article.find_all("script") if "alert(1)" in s.text()], name
        assert not [a for a in page.article.find_all("a") if a.attrs.get("href") == "http://x"], name
        assert not [b for b in page.article.find_all() if b.tag in ("strong", "b") and b.text() == "bold"], (
            name
        )
        assert ROLE in " ".join(page.article.text().split()), name
    # nor anywhere in the page, outside the article
    for path in html.rglob("*.html"):
        assert SCRIPT not in path.read_text(encoding="utf-8"), path


def test_verify_runs_the_sites_download_all_archive_and_ingest_takes_its_archive(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (download_all,) = (built / "build" / "html" / "en" / "_downloads").rglob("examples_python.zip")
    reader = tmp_path / "reader"
    reader.mkdir()
    shutil.copy(download_all, reader / download_all.name)
    monkeypatch.chdir(reader)
    assert main(["verify", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "holds                                 2" in out, out
    archive = reader / f"autograd-notes-{release_of(torch.__version__)}-cpu.tar.gz"
    assert str(tmp_path).encode() not in gzip.decompress(archive.read_bytes())

    scratch = tmp_path / "records"
    shutil.copytree(built / "records", scratch)
    (built / "constraints").mkdir(exist_ok=True)
    (built / "constraints" / "torch.txt").write_text(f"torch=={release_of(torch.__version__)}\n", "utf-8")
    assert main(["ingest", str(archive), "--root", str(built), "--records", str(scratch)]) == 0
    assert capsys.readouterr().out.count("unchanged: records/cpu/") == 2
