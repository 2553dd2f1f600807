"""What the site knows of sphinx-gallery's and furo's generated output, in one place.

The site reads what two upstream packages generate, in formats neither of
them documents as an interface. Every such format is named here, with the
function that reads or rewrites it; the callers use these functions and
hold no regex or marker string of their own.
``tests/site/test_upstream.py`` runs the real sphinx-gallery and furo on a
tiny fixture and fails, naming the function here, when a format moves.

* **sphinx-gallery's generated reST** (an example page,
  :mod:`autograd_notes.site.upstream.gallery_rst`): each block starts with a comment
  ``.. GENERATED FROM PYTHON SOURCE LINES a-b``, a code block is a
  ``.. code-block:: Python`` directive, its output a ``sphx-glr-script-out``
  literal block indented by four spaces, and the download section starts at
  a ``.. _sphx_glr_download_...`` target.
* **sphinx-gallery's thumbnail cards** (a gallery index,
  :mod:`autograd_notes.site.examples.thumbnails`): raw HTML with the example's
  opening paragraph in the ``tooltip`` attribute of a
  ``sphx-glr-thumbcontainer``, then a ``:doc:`` link to the example, then
  its title in a ``sphx-glr-thumbnail-title``.
* **sphinx-gallery's execution cache**: an example runs again only when its
  script's md5 changed. :func:`rerun_if_runner_changed` makes it run every
  example again when the runner changed, with sphinx-gallery's own
  ``run_stale_examples`` option (no ``.md5`` file is deleted).
* **The cells of a gallery script** (``# %%``): one splitter,
  :mod:`autograd_notes.records.format.script_cells`, shared by the records and the
  downloads (the records layer cannot import this one); it is tested against
  sphinx-gallery's own parser on every gallery script.
* **sphinx-gallery's image scraper**
  (:mod:`autograd_notes.site.examples.figure_scraper`): ``block_vars`` carries an
  ``image_path_iterator`` whose ``paths`` lists every image file the
  example's scrapers have been given so far, in order.
* **furo's navigation tree** (:mod:`autograd_notes.site.i18n.theme_strings`):
  the ``furo_navigation_tree`` HTML of the template context, whose expandable
  entries carry an English ``aria-label="Toggle navigation of <title>"``.
* **Sphinx's toctree captions**, in that tree and in a page's body: a
  ``<p class="caption" role="heading">`` with no ``aria-level``, which
  :func:`level_toctree_captions` gives one.
* **furo's page.html**, forked in ``docs/_templates/page.html``:
  :data:`FURO_PAGE_SHA256` is the digest of the furo template the fork was
  taken from.

Pure text and file functions: no Sphinx here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, MutableMapping
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = [
    "FURO_NAVIGATION_TREE",
    "FURO_PAGE_SHA256",
    "OUTPUT_INDENT",
    "RUNNER_KEY_FILE",
    "furo_page_sha256",
    "generated_block_first_line",
    "is_card_link",
    "is_card_opening",
    "is_card_title",
    "is_code_block",
    "is_download_target",
    "is_literal_block",
    "is_output_start",
    "level_toctree_captions",
    "relabel_navigation_toggles",
    "remember_runner",
    "rerun_if_runner_changed",
    "scraped_image_paths",
    "set_card_title",
    "set_card_tooltip",
]

# -- sphinx-gallery: the reST of an example page -------------------------------------------

_GENERATED = re.compile(r"^\.\. GENERATED FROM PYTHON SOURCE LINES (\d+)-(\d+)\s*$")
_OUTPUT_START = ".. rst-class:: sphx-glr-script-out"
_DOWNLOAD = re.compile(r"^\.\. _sphx_glr_download_")
_CODE_BLOCK = ".. code-block:: Python"
_LITERAL_BLOCK = ".. code-block::"

OUTPUT_INDENT = "    "
"""How far sphinx-gallery indents the lines of an output block."""


def generated_block_first_line(line: str) -> int | None:
    """The first script line of the block that ``line`` starts, or None if it starts none.

    sphinx-gallery starts each block of a page with
    ``.. GENERATED FROM PYTHON SOURCE LINES a-b`` (``b`` exclusive).
    """
    match = _GENERATED.match(line)
    return int(match.group(1)) if match else None


def is_download_target(line: str) -> bool:
    """Whether ``line`` is the target that opens a page's download section (after every block)."""
    return _DOWNLOAD.match(line) is not None


def is_code_block(line: str) -> bool:
    """Whether ``line`` opens the code block of a generated block (a code cell's code)."""
    return line.startswith(_CODE_BLOCK)


def is_output_start(line: str) -> bool:
    """Whether ``line`` is the class line that opens a code cell's output block."""
    return line == _OUTPUT_START


def is_literal_block(line: str) -> bool:
    """Whether ``line`` (indented or not) is the directive that holds an output's text."""
    return line.strip().startswith(_LITERAL_BLOCK)


# -- sphinx-gallery: the thumbnail cards of a gallery index ---------------------------------

_CARD_OPENING = "sphx-glr-thumbcontainer"
_CARD_TITLE_CLASS = "sphx-glr-thumbnail-title"
_CARD_TITLE = re.compile(r'(<div class="sphx-glr-thumbnail-title">)(.*?)(</div>)', re.DOTALL)
_CARD_TOOLTIP = re.compile(r'(<div class="sphx-glr-thumbcontainer" tooltip=")([^"]*)(")')


def is_card_opening(raw_html: str) -> bool:
    """Whether a raw HTML node opens a card (it comes before the card's ``:doc:`` link)."""
    return _CARD_OPENING in raw_html


def is_card_link(domain: str | None, role: str | None) -> bool:
    """Whether a reference (its domain and role) is a card's link to its example: a ``:doc:``."""
    return (domain, role) == ("std", "doc")


def is_card_title(raw_html: str) -> bool:
    """Whether a raw HTML node holds a card's title (it comes after the card's link)."""
    return _CARD_TITLE_CLASS in raw_html


def _literal(text: str) -> str:
    """``text`` as a replacement string of :func:`re.sub`, taken literally."""
    return text.replace("\\", "\\\\")


def set_card_title(raw_html: str, title: str) -> str:
    """The card's HTML with ``title`` (already HTML-escaped) as the example's title."""
    return _CARD_TITLE.sub(rf"\g<1>{_literal(title)}\g<3>", raw_html)


def set_card_tooltip(raw_html: str, tooltip: str) -> str:
    """The card's HTML with ``tooltip`` (already escaped for an attribute) as its hover text."""
    return _CARD_TOOLTIP.sub(rf"\g<1>{_literal(tooltip)}\g<3>", raw_html)


# -- sphinx-gallery: the execution cache ---------------------------------------------------

RUNNER_KEY_FILE = ".runner-key"
"""The file beside a generated gallery that holds the runner key its examples last ran with."""


def _stored_key(gallery_dir: Path) -> str | None:
    stored = gallery_dir / RUNNER_KEY_FILE
    return stored.read_text(encoding="utf-8").strip() if stored.exists() else None


def rerun_if_runner_changed(
    gallery_conf: MutableMapping[str, Any], gallery_dirs: Iterable[Path], key: str
) -> bool:
    """Make sphinx-gallery run every example again when a gallery last ran under another runner.

    sphinx-gallery's cache hashes the script alone: an unchanged script is
    not run again, even on another PyTorch or device. Its own option
    ``run_stale_examples`` runs those examples anyway; it is set here for this
    build when the key stored beside any of ``gallery_dirs`` differs from
    ``key`` (or is missing), and left as it is otherwise, so that an
    unchanged rebuild executes nothing. Call it before sphinx-gallery's
    ``builder-inited`` handler, and :func:`remember_runner` once the examples
    ran. Returns whether the examples run again.
    """
    changed = any(_stored_key(folder) != key for folder in gallery_dirs)
    if changed and gallery_conf.get("plot_gallery"):
        gallery_conf["run_stale_examples"] = True
        return True
    return False


def remember_runner(gallery_conf: MutableMapping[str, Any], gallery_dirs: Iterable[Path], key: str) -> bool:
    """Store ``key`` beside each gallery once its examples ran, all of them without failing.

    Not after a build that did not execute (``plot_gallery=0``), nor after one
    in which an example failed: a failed example keeps the md5 of its script,
    so sphinx-gallery would take it as current on the next build, which must
    therefore run every example again. Returns whether the key was stored.
    """
    if not gallery_conf.get("plot_gallery") or gallery_conf.get("failing_examples"):
        return False
    for folder in gallery_dirs:
        if _stored_key(folder) != key:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / RUNNER_KEY_FILE).write_text(key + "\n", encoding="utf-8")
    return True


# -- sphinx-gallery: the image scraper ------------------------------------------------------


def scraped_image_paths(block_vars: MutableMapping[str, Any]) -> list[Path]:
    """Every image file sphinx-gallery has handed an example's scrapers so far, in order."""
    return [Path(path) for path in block_vars["image_path_iterator"].paths]


# -- furo: the navigation tree ---------------------------------------------------------------

FURO_NAVIGATION_TREE = "furo_navigation_tree"
"""The key of furo's navigation tree HTML in the template context (set by furo at priority 500)."""

_TOGGLE = re.compile(r'aria-label="Toggle navigation of ([^"]*)"')


def relabel_navigation_toggles(tree: str, label: Callable[[str], str]) -> str:
    """Return furo's navigation tree with each "Toggle navigation of <title>" label replaced.

    furo writes this screen-reader label in English with a Python f-string.
    ``label`` gets the entry's title as it is in the attribute (HTML-escaped)
    and returns the new attribute value, escaped.
    """
    return _TOGGLE.sub(lambda match: f'aria-label="{label(match.group(1))}"', tree)


# -- Sphinx: the captions of a toctree ------------------------------------------------------

# Sphinx's HTML writer (HTML5Translator.visit_title, Sphinx 9.0) writes a toctree's caption as
# <p class="caption" role="heading"> without aria-level, which ARIA requires of a heading role
# (axe-core: aria-required-attr, critical); furo's navigation tree passes it on in the sidebar.
# To report upstream, to Sphinx: write aria-level on the caption (or make it a real heading).
_CAPTION = re.compile(r'(<p\b[^>]*\bclass="caption"[^>]*\brole="heading")(?![^>]*\baria-level=)')

CAPTION_LEVEL = 2
"""The level of a toctree's caption: under the page's title (``h1``), as a section's title is."""


def level_toctree_captions(html: str, level: int = CAPTION_LEVEL) -> str:
    """``html`` (a navigation tree, a page's body) with ``aria-level`` on each toctree caption lacking one."""
    return _CAPTION.sub(rf'\g<1> aria-level="{level}"', html)


# -- furo: page.html ----------------------------------------------------------------------------

FURO_PAGE_SHA256 = "ad8bad98317b2e09e018cde7113e90a32b3a87e0440cfab385d1bb7ca1c9cd6d"
"""sha256 of ``furo/theme/furo/page.html`` of furo 2025.12.19, which ``docs/_templates/page.html`` forks."""


def furo_page_sha256() -> str:
    """The sha256 of the installed furo's ``page.html`` (compare with :data:`FURO_PAGE_SHA256`)."""
    template = files("furo").joinpath("theme", "furo", "page.html")
    return hashlib.sha256(template.read_bytes()).hexdigest()
