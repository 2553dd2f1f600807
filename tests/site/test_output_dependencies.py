"""No page depends on a file the build writes (myst-nb's notebook outputs): a no-op rebuild reads none."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from myst_nb.sphinx_ext import OUTPUT_FOLDER

from autograd_notes.site.build.output_dependencies import NOTEBOOK_OUTPUTS, drop_output_dependencies


def test_the_folder_is_myst_nbs() -> None:
    assert NOTEBOOK_OUTPUTS == OUTPUT_FOLDER


def test_only_the_dependencies_inside_the_output_folder_go(tmp_path: Path) -> None:
    source = tmp_path / "docs"
    outputs = tmp_path / "build" / "html.next" / NOTEBOOK_OUTPUTS
    env: Any = SimpleNamespace(
        srcdir=source,
        dependencies={
            "concepts/notebook": {str(outputs / "a1.png"), "../records/cpu/x.json"},
            "examples/plot_x": {"../records/cpu/x.json", str(tmp_path / "build" / "html.next" / "other.png")},
        },
    )
    assert drop_output_dependencies(cast("Any", env), outputs.resolve()) == 1
    assert env.dependencies == {
        "concepts/notebook": {"../records/cpu/x.json"},
        "examples/plot_x": {"../records/cpu/x.json", str(tmp_path / "build" / "html.next" / "other.png")},
    }
