"""Sphinx configuration of Autograd Notes."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import tomllib

# -- Project -----------------------------------------------------------------
project = "Autograd Notes"
author = "Autograd Notes maintainers"
copyright = "2026, Autograd Notes maintainers"
version = release = importlib.metadata.version("autograd-notes")
language = "en"

# -- General -----------------------------------------------------------------
extensions = [
    # before sphinx_gallery: it must invalidate stale example caches first
    "autograd_notes.site.sphinxext",
    "sphinx_gallery.gen_gallery",
    "myst_nb",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "notfound.extension",
]
exclude_patterns = [
    "_build",
    "jupyter_execute",
    # sphinx-gallery's generated downloads and caches, which myst-nb would
    # otherwise read as documents (a second "examples/x" from x.ipynb)
    "examples/**.ipynb",
    "examples/**.py",
    "examples/**.zip",
    "examples/**.json",
    "examples/**.md5",
    "examples/**.pickle",
]
nitpicky = True
# intersphinx is not reachable offline: links to the PyTorch docs are plain URLs.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
suppress_warnings = ["config.cache"]

# -- sphinx-gallery ----------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../gallery"],
    "gallery_dirs": ["examples"],
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    # seeds, grad mode, anomaly mode, dtype, warnings-as-errors and the timeout,
    # before and after every example (named by string: the config pickles)
    "reset_modules": ("autograd_notes.records.capture.reset.reset_example",),
    "reset_modules_order": "both",
    # only what examples print is captured: a bare expression shows nothing
    "capture_repr": (),
    # matplotlib's, each figure marked with its smallest text (for the figure-size test)
    "image_scrapers": ("autograd_notes.site.examples.figure_scraper.scraper",),
    # every figure also at twice the resolution, for hi-dpi screens (srcset)
    "image_srcset": ["2x"],
    "download_all_examples": True,
    "remove_config_comments": True,
    "show_signature": False,
    # no timings on pages: they would change with every build
    "write_computation_times": False,
    "min_reported_time": float("inf"),
    "show_memory": False,
    "default_thumb_file": None,
    "line_numbers": False,
    "first_notebook_cell": None,
    "promote_jupyter_magic": False,
}

# -- myst-nb -----------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Executed once per runner and notebook version; the environment is rebuilt
# when the runner changes (autograd_notes_runner).
nb_execution_mode = "cache"
# autograd_notes.site.build.runner_key adds the runner key to this path: one execution
# per runner, shared by every language of a build
nb_execution_cache_path = "../build/jupyter_cache"
nb_execution_timeout = 120
# a failing cell is a warning naming the page, with the cell's traceback:
# under -W it fails the build with a readable reason
nb_execution_raise_on_error = False
nb_execution_show_tb = True
nb_merge_streams = True

# -- Languages ---------------------------------------------------------------
# One gettext catalog per page (docs/locale/<lang>/LC_MESSAGES/<page>.po),
# without source locations, so that catalogs change only when text does.
locale_dirs = ["locale/"]
gettext_compact = False
gettext_uuid = False
gettext_location = False
gettext_last_translator = "Autograd Notes maintainers"
gettext_language_team = "Autograd Notes maintainers"
autograd_notes_languages = {
    "en": "English",
    "ru": "Русский",
    "zh_CN": "简体中文",
    "pt_BR": "Português (Brasil)",
}

# -- HTML --------------------------------------------------------------------
html_theme = "furo"
templates_path = ["_templates"]  # furo's interface strings through gettext, the language switcher
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/search.html",
        "sidebar/languages.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}
html_title = "Autograd Notes"
html_favicon = "_static/favicon.svg"
# Chinese search: jieba keeps these terms whole (and indexes their parts), so
# a reader who types 计算图 finds the pages about the computation graph
html_search_options = {"dict": str(Path(__file__).parent / "_search" / "zh_terms.txt")}
# Math as MathML written at build time (autograd_notes.site.web.mathml): MathJax would
# come from a CDN, and the site works offline.
html_math_renderer = "mathml"
html_static_path: list[str] = []
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False

# -- Hosting -----------------------------------------------------------------
# Where the site is published: <site>/<language>/<page>.html. Canonical links,
# hreflang alternates, Open Graph, the sitemap and the 404 page's absolute
# links follow from it (autograd_notes.site.web.page_meta). CI sets it per host; the
# default is pyproject.toml's Documentation address, which the helper's drift
# messages link to as well.
_PROJECT = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
autograd_notes_site_url = os.environ.get(
    "AUTOGRAD_NOTES_SITE_URL", _PROJECT["project"]["urls"]["Documentation"]
)
autograd_notes_repository = "https://github.com/autograd-notes/autograd-notes"
autograd_notes_branch = "main"
# notfound_urls_prefix is set per language from the site address
notfound_no_urls_prefix = False

# -- Copy buttons ------------------------------------------------------------
# Code cells only: outputs and tracebacks are not for pasting. Prompts of
# console and doctest snippets are left behind, and so is what they print.
copybutton_selector = (
    "div:not(.sphx-glr-script-out):not(.output):not(.runner-tab-panel) > div.highlight > pre"
)
copybutton_prompt_text = r">>> |\.\.\. |\$ |In \[\d*\]: | {2,5}\.\.\.: "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True
