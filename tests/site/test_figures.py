"""Every example shows a picture: its own thumbnail, crisp, described in the reader's language."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from _html import Element, read_page
from _site import LANGUAGES, ROOT, Site
from docutils import nodes
from PIL import Image
from sphinx_gallery.utils import scale_image

from autograd_notes.site.examples.figure_alt import LIMIT, alt_text

EXAMPLES = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))
IMG = re.compile(r"<img\b[^>]*>")
THUMBNAIL = re.compile(r"^# sphinx_gallery_thumbnail_number = (-?\d+)$", re.MULTILINE)


def attribute(tag: str, name: str) -> str | None:
    found = re.search(rf'\b{name}\s*=\s*"([^"]*)"', tag)
    return html.unescape(found.group(1)) if found else None


def figures(site: Site, language: str, example: Path) -> list[str]:
    page = site.html / language / "examples" / example.with_suffix(".html")
    return [
        tag for tag in IMG.findall(page.read_text(encoding="utf-8")) if "sphx-glr-" in tag and "img" in tag
    ]


# words that describe a figure's shades as the light page shows them: dark mode inverts figures
# (hues kept, autograd_notes.css), so "darker" there is lighter and "white" is the dark background
LIGHT_ONLY_SHADES = re.compile(
    r"\b(darker|darkest|deeper|paler|palest|lighter|lightest|white)\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_figure_prose_names_no_shade_that_dark_mode_inverts(example: Path) -> None:
    prose = [
        (number, line)
        for number, line in enumerate(
            (ROOT / "gallery" / example).read_text(encoding="utf-8").splitlines(), 1
        )
        if line.lstrip().startswith("#") and LIGHT_ONLY_SHADES.search(line)
    ]
    assert prose == [], f"{example}: say 'stronger' or 'fainter', not a shade only the light page shows"


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_every_script_chooses_its_thumbnail(example: Path) -> None:
    found = THUMBNAIL.findall((ROOT / "gallery" / example).read_text(encoding="utf-8"))
    assert len(found) == 1, f"{example}: no '# sphinx_gallery_thumbnail_number = N' line"


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_every_example_page_shows_a_crisp_figure_described_in_each_language(
    whole_site: Site, example: Path
) -> None:
    number = int(THUMBNAIL.findall((ROOT / "gallery" / example).read_text(encoding="utf-8"))[0])
    alts: dict[str, list[str]] = {}
    for language in LANGUAGES:
        tags = figures(whole_site, language, example)
        assert tags, f"{language}/{example}: no figure"
        assert abs(number) <= len(tags), f"{example}: thumbnail {number} of {len(tags)} figures"
        for tag in tags:
            srcset = attribute(tag, "srcset") or ""
            assert "2.00x" in srcset, f"{language}/{example}: no hi-dpi image in {tag}"
            image = attribute(tag, "src")
            assert image is not None
            page_folder = whole_site.html / language / "examples" / example.parent
            assert (page_folder / image).resolve().exists(), image
        alts[language] = [attribute(tag, "alt") or "" for tag in tags]
        for alt in alts[language]:
            assert len(alt) >= 20, f"{language}/{example}: alt text {alt!r} does not describe the figure"
    for language in LANGUAGES[1:]:
        for english, translated in zip(alts["en"], alts[language], strict=True):
            assert translated != english, f"{language}/{example}: alt text not translated: {english!r}"
    for alt in alts["zh_CN"]:
        assert re.search(r"[\u4e00-\u9fff]", alt), alt


def test_no_thumbnail_is_the_placeholder_and_each_example_has_its_own(
    whole_site: Site, tmp_path: Path
) -> None:
    import sphinx_gallery

    placeholder = Path(sphinx_gallery.__file__).parent / "_static" / "no_image.png"
    scaled = tmp_path / "no_image.png"
    scale_image(str(placeholder), str(scaled), 400, 280)
    placeholder_pixels = Image.open(scaled).tobytes()
    for language in LANGUAGES:
        # a language's own images, and those every language shares (site/shared_figures.py)
        folders = (whole_site.html / language / "_images", whole_site.html / "_figures")
        thumbnails = sorted(t for folder in folders for t in folder.glob("sphx_glr_*_thumb.png"))
        assert {t.name for t in thumbnails} >= {f"sphx_glr_{e.stem}_thumb.png" for e in EXAMPLES}
        seen: dict[bytes, str] = {}
        for thumbnail in thumbnails:
            pixels = Image.open(thumbnail).tobytes()
            assert pixels != placeholder_pixels, f"{language}: {thumbnail.name} is the placeholder"
            twin = seen.setdefault(pixels, thumbnail.name)
            assert twin == thumbnail.name, f"{language}: {thumbnail.name} and {twin} are the same picture"


def test_a_long_caption_is_cut_at_a_sentence() -> None:
    sentence = "The saved tensor is red because it changed. "
    text = alt_text(sentence * 20)
    assert len(text) <= LIMIT
    assert text.endswith("changed.")
    assert alt_text("short\n  caption") == "short caption"
    assert alt_text("x" * (LIMIT + 50)).endswith("…")


def test_a_chinese_caption_is_cut_at_a_full_stop() -> None:
    text = alt_text("保存的张量被修改了。" * 60)
    assert text.endswith("。")
    assert len(text) <= LIMIT


def test_a_figure_without_a_caption_is_named(tmp_path: Path) -> None:
    from sphinx_gallery.directives import imgsgnode

    from autograd_notes.site.examples import figure_alt

    document = nodes.document(None, None)  # type: ignore[arg-type]
    section = nodes.section()
    figure = imgsgnode(alt="", srcset=None, uri="x.png", **{"class": None})
    section += nodes.paragraph(text="Before the figure.")
    section += figure
    document += section
    warnings: list[str] = []

    class Logger:
        def warning(self, message: str, *args: object, **_: object) -> None:
            warnings.append(message % args)

    original = figure_alt.logger
    figure_alt.logger = Logger()  # type: ignore[assignment]
    try:
        figure_alt.caption_figures(None, document, "examples/x/plot_y")  # type: ignore[arg-type]
        assert warnings == [
            "figure 1 of examples/x/plot_y has no paragraph after it to describe it (its alt text)"
        ]
        section += nodes.paragraph(text='The graph: "v1 ≠ v0" <marked>.')
        warnings.clear()
        figure_alt.caption_figures(None, document, "examples/x/plot_y")  # type: ignore[arg-type]
        assert warnings == []
        assert figure["alt"] == "The graph: &quot;v1 ≠ v0&quot; &lt;marked&gt;."
        # the links to the error index that follow a cell are no caption (a browser review found 13
        # English pages whose figure was described by them)
        links = nodes.paragraph(
            text="Explained in the error-message index: KeyError: x", classes=["error-links"]
        )
        section.insert(section.index(figure) + 1, links)
        figure_alt.caption_figures(None, document, "examples/x/plot_y")  # type: ignore[arg-type]
        assert figure["alt"] == "The graph: &quot;v1 ≠ v0&quot; &lt;marked&gt;."
    finally:
        figure_alt.logger = original


def text_pattern(element: Element) -> str:
    """A pattern of ``element``'s text, whitespace collapsed, each ``<math>`` in it matching any text."""
    parts: list[str] = []

    def walk(node: Element) -> None:
        for child in node.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.tag == "math":
                parts.append("\x00")
            else:
                walk(child)

    walk(element)
    return re.escape(" ".join("".join(parts).split())).replace("\x00", ".+?")


@pytest.mark.parametrize("language", LANGUAGES)
def test_gallery_cards_show_each_example_in_the_page_language(whole_site: Site, language: str) -> None:
    folder = whole_site.html / language
    gallery = read_page(folder, "examples/index.html")
    cards = gallery.root.find_all("div", "sphx-glr-thumbcontainer")
    assert len(cards) == len(EXAMPLES)
    for card in cards:
        link = next(a for a in card.find_all("a") if a.attrs.get("href", "").endswith(".html"))
        target, _ = gallery.resolve(link.attrs["href"])
        example = read_page(folder, target)
        assert card.find("div", "sphx-glr-thumbnail-title").text() == example.h1, (language, target)
        section = example.article.find("section")  # the example's: its title, then its opening
        opening = next(c for c in section.children if not isinstance(c, str) and c.tag == "p")
        # the tooltip is plain text: math in it is its TeX source, the page's is MathML
        assert re.fullmatch(text_pattern(opening), card.attrs["tooltip"]), (language, target)
