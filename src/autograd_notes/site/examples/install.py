"""How a reader gets the helper package: the wheel the site serves, and the line that says so.

Every example imports :mod:`autograd_notes`, so a reader who downloads one
needs it too. Until the package is on PyPI (and for the exact version a page
was built with afterwards), every build publishes the wheel it was built
with beside the languages, under a stable address:

* ``<site>/packages/autograd_notes-<version>-py3-none-any.whl``, built from
  the project by :func:`publish_wheel` (hatchling, no build isolation: the
  backend is locked with the rest of the tool chain);
* ``<site>/packages/index.html``, a page of links that ``pip install
  --find-links`` reads (with the wheel's SHA-256, which pip checks).

:func:`install_command` is the one line a reader types, the same on every
page (``.. install-line::``), in the README and in the downloads
(:mod:`autograd_notes.site.examples.downloads`): with ``--find-links`` pip takes the
newest of PyPI's releases and the site's wheel, and with ``--upgrade`` it replaces a
helper installed before. The wheel's version grows with every change of the helper
(:mod:`autograd_notes._version`), so a reader who installed it once gets the newer one.
"""

from __future__ import annotations

import hashlib
import html
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..web.nodes import untranslatable
from ..web.sitemap import site_root

__all__ = [
    "DISTRIBUTION",
    "PACKAGES",
    "InstallLineDirective",
    "install_command",
    "packages_address",
    "publish_wheel",
]

DISTRIBUTION = "autograd-notes"
PACKAGES = "packages"  # the folder of the site that serves the wheel


def packages_address(site_url: str) -> str:
    """The stable address of the site's wheel: the find-links page ``<site>/packages/``."""
    return f"{site_root(site_url)}{PACKAGES}/"


def install_command(site_url: str) -> str:
    """``pip install --upgrade autograd-notes --find-links <site>/packages/``: what a reader types.

    ``--upgrade``: a reader who installed the helper for an earlier page gets this build's
    (pip leaves an installed package alone otherwise); PyTorch is upgraded only if the
    helper needs a newer one (pip's default ``only-if-needed``).
    """
    return f"pip install --upgrade {DISTRIBUTION} --find-links {packages_address(site_url)}"


class WheelError(RuntimeError):
    """The project's wheel could not be built: the message has pip's output."""


def build_wheel(project: Path, into: Path) -> Path:
    """Build the wheel of ``project`` (a folder with ``pyproject.toml``) into ``into``; return it."""
    into.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    result = subprocess.run(
        [*command, "--no-index", "--wheel-dir", str(into), str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    wheels = sorted(into.glob("*.whl"))
    if result.returncode or len(wheels) != 1:
        raise WheelError(
            f"could not build the wheel of {project.name}/ (status {result.returncode}):\n"
            f"{result.stdout}{result.stderr}"
        )
    return wheels[0]


def publish_wheel(project: Path, site: Path) -> Path:
    """Build the project's wheel into ``site/packages/`` with its find-links page; return the wheel."""
    folder = site / PACKAGES
    wheel = build_wheel(project, folder)  # the site is built into a fresh folder: its only wheel
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    name = html.escape(wheel.name)
    (folder / "index.html").write_text(
        f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="robots" content="noindex">
  <title>Autograd Notes: the helper package</title>
</head>
<body>
  <h1>{DISTRIBUTION}</h1>
  <p>The helper package the examples import, as this build of the site used it.
  Install it, or update it, with <code>pip install --upgrade {DISTRIBUTION} --find-links</code>
  and the address of this page.</p>
  <ul>
    <li><a href="{name}#sha256={digest}">{name}</a></li>
  </ul>
</body>
</html>
""",
        encoding="utf-8",
    )
    return wheel


class InstallLineDirective(SphinxDirective):
    """``.. install-line::`` (``:scope: example`` or ``gallery``): how to run the examples at home.

    A sentence in the reader's language (the interface catalog,
    ``sphinx.po``), :func:`install_command` as a code block that the copy
    button copies whole, and what to do next. The extension
    inserts it above the downloads of every example page; the gallery's
    header names it with ``:scope: gallery``.
    """

    option_spec = {"scope": lambda value: directives.choice(value, ("example", "gallery"))}  # noqa: RUF012

    def run(self) -> list[nodes.Node]:
        """Return a sentence, the command as a code block (with its copy button), and what comes next."""
        command = install_command(self.config.autograd_notes_site_url)
        if self.options.get("scope", "example") == "gallery":
            before = _(
                "To run the examples on your own machine, install the helper package they import "
                "(PyTorch comes with it if you have none):"
            )
            after = _(
                "Each page's script or notebook then runs as it is and tells you where your PyTorch "
                "behaves differently."
            )
        else:
            before = _(
                "To run this example yourself, install the helper package it imports "
                "(PyTorch comes with it if you have none):"
            )
            after = _(
                "Then download its script or notebook below: it checks every behaviour this page "
                "documents on your PyTorch."
            )
        box = nodes.container(classes=["install-line"])
        box += nodes.paragraph("", str(before))
        block = nodes.literal_block(command, command, language="bash", classes=["install-command"])
        box += block
        box += nodes.paragraph("", str(after))
        return untranslatable([box])
