"""Sphinx extension of Autograd Notes.

Contract, for ``extensions = ["autograd_notes.site.sphinxext", ...]`` listed
*before* ``sphinx_gallery.gen_gallery``:

* **No stale pages.** Before sphinx-gallery runs, the files it generated
  for examples that were moved or deleted are removed.
* **Runner-aware caches.** The config value ``autograd_notes_runner`` is set
  to :attr:`~autograd_notes.RunnerInfo.key` (PyTorch version and build,
  device, Python) and rebuilds the environment when it changes, so executed
  MyST notebooks run again. sphinx-gallery's own cache hashes the script
  alone: when the key differs from the one stored beside the generated
  gallery, every example runs again (sphinx-gallery's ``run_stale_examples``,
  :func:`~autograd_notes.site.upstream.rerun_if_runner_changed`). An
  unchanged rebuild executes nothing.
* **Recorded runners on the pages.** Every generated example page gets a
  ``runner-summary`` at its top and a ``runner-outputs`` directive in place
  of each cell's output (:mod:`autograd_notes.site.runners_page`): outputs of the
  other runners' records appear beside this build's where they differ. The
  records folder is ``autograd_notes_records`` (default ``../records`` from
  the configuration folder); a digest of its files rebuilds the
  environment when a record changes, and a digest of the site layer's code
  (``autograd_notes_site_code``) when what the extension inserts changes.
* **Languages.** ``autograd_notes_languages`` (code -> name) gives each
  page links to itself in the other languages (``autograd_languages`` in the
  template context; ``../<code>/<page>.html``). The catalogs of the build's
  language are read strictly first: a syntax error stops the build naming
  file and line, and a message whose markup differs from the English is a
  warning. Every build rewrites the example downloads for its reader
  (:mod:`autograd_notes.site.downloads`): narrative in its language, the
  install command, links for cross-references. Chinese search
  gets a working stemmer (Sphinx 9.0 refers to an undefined
  ``ChineseStemmer``).
* **Notebooks executed once per runner.** myst-nb's cache is kept per
  runner key (``nb_execution_cache_path``/<key>), so every language of a
  build reuses one execution, and a new PyTorch or device runs them again.
* **Figures described in words.** Each figure's alt text is the paragraph
  after it, translated (:mod:`autograd_notes.site.figure_alt`); the
  gallery's cards show each example's title and opening paragraph in the
  page's language (:mod:`autograd_notes.site.thumbnails`).
* **Behaviour across PyTorch releases.** Every example page ends with an
  "Across PyTorch releases" section computed from ``records/releases``; the
  timeline page has every example × every release and a changelog
  (:mod:`autograd_notes.site.release_timeline`).
* **``runner-info`` and ``runner-matrix`` directives.** The runner that
  built the site; every example × every runner, with this build's drift.
* **Pages for the web** (:mod:`autograd_notes.site.page_meta`): canonical
  addresses from ``autograd_notes_site_url``, ``hreflang`` alternates, Open
  Graph metadata, an "edit this page" link into ``autograd_notes_repository``
  and the runner in the footer. Math is MathML written at build time
  (:mod:`autograd_notes.site.mathml`): no script from a CDN.
* **Fast example runs.** Before sphinx-gallery runs the examples, the
  objects that live as long as the build are frozen out of the garbage
  collector's scans (sphinx-gallery collects before every example).
  sphinx-gallery's code links are left out: there is no API page or
  inventory for them to point to.
* **A truthful log.** With ``autograd_notes_staging`` (set by
  :mod:`autograd_notes.site.sitebuild`, which builds into a folder it
  renames once every language is built), Sphinx's closing line "The HTML
  pages are in <folder>" is left out: it would name a folder that is gone
  by then. The site build names the final folder after the swap.
* **No leaks.** After an HTML build, every page is searched for absolute
  paths, the user name and memory addresses
  (:func:`~autograd_notes.site.leaks.find_leaks`); each finding is a warning,
  an error under ``-W``.
"""

from __future__ import annotations

import gc
import hashlib
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .._runner import runner_info
from .catalogs import CatalogError, markup_problems, read_catalog, translations
from .downloads import ReaderText, translate_downloads
from .gallery_conf import gallery_folders
from .gallery_rst import install_directive, summary_directive, timeline_directive, wrap_outputs
from .install import InstallLineDirective, install_command
from .leaks import find_leaks, leak_patterns
from .nodes import make_table, untranslatable
from .page_meta import absolute_links_on_not_found, add_page_meta, set_site_addresses
from .runners_page import DIRECTIVES
from .search import SearchChineseWithStemmer
from .sitemap import DEFAULT_SITE_URL, hreflang, page_address
from .upstream import remember_runner, rerun_if_runner_changed

__all__ = ["RunnerInfoDirective", "setup"]

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"


def _records_dir(app: Sphinx, config: Config) -> Path:
    return Path(app.confdir, config.autograd_notes_records or "../records").resolve()


def files_digest(folder: Path, pattern: str) -> str:
    """A digest of the path and contents of every file under ``folder`` matching ``pattern``.

    "" when ``folder`` does not exist: e.g. the records (``*.json``), the site layer's code (``*.py``).
    """
    digest = hashlib.sha256()
    for path in sorted(folder.rglob(pattern)):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest() if folder.exists() else ""


def _set_runner_key(app: Sphinx, config: Config) -> None:
    config.autograd_notes_runner = runner_info().key
    if getattr(config, "nb_execution_cache_path", ""):
        key = hashlib.sha256(config.autograd_notes_runner.encode()).hexdigest()[:16]
        config.nb_execution_cache_path = str(Path(app.confdir, config.nb_execution_cache_path, key).resolve())
    config.autograd_notes_records = str(_records_dir(app, config))
    config.autograd_notes_records_digest = files_digest(Path(config.autograd_notes_records), "*.json")
    # what this extension inserts into pages changes with its code: re-read them then
    config.autograd_notes_site_code = files_digest(Path(__file__).parent, "*.py")


def _gallery_example(app: Sphinx, docname: str) -> str | None:
    """``<section>/plot_x.py`` when ``docname`` is a generated example page."""
    for gallery in gallery_folders(app.config, app.srcdir):
        rest = docname.removeprefix(gallery.prefix + "/")
        if rest != docname and Path(rest).name.startswith("plot_") and "/" in rest:
            return rest + ".py"
    return None


def _add_runner_directives(app: Sphinx, docname: str, source: list[str]) -> None:
    example = _gallery_example(app, docname)
    if example is not None:
        page = summary_directive(wrap_outputs(source[0], example), example)
        source[0] = install_directive(timeline_directive(page, example))


def remove_stale_pages(examples_dir: Path, gallery_dir: Path) -> list[str]:
    """Remove what sphinx-gallery generated for examples that no longer exist.

    sphinx-gallery never deletes: a moved or deleted example would keep its
    page (a duplicate label, a page outside every toctree). Returns the
    example names whose files were removed.
    """
    removed = []
    for page in sorted(gallery_dir.glob("*/plot_*.rst")):
        section = page.parent.relative_to(gallery_dir)
        if (examples_dir / section / f"{page.stem}.py").exists():
            continue
        for leftover in page.parent.glob(f"{page.stem}.*"):
            leftover.unlink()
        for image in (page.parent / "images").rglob(f"sphx_glr_{page.stem}_*"):
            image.unlink()
        removed.append(f"{section.as_posix()}/{page.stem}.py")
    for folder in sorted(p for p in gallery_dir.iterdir() if p.is_dir()) if gallery_dir.exists() else []:
        if folder.name != "images" and not (examples_dir / folder.name).exists():
            shutil.rmtree(folder)
    return removed


def _invalidate(app: Sphinx) -> None:
    key = app.config.autograd_notes_runner
    galleries = gallery_folders(app.config, app.srcdir)
    for gallery in galleries:
        for example in remove_stale_pages(gallery.source, gallery.generated):
            logger.info("autograd_notes: %s no longer exists; its generated page was removed", example)
    if galleries and rerun_if_runner_changed(
        app.config.sphinx_gallery_conf, [gallery.generated for gallery in galleries], key
    ):
        logger.info("autograd_notes: runner changed (%s); every example will run again", key)


def _remember_runner(app: Sphinx) -> None:
    galleries = [gallery.generated for gallery in gallery_folders(app.config, app.srcdir)]
    if galleries:
        remember_runner(app.config.sphinx_gallery_conf, galleries, app.config.autograd_notes_runner)


class RunnerInfoDirective(SphinxDirective):
    """``.. runner-info::`` renders the runner that built the site as a table."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Return the table of :func:`~autograd_notes.runner_info`."""
        info = runner_info()
        rows = [
            ("PyTorch", info.torch_version),
            (_("Build variant"), info.variant),
            (_("Device"), f"{info.device} ({info.device_name})"),
            ("Python", info.python),
        ]
        table = make_table(rows, widths=[1, 3], classes=["runner-info"])
        return untranslatable([table])


def _language_links(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.Node | None
) -> None:
    languages: dict[str, str] = app.config.autograd_notes_languages
    current = app.config.language or "en"
    up = "../" * (pagename.count("/") + 1)
    context["autograd_languages"] = [
        (hreflang(code), name, f"{up}{code}/{pagename}.html", code == current)
        for code, name in languages.items()
    ]


def _check_catalogs(app: Sphinx) -> None:
    language = app.config.language or "en"
    if language == "en":
        return
    for locale_dir in app.config.locale_dirs:
        folder = Path(app.srcdir, locale_dir, language, "LC_MESSAGES")
        for path in sorted(folder.rglob("*.po")):
            try:
                catalog = read_catalog(path)
            except CatalogError as error:
                raise ExtensionError(f"broken translation catalog: {error}") from None
            for problem in markup_problems(catalog):
                logger.warning(
                    "%s %s",
                    path.relative_to(app.srcdir).as_posix(),
                    problem,
                    type="autograd_notes",
                    subtype="i18n",
                )


def _reader_text(app: Sphinx, language: str) -> ReaderText:
    """What the downloads say to their reader, in this build's language (the ``sphinx`` catalog)."""
    site_url = app.config.autograd_notes_site_url
    links = {
        label: (title, f"{page_address(site_url, language, docname + '.html')}#{anchor}")
        for label, (docname, anchor, title) in app.env.domains.standard_domain.labels.items()
        if title and docname in app.env.all_docs
    }
    return ReaderText(
        command=install_command(site_url),
        page=str(_("This script is a page of Autograd Notes: {address}")),
        needs=str(_("It needs PyTorch and autograd-notes, the helper package it imports:")),
        missing=str(_("This example needs PyTorch and autograd-notes (its helper package). Install them:")),
        notebook=str(_("Installs autograd-notes, this notebook's helper package, if the kernel lacks it:")),
        links=links,
    )


def _write_downloads(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    language = app.config.language or "en"
    galleries = [(gallery.source, gallery.prefix) for gallery in gallery_folders(app.config, app.srcdir)]
    locale = Path(app.srcdir, app.config.locale_dirs[0], language, "LC_MESSAGES")

    def catalog_for(docname: str) -> dict[str, str]:
        return translations(locale / f"{docname}.po") if language != "en" else {}

    def address_of(docname: str) -> str:
        return page_address(app.config.autograd_notes_site_url, language, f"{docname}.html")

    done = translate_downloads(
        Path(app.outdir),
        galleries,
        catalog_for,
        app.config.sphinx_gallery_conf,
        _reader_text(app, language),
        address_of,
    )
    logger.info("autograd_notes: %d example downloads written in %s", len(done), language)


def _add_static(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.config.html_static_path.append(str(STATIC))
        app.add_css_file("autograd_notes.css")
        app.add_js_file("autograd_notes.js", priority=600)  # after copybutton.js


def _freeze_startup_objects(app: Sphinx) -> None:
    """Move what exists now (Sphinx, PyTorch, matplotlib, ...) out of the garbage collector's reach.

    sphinx-gallery runs a full ``gc.collect()`` before every example; with
    PyTorch and Sphinx loaded that scans hundreds of thousands of objects
    that live until the build ends, about a tenth of a second each time.
    Frozen (:func:`gc.freeze`), they are no longer scanned; what the
    examples create is collected as before.
    """
    gc.collect()
    gc.freeze()


def _no_code_links(app: Sphinx) -> None:
    """Drop sphinx-gallery's code-link post-transform: this site has nothing for it to link to.

    It links names in the examples' code to API pages of this project or to
    intersphinx inventories; the site documents no API and has no inventory
    (it builds offline), so the transform would only re-tokenize every code
    block of every page, about a second per language.
    """
    app.registry.post_transforms = [
        transform for transform in app.registry.post_transforms if transform.__name__ != "CodeLinksTransform"
    ]


def _no_staging_epilog(app: Sphinx) -> None:
    if app.config.autograd_notes_staging:
        app.builder.epilog = ""  # type: ignore[misc]  # this builder's, not the class's


def _check_leaks(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    patterns = leak_patterns([Path(app.srcdir).parent, app.srcdir, app.outdir])
    for page in sorted(Path(app.outdir).rglob("*.html")):
        leaks = find_leaks(page.read_text(encoding="utf-8"), patterns)
        for leak in leaks:
            logger.warning(
                "%s leaks the build machine: %s",
                page.relative_to(app.outdir).as_posix(),
                leak,
                type="autograd_notes",
                subtype="leak",
            )


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the config value, hooks and directive (see the module docstring)."""
    app.add_config_value("autograd_notes_runner", "", "env", types=frozenset({str}))
    app.add_config_value("autograd_notes_records", "", "env", types=frozenset({str}))
    app.add_config_value("autograd_notes_records_digest", "", "env", types=frozenset({str}))
    app.add_config_value("autograd_notes_site_code", "", "env", types=frozenset({str}))
    app.add_config_value("autograd_notes_languages", {"en": "English"}, "html", types=frozenset({dict}))
    app.add_config_value("autograd_notes_site_url", DEFAULT_SITE_URL, "html", types=frozenset({str}))
    app.add_config_value("autograd_notes_repository", "", "html", types=frozenset({str}))
    app.add_config_value("autograd_notes_branch", "main", "html", types=frozenset({str}))
    # an example with no record on this build's runner fails the build (under -W)
    app.add_config_value("autograd_notes_require_records", True, "env", types=frozenset({bool}))
    # the output folder is a staging one that sitebuild renames: no closing line naming it
    app.add_config_value("autograd_notes_staging", False, "", types=frozenset({bool}))
    app.setup_extension("autograd_notes.site.mathml")
    app.setup_extension("autograd_notes.site.figure_alt")
    app.setup_extension("autograd_notes.site.build_sync")
    app.setup_extension("autograd_notes.site.thumbnails")
    app.setup_extension("autograd_notes.site.theme_strings")
    app.setup_extension("autograd_notes.site.release_timeline")
    app.connect("config-inited", set_site_addresses, priority=400)
    app.connect("html-page-context", add_page_meta)
    app.connect("doctree-resolved", absolute_links_on_not_found)
    app.connect("config-inited", _set_runner_key, priority=400)
    app.connect("builder-inited", _check_catalogs)
    app.connect("html-page-context", _language_links)
    app.connect("build-finished", _write_downloads)
    app.add_search_language(SearchChineseWithStemmer)
    app.connect("source-read", _add_runner_directives)
    app.connect("builder-inited", _add_static)
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    # Before sphinx-gallery's own builder-inited handler (priority 500) runs examples.
    app.connect("builder-inited", _invalidate, priority=400)
    app.connect("builder-inited", _remember_runner, priority=600)  # after the examples ran
    app.connect("builder-inited", _freeze_startup_objects, priority=450)
    app.connect("builder-inited", _no_code_links)
    app.connect("build-finished", _check_leaks)
    app.connect("builder-inited", _no_staging_epilog)
    app.add_directive("runner-info", RunnerInfoDirective)
    app.add_directive("install-line", InstallLineDirective)
    from importlib.metadata import version

    return {"version": version("autograd-notes"), "parallel_read_safe": True, "parallel_write_safe": True}
