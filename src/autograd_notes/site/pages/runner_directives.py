"""The recorded runners on the pages: the directives, and their place in every example page.

Every generated example page gets a ``runner-summary`` at its top
(:mod:`autograd_notes.site.pages.runner_summary`), a ``runner-outputs``
directive in place of each cell's output
(:mod:`autograd_notes.site.pages.runner_outputs`): outputs of the other runners'
records appear beside this build's where they differ; a ``release-timeline``
section (:mod:`autograd_notes.site.pages.release_timeline`) and an ``install-line``
(:mod:`autograd_notes.site.examples.install`). ``runner-info`` is the runner that built
the site; ``runner-matrix`` (:mod:`autograd_notes.site.pages.runner_matrix`) every
example × every runner, with this build's drift. With
``autograd_notes_require_records``, an example with no record on this build's
runner fails the build (under ``-W``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from ..._device import runner_info
from ...records.capture.limits import OutputLimitError, check_output
from ..examples.install import InstallLineDirective
from ..examples.output_lexer import OutputLexer
from ..upstream.gallery_conf import gallery_folders
from ..upstream.gallery_rst import (
    changed_directive,
    code_cells,
    install_directive,
    summary_directive,
    timeline_directive,
    wrap_outputs,
)
from ..web.nodes import make_table, untranslatable
from .runner_matrix import RunnerMatrixDirective
from .runner_outputs import RunnerOutputsDirective
from .runner_summary import RunnerSummaryDirective

__all__ = ["DIRECTIVES", "RunnerInfoDirective", "setup"]

DIRECTIVES: dict[str, type[SphinxDirective]] = {
    "runner-outputs": RunnerOutputsDirective,
    "runner-summary": RunnerSummaryDirective,
    "runner-matrix": RunnerMatrixDirective,
}


def _gallery_example(app: Sphinx, docname: str) -> str | None:
    """``<section>/plot_x.py`` when ``docname`` is a generated example page."""
    for gallery in gallery_folders(app.config, app.srcdir):
        rest = docname.removeprefix(gallery.prefix + "/")
        if rest != docname and Path(rest).name.startswith("plot_") and "/" in rest:
            return rest + ".py"
    return None


def _check_output_size(app: Sphinx, docname: str, source: list[str]) -> None:
    """Stop the build when an example page holds more output than an example may print."""
    for gallery in gallery_folders(app.config, app.srcdir):
        if docname.startswith(gallery.prefix + "/") and Path(docname).name.startswith("plot_"):
            sizes = [
                (cell.first_line, sum(len(line) + 1 for line in cell.output))
                for cell in code_cells(source[0])
            ]
            try:
                check_output(docname, sizes)
            except OutputLimitError as error:
                raise ExtensionError(str(error)) from None


def _add_runner_directives(app: Sphinx, docname: str, source: list[str]) -> None:
    _check_output_size(app, docname, source)
    example = _gallery_example(app, docname)
    if example is not None:
        page = summary_directive(changed_directive(wrap_outputs(source[0], example), example), example)
        source[0] = install_directive(timeline_directive(page, example))


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


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives and insert them into the example pages as they are read."""
    # an example with no record on this build's runner fails the build (under -W)
    app.add_config_value("autograd_notes_require_records", True, "env", types=frozenset({bool}))
    app.setup_extension("autograd_notes.site.build.runner_key")  # the records folder
    app.setup_extension("autograd_notes.site.web.page_meta")  # the site's address, for install-line
    app.setup_extension("autograd_notes.site.pages.release_timeline")
    app.setup_extension("autograd_notes.site.web.html_nodes")  # the runner pages' details and tabs
    app.connect("source-read", _add_runner_directives)
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.add_directive("runner-info", RunnerInfoDirective)
    app.add_directive("install-line", InstallLineDirective)
    app.add_lexer("autograd-output", OutputLexer)  # the outputs' show_state tables
    return {"parallel_read_safe": True, "parallel_write_safe": True}
