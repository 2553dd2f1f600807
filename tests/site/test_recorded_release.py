"""A reader on a recorded release other than the pinned one: every download runs to its end.

The install line on every page brings the newest PyTorch the reader's pip
allows, often newer than the release the pages document. This test is that
reader: a fresh environment of the newest Python the package supports
(:data:`PYTHON`) with PyTorch :data:`OTHER` (a CUDA build, from the package
registry), NumPy, matplotlib, Jupyter's kernel and the site's own wheel, from
the built site.

* ``verify`` runs every English ``.py`` of the site's download-all archive:
  each holds or "differs as recorded for this release", exactly the examples
  whose checks the shipped release notes record that release doing
  otherwise; the run exits 0.
* Each of those examples' Russian notebook runs to its end in a real kernel
  and says, in Russian, what the page documents, what that release is
  recorded to do, and that the example goes on.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from _notebooks import run_notebook
from _site import Site
from _venvs import bare_environment, python_of
from packaging.version import Version

from autograd_notes._drift import STRICT_VARIABLE
from autograd_notes._reader_words import words
from autograd_notes._release_notes import NOTES, read_notes
from autograd_notes.records.exchange.verify import Verdict
from autograd_notes.records.format.status import Mark

OTHER = "2.14.1"
"""A recorded release that is not the pinned one, and the newest that every pip here may install."""
PYTHON = "3.13"
"""The newest Python the package supports (``pyproject.toml``'s classifiers)."""
KERNEL = "autograd-notes-other-release"
LANGUAGE = "ru"

pytestmark = [pytest.mark.xdist_group("test_recorded_release")]


def _run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=bare_environment(),
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )


ROOT = Path(__file__).resolve().parents[2]
NOTES_FILE = ROOT / "src" / "autograd_notes" / NOTES


def _differing(release: str) -> set[str]:
    """The examples whose checks the shipped release notes record ``release`` failing (another outcome).

    A check that holds in other words (``message differs``), or as the pinned release does in that
    build (``differs by build``), holds: ``verify`` says so.
    """
    notes = read_notes(NOTES_FILE.read_text(encoding="utf-8"))
    at = Version(release)
    return {
        Path(check["example"]).stem
        for check in notes["checks"]
        for run in check["releases"]
        if run["mark"] == Mark.OUTCOME and Version(run["first"]) <= at <= Version(run["last"])
    }


@pytest.fixture(scope="module")
def other_release(whole_site: Site, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh environment with PyTorch :data:`OTHER` and the site's wheel; yields its python.

    A CUDA build with its libraries takes about 5.5 GB: pip keeps no copy of the downloads
    (``--no-cache-dir``, about 3 GB more) and the environment is removed after the module.
    """
    folder = tmp_path_factory.mktemp("other-release") / "venv"
    created = _run(python_of(PYTHON), "-m", "venv", folder)
    assert created.returncode == 0, created.stderr[-3000:]
    python = folder / "bin" / "python"
    (wheel,) = (whole_site.html / "packages").glob("autograd_notes-*.whl")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-cache-dir"]
    installed = _run(*pip, f"torch=={OTHER}", "numpy", "matplotlib", "ipykernel", wheel)
    assert installed.returncode == 0, installed.stderr[-3000:]
    kernel = _run(python, "-m", "ipykernel", "install", "--prefix", folder, "--name", KERNEL)
    assert kernel.returncode == 0, kernel.stderr[-3000:]
    yield python
    shutil.rmtree(folder)


def test_the_release_is_recorded_and_not_the_pinned_one() -> None:
    notes = read_notes(NOTES_FILE.read_text(encoding="utf-8"))
    assert notes["pinned"] != OTHER
    assert OTHER in notes["releases"]
    assert _differing(OTHER), "nothing differs there: the test would say nothing"


def test_every_english_download_runs_and_only_recorded_differences_show(
    other_release: Path, whole_site: Site, tmp_path: Path
) -> None:
    (archive,) = (whole_site.html / "en" / "_downloads").rglob("examples_python.zip")
    result = _run(
        other_release, "-m", "autograd_notes", "verify", "--from", archive, "--device", "cpu", cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    verdicts: dict[str, str] = {}
    for line in result.stdout.splitlines():
        if line.startswith("[") and "]" in line and "  " in line:
            _count, rest = line.split("] ", 1)
            example = rest.split("  ", 1)[0]
            verdicts[Path(example).stem] = rest.rsplit(" s  ", 1)[1]
    gallery = {path.stem for path in (ROOT / "gallery").rglob("plot_*.py")}
    assert set(verdicts) == gallery, "every example ran"
    assert f"PyTorch {OTHER}" in result.stdout
    assert f"Python {PYTHON}." in result.stdout
    recorded = {name for name, verdict in verdicts.items() if verdict == Verdict.RECORDED}
    assert recorded == _differing(OTHER)
    assert {verdict for name, verdict in verdicts.items() if name not in recorded} == {str(Verdict.HOLDS)}


@pytest.mark.parametrize("example", sorted(_differing(OTHER)))
def test_a_notebook_goes_on_past_a_recorded_difference_in_its_language(
    other_release: Path, whole_site: Site, example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (found,) = (whole_site.html / LANGUAGE / "_downloads").rglob(f"{example}.ipynb")
    notebook = nbformat.read(found, as_version=4)
    monkeypatch.setenv("JUPYTER_PATH", str(other_release.parents[1] / "share" / "jupyter"))
    for name in ("PYTHONPATH", STRICT_VARIABLE):
        monkeypatch.delenv(name, raising=False)
    printed = run_notebook(notebook, KERNEL, tmp_path)  # raises CellExecutionError where a cell stops
    said = words(LANGUAGE)
    goes_on = said["goes_on"].format(variable=STRICT_VARIABLE)
    assert goes_on in printed, printed[-3000:]
    assert "BehaviourDrift" not in printed
    # what the page documents and what the release is recorded to do, before it goes on
    assert said["documented"].split("{", 1)[0] in printed
    assert said["lead"].split("{", 1)[0] in printed
