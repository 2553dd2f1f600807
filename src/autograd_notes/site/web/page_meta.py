"""What every page carries for the web: its address, its other languages, its source.

Computed per page in ``html-page-context``, an extension of its own (:func:`setup`):

* **Addresses.** The site is published at ``autograd_notes_site_url``
  (``<url>/<language>/<page>.html``); each language's ``html_baseurl``
  follows from it, so Sphinx writes a canonical link, and the 404 page's
  links are absolute under the same path.
* **Other languages.** ``<link rel="alternate" hreflang>`` for every
  language (``x-default``: English), for search engines that send readers to
  the page in their language.
* **Open Graph.** Title, description (the page's first paragraph), address,
  locale and its alternates, site name: what a link preview shows.
* **Edit this page.** The file a contributor edits: the gallery script for
  an example, the page's source for other pages, the gettext catalog for a
  translated page.
* **Footer.** The PyTorch and runner that built the site.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docutils import nodes
from markupsafe import Markup
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import _

from ..._device import runner_info
from ..upstream.gallery_conf import gallery_folders
from .nodes import RUNNER_NAMES
from .sitemap import DEFAULT_SITE_URL, hreflang, page_address, site_root

__all__ = [
    "absolute_links_on_not_found",
    "add_page_meta",
    "description_of",
    "edit_path",
    "og_locale",
    "page_url",
    "set_site_addresses",
    "setup",
    "site_url",
]

DESCRIPTION_LENGTH = 200


def site_url(config: Config) -> str:
    """``autograd_notes_site_url`` with exactly one trailing slash."""
    return site_root(str(config.autograd_notes_site_url))


def og_locale(code: str) -> str:
    """The Open Graph locale of a Sphinx language code: ``ru`` -> ``ru_RU``."""
    return {"en": "en_US", "ru": "ru_RU", "zh_CN": "zh_CN", "pt_BR": "pt_BR"}.get(code, code)


def page_url(config: Config, language: str, pagename: str) -> str:
    """The published address of ``pagename`` in ``language``."""
    return page_address(site_url(config), language, f"{pagename}.html")


def set_site_addresses(app: Sphinx, config: Config) -> None:
    """Derive ``html_baseurl`` and the 404 page's URL prefix from the site address."""
    language = config.language or "en"
    config.html_baseurl = f"{site_url(config)}{language}/"
    if hasattr(config, "notfound_urls_prefix"):
        config.notfound_urls_prefix = f"{urlsplit(site_url(config)).path}{language}/"


def absolute_links_on_not_found(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Make the 404 page's own links absolute: it answers at any depth of the site.

    sphinx-notfound-page rewrites the theme's links and the page's images,
    not the references written in the page.
    """
    if docname != "404":
        return
    prefix = f"{urlsplit(site_url(app.config)).path}{app.config.language or 'en'}/"
    for reference in doctree.findall(nodes.reference):
        uri = reference.get("refuri", "")
        if uri and "://" not in uri and not uri.startswith(("#", "/", "mailto:")):
            reference["refuri"] = prefix + uri


def description_of(doctree: nodes.Node | None) -> str:
    """The page's first paragraph of prose, shortened to about 200 characters."""
    if doctree is None:
        return ""
    for paragraph in doctree.findall(nodes.paragraph):
        if any(
            isinstance(parent, (nodes.Admonition, nodes.container, nodes.table))
            for parent in _parents(paragraph)
        ):
            continue  # notes and runner summaries are not what the page is about
        text = " ".join(paragraph.astext().split())
        if len(text) >= 40:
            return (
                text
                if len(text) <= DESCRIPTION_LENGTH
                else text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
            )
    return ""


def _parents(node: nodes.Node) -> list[nodes.Node]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


def edit_path(app: Sphinx, pagename: str) -> str | None:
    """The repository path a contributor edits for ``pagename``, or ``None`` (generated pages)."""
    env = app.env
    if pagename not in env.found_docs:
        return None
    language = app.config.language or "en"
    srcdir = Path(app.srcdir)
    root = srcdir.parent
    if language != "en":
        locale = Path(app.config.locale_dirs[0])
        return (srcdir.relative_to(root) / locale / language / "LC_MESSAGES" / f"{pagename}.po").as_posix()
    for gallery in gallery_folders(app.config, srcdir):
        rest = pagename.removeprefix(gallery.prefix + "/")
        if rest == pagename and pagename != gallery.prefix:
            continue
        source = gallery.source.relative_to(root)
        if rest == "index" or pagename == gallery.prefix:
            return (source / "GALLERY_HEADER.rst").as_posix()
        if rest.endswith("/index"):
            return (source / rest.removesuffix("/index") / "GALLERY_HEADER.rst").as_posix()
        return (source / f"{rest}.py").as_posix()
    return Path(env.doc2path(pagename)).relative_to(root).as_posix()


def _head_tags(app: Sphinx, pagename: str, context: dict[str, Any], doctree: nodes.Node | None) -> str:
    config = app.config
    language = config.language or "en"
    languages: dict[str, str] = config.autograd_notes_languages
    escape = html.escape
    tags = []
    if pagename != "404":  # one address per page: a 404 answers for every missing one
        for code in languages:
            url = escape(page_url(config, code, pagename))
            tags.append(f'<link rel="alternate" hreflang="{hreflang(code)}" href="{url}">')
        tags.append(
            f'<link rel="alternate" hreflang="x-default" href="{escape(page_url(config, "en", pagename))}">'
        )
    # the title is HTML (inline code in it is <code>): a preview shows its text
    title = str(Markup(str(context.get("title") or config.html_title)).striptags())
    properties = {
        "og:type": "website",
        "og:site_name": config.html_title,
        "og:title": title,
        "og:url": page_url(config, language, pagename),
        "og:locale": og_locale(language),
    }
    description = description_of(doctree)
    if description:
        properties["og:description"] = description
        tags.append(f'<meta name="description" content="{escape(description)}">')
    tags += [f'<meta property="{key}" content="{escape(value)}">' for key, value in properties.items()]
    tags += [
        f'<meta property="og:locale:alternate" content="{og_locale(code)}">'
        for code in languages
        if code != language
    ]
    return "\n".join(tags) + "\n"


def add_page_meta(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.Node | None
) -> None:
    """``html-page-context``: head tags, the edit link and the footer's runner."""
    if app.builder.format != "html":
        return
    context["metatags"] = context.get("metatags", "") + _head_tags(app, pagename, context, doctree)
    path = edit_path(app, pagename)
    repository = str(app.config.autograd_notes_repository).rstrip("/")
    branch = app.config.autograd_notes_branch
    context["autograd_edit_url"] = f"{repository}/edit/{branch}/{path}" if path and repository else None
    # the footer's copyright holder in the page's language: "2026, Autograd Notes maintainers"
    year, separator, holder = str(app.config.copyright).partition(", ")
    if separator and holder == "Autograd Notes maintainers":
        context["copyright"] = f"{year}, {_('Autograd Notes maintainers')}"
    info = runner_info()
    context["autograd_built_with"] = {
        "torch": info.torch_version,
        "runner": RUNNER_NAMES[info.device],
        "python": info.python,
    }


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the site's address, repository and branch, and the hooks that use them."""
    app.add_config_value("autograd_notes_site_url", DEFAULT_SITE_URL, "html", types=frozenset({str}))
    app.add_config_value("autograd_notes_repository", "", "html", types=frozenset({str}))
    app.add_config_value("autograd_notes_branch", "main", "html", types=frozenset({str}))
    app.connect("config-inited", set_site_addresses, priority=400)
    app.connect("html-page-context", add_page_meta)
    app.connect("doctree-resolved", absolute_links_on_not_found)
    app.setup_extension("autograd_notes.site.i18n.language_links")  # autograd_notes_languages
    return {"parallel_read_safe": True, "parallel_write_safe": True}
