"""A tiny gallery built by the real sphinx-gallery and furo, without this project's extensions.

What the site reads of their generated output (:mod:`autograd_notes.site.upstream.outputs`)
is tested on this build: a test fails when sphinx-gallery or furo change a
format the site relies on. One section, one example of plain Python (no
PyTorch): the build takes a few seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

EXAMPLE = "01_x/plot_fixture.py"

# blocks: the docstring; a text cell; code that prints (a blank line inside its
# output); text; code that prints nothing; code that prints one line
SCRIPT = '''\
"""
.. _fixture:

Fixture
=======

What the cells do.
"""

# %%
# A first heading
# ---------------
values = [1.0, 1.0]

print(values)
print()
print("after a blank line")

# %%
# Nothing printed next.
doubled = [2 * v for v in values]

# %%
print(type(doubled).__name__)
'''

# the lines each code cell prints, by the cell's first line in SCRIPT
OUTPUTS = {13: ["[1.0, 1.0]", "", "after a blank line"], 21: [], 24: ["list"]}

CONF = """\
from pathlib import Path

from autograd_notes.site.upstream.outputs import FURO_NAVIGATION_TREE

project = "Tiny"
extensions = ["sphinx_gallery.gen_gallery"]
sphinx_gallery_conf = {
    "examples_dirs": ["../gallery"],
    "gallery_dirs": ["examples"],
    "filename_pattern": r"/plot_",
    # as docs/conf.py sets them where they change the generated reST
    "capture_repr": (),
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_signature": False,
    "write_computation_times": False,
    "min_reported_time": float("inf"),
    "show_memory": False,
    "line_numbers": False,
}
html_theme = "furo"


def _keep_navigation_tree(app, pagename, templatename, context, doctree):
    # what furo put in the context, where theme_strings reads it (after furo, priority 500)
    tree = context.get(FURO_NAVIGATION_TREE)
    if isinstance(tree, str):
        target = Path(app.outdir, "_navigation", pagename + ".html")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(tree, encoding="utf-8")


def setup(app):
    app.connect("html-page-context", _keep_navigation_tree, priority=900)
"""

INDEX = """\
Tiny
====

.. toctree::
   :caption: Read

   examples/index
"""


@dataclass(frozen=True)
class TinyGallery:
    """The folders of a tiny gallery build."""

    project: Path

    @property
    def script(self) -> Path:
        return self.project / "gallery" / EXAMPLE

    @property
    def generated(self) -> Path:
        """The folder sphinx-gallery generated the reST into."""
        return self.project / "docs" / "examples"

    @property
    def html(self) -> Path:
        return self.project / "build" / "html"

    @property
    def doctrees(self) -> Path:
        return self.project / "build" / "doctrees"

    def navigation_tree(self, page: str) -> str:
        """furo's ``furo_navigation_tree`` of a page, as the site's extensions see it."""
        return (self.html / "_navigation" / f"{page}.html").read_text(encoding="utf-8")


def build_tiny_gallery(project: Path, *, conf: str = "") -> TinyGallery:
    """Write the tiny project into ``project`` and build it with sphinx-build (HTML); fail on failure.

    ``conf`` is added to the end of its ``conf.py``.
    """
    docs, gallery = project / "docs", project / "gallery"
    (gallery / "01_x").mkdir(parents=True)
    docs.mkdir(exist_ok=True)
    (docs / "conf.py").write_text(CONF + conf, encoding="utf-8")
    (docs / "index.rst").write_text(INDEX, encoding="utf-8")
    (gallery / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n", encoding="utf-8")
    (gallery / "01_x" / "GALLERY_HEADER.rst").write_text("Section\n-------\n", encoding="utf-8")
    (gallery / EXAMPLE).write_text(textwrap.dedent(SCRIPT), encoding="utf-8")
    tiny = TinyGallery(project)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-q",
        "-b",
        "html",
        "-d",
        str(tiny.doctrees),
        "docs",
        str(tiny.html),
    ]
    result = subprocess.run(
        command,
        cwd=project,
        env={**os.environ, "PYTHONWARNINGS": ""},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return tiny
