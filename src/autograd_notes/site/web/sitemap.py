"""The site-wide files written once all languages are built: sitemap, robots.txt, root 404.

``sitemap.xml`` lists every page of every language, each with its
``xhtml:link`` alternates in the other languages (and ``x-default``, English),
as search engines expect of a multilingual site. Pages that are not content
(search, the general index, the 404 page) are left out.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from xml.sax.saxutils import quoteattr

__all__ = [
    "DEFAULT_SITE_URL",
    "content_pages",
    "hreflang",
    "page_address",
    "site_root",
    "write_robots",
    "write_root_not_found",
    "write_sitemap",
]

DEFAULT_SITE_URL = "https://example.org/"

NOT_CONTENT = {"search.html", "genindex.html", "404.html", "py-modindex.html"}
TECHNICAL_FOLDERS = {"_static", "_images", "_downloads", "_sources", "jupyter_execute"}


def content_pages(language_dir: Path) -> list[str]:
    """The content pages of one language's build, as sorted ``a/b.html`` paths."""
    pages = []
    for page in language_dir.rglob("*.html"):
        relative = page.relative_to(language_dir)
        if relative.parts[0] in TECHNICAL_FOLDERS or relative.as_posix() in NOT_CONTENT:
            continue
        pages.append(relative.as_posix())
    return sorted(pages)


def hreflang(code: str) -> str:
    """The BCP 47 tag of a Sphinx language code: ``zh_CN`` -> ``zh-CN``."""
    return code.replace("_", "-")


def site_root(site_url: str) -> str:
    """The site's address with exactly one trailing slash."""
    return site_url.rstrip("/") + "/"


def page_address(site_url: str, language: str, page: str) -> str:
    """Where ``page`` (``a/b.html``) of ``language`` is published."""
    return f"{site_root(site_url)}{language}/{page}"


def write_sitemap(out: Path, site_url: str, languages: list[str]) -> int:
    """Write ``out/sitemap.xml`` for the languages built under ``out``; return the number of URLs."""
    pages_of = {code: set(content_pages(out / code)) for code in languages if (out / code).is_dir()}
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    count = 0
    for code, pages in pages_of.items():
        for page in sorted(pages):
            lines.append("  <url>")
            lines.append(f"    <loc>{page_address(site_url, code, page)}</loc>")
            alternates = [
                (other, page_address(site_url, other, page)) for other in pages_of if page in pages_of[other]
            ]
            if "en" in pages_of and page in pages_of["en"]:
                alternates.append(("x-default", page_address(site_url, "en", page)))
            for other, url in alternates:
                tag = other if other == "x-default" else hreflang(other)
                lines.append(
                    f'    <xhtml:link rel="alternate" hreflang={quoteattr(tag)} href={quoteattr(url)}/>'
                )
            lines.append("  </url>")
            count += 1
    lines.append("</urlset>")
    (out / "sitemap.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def write_robots(out: Path, site_url: str) -> None:
    """``out/robots.txt``: everything may be crawled; where the sitemap is."""
    sitemap = site_root(site_url) + "sitemap.xml"
    (out / "robots.txt").write_text(f"User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n", encoding="utf-8")


def write_root_not_found(out: Path, default_language: str = "en") -> bool:
    """Copy the default language's 404 page to ``out/404.html`` (what static hosts serve)."""
    page = out / default_language / "404.html"
    if not page.exists():
        return False
    shutil.copy2(page, out / "404.html")
    return True
