"""No page depends on a file the build writes: a rebuild with nothing changed reads no page again.

myst-nb notes the images it writes for a notebook's outputs (under
``<outdir>/../jupyter_execute``) as dependencies of the notebook's page. The
site build writes into a staging folder (``html.next``) that it then swaps in
(:mod:`.sitebuild`): those files are gone by the next build, and Sphinx reads
a page again whenever a dependency is missing, so the concepts notebook was
read again in every language on every build. A page's outputs come from its
source and its cached execution, which Sphinx and myst-nb already follow:
the dependencies inside myst-nb's output folder are dropped once every page
is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

__all__ = ["NOTEBOOK_OUTPUTS", "drop_output_dependencies", "setup"]

NOTEBOOK_OUTPUTS = "jupyter_execute"
"""Where myst-nb writes a notebook's output files, beside the builder's output folder
(``myst_nb.sphinx_ext.OUTPUT_FOLDER``; tests/site check the two agree)."""


def drop_output_dependencies(env: BuildEnvironment, output: Path) -> int:
    """Remove every dependency inside ``output`` from every page; how many were removed."""
    removed = 0
    for docname, dependencies in env.dependencies.items():
        kept = {d for d in dependencies if not Path(env.srcdir, d).resolve().is_relative_to(output)}
        removed += len(dependencies) - len(kept)
        env.dependencies[docname] = kept
    return removed


def _drop(app: Sphinx, env: BuildEnvironment) -> list[str]:
    drop_output_dependencies(env, Path(app.outdir).parent.joinpath(NOTEBOOK_OUTPUTS).resolve())
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    """Drop the output folders' files from the pages' dependencies once every page is read."""
    app.connect("env-updated", _drop)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
