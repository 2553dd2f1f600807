"""Figures stored once for every language: identical images move to ``_figures``, pages follow them."""

from __future__ import annotations

from pathlib import Path

from autograd_notes.site.build.shared_figures import SHARED, share_figures

PAGE = (
    '<img src="{up}_images/graph.png" srcset="{up}_images/graph.png, {up}_images/graph_2_00x.png 2.00x">'
    '<img src="{up}_images/words.png"><a href="{up}_static/x.css">_images/graph.png in prose</a>'
)


def _site(root: Path) -> Path:
    for language, words in (("en", b"english"), ("ru", b"russian")):
        images = root / language / "_images"
        images.mkdir(parents=True)
        (images / "graph.png").write_bytes(b"the same figure")
        (images / "graph_2_00x.png").write_bytes(b"the same figure, twice as large")
        (images / "words.png").write_bytes(words)
        (root / language / "index.html").write_text(PAGE.format(up=""), encoding="utf-8")
        (root / language / "examples" / "01").mkdir(parents=True)
        (root / language / "examples" / "01" / "page.html").write_text(
            PAGE.format(up="../../"), encoding="utf-8"
        )
    return root


def _targets(page: Path) -> list[Path]:
    import re

    return [
        (page.parent / src).resolve()
        for src in re.findall(r'(?:src="|srcset="|, )([^" ,]+\.png)', page.read_text())
    ]


def test_identical_images_are_stored_once_and_every_page_finds_them(tmp_path: Path) -> None:
    site = _site(tmp_path)
    shared, saved = share_figures(site, ["en", "ru"])
    assert shared == 4  # two images, in two languages
    assert saved == len(b"the same figure") + len(b"the same figure, twice as large")
    assert sorted(p.name for p in (site / SHARED).iterdir()) == ["graph.png", "graph_2_00x.png"]
    for language in ("en", "ru"):
        assert sorted(p.name for p in (site / language / "_images").iterdir()) == ["words.png"]
        for page in (site / language / "index.html", site / language / "examples" / "01" / "page.html"):
            targets = _targets(page)
            assert len(targets) == 4
            assert all(target.is_file() for target in targets), page
            assert sum(target.parent.name == SHARED for target in targets) == 3
            assert "_images/graph.png in prose" in page.read_text()  # only references are rewritten


def test_a_language_built_later_shares_what_is_already_there(tmp_path: Path) -> None:
    site = _site(tmp_path)
    share_figures(site, ["en", "ru"])
    images = site / "pt_BR" / "_images"
    images.mkdir(parents=True)
    (images / "graph.png").write_bytes(b"the same figure")
    (images / "graph_2_00x.png").write_bytes(b"drawn differently")
    (site / "pt_BR" / "index.html").write_text(PAGE.format(up=""), encoding="utf-8")
    (images / "words.png").write_bytes(b"portuguese")
    shared, _saved = share_figures(site, ["pt_BR"])
    assert shared == 1
    assert sorted(p.name for p in images.iterdir()) == ["graph_2_00x.png", "words.png"]
    assert all(target.is_file() for target in _targets(site / "pt_BR" / "index.html"))
    assert (site / SHARED / "graph_2_00x.png").read_bytes() == b"the same figure, twice as large"
