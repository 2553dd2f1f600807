"""A reader with only the website: downloads run in a fresh environment, as the page says.

The whole site is built (``whole_site``, as ``nox -s docs`` builds it) and
served on loopback. A fresh virtual environment gets PyTorch (the pinned CPU
build) and ipykernel, the kernel a reader's Jupyter runs notebooks in, and
nothing of this project. Then, as a reader would:

* a downloaded ``.py`` run without the helper package (nor numpy nor
  matplotlib) says what is missing and how to install it (the page's own
  command), in the page's language, with no traceback: in every language,
  for a script that imports PyTorch first and one that imports matplotlib
  first;
* the package is installed the way every page says, with ``pip install
  --upgrade autograd-notes --find-links <site>/packages/``, from the served site,
  over an older helper installed before (the release's number): the site's wheel,
  numbered by its commit, replaces it;
* in every language, the example's ``.py`` and ``.ipynb`` from
  ``_downloads`` run as they are (the notebook through nbclient) and print
  the same checked outcomes (checked values, expected errors) and folded
  PyTorch frames as the page, in its language; a drift says so in it too.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from _browser import QuietServer
from _html import read_page
from _notebooks import run_notebook
from _site import LANGUAGES, ROOT, Site, copy_project
from _venvs import NOT_OURS, venv_on
from nbclient import NotebookClient
from packaging.version import Version

from autograd_notes._download_page import page_in
from autograd_notes._reader_words import words
from autograd_notes._version import RELEASE
from autograd_notes.site.build.sitebuild import site_url_of
from autograd_notes.site.examples.downloads import third_party_imports
from autograd_notes.site.examples.install import PACKAGES, build_wheel, install_command
from autograd_notes.site.i18n.catalogs import translations

# its module-scoped fixtures build once, in one worker
pytestmark = [pytest.mark.xdist_group("test_reader")]

# checked values, an expected error, a graph drawn, references to a source: and no CUDA
# record in the test site, so every output block on its page is this build's
EXAMPLE = "04_detach_vs_data/plot_data_vs_detach"
# an example whose first import is matplotlib's, not PyTorch's
MATPLOTLIB_FIRST = "09_hooks/plot_module_backward_hooks"
# what a download says when a module it imports is missing (site/example_downloads.py)
MISSING = "This example imports {modules}; not installed here: {missing}. Install them with:"
KERNEL = "autograd-notes-reader"
# what a reader's environment must not get from installing the helper package
SITE_ONLY = {"sphinx", "sphinx-gallery", "myst-nb", "jieba", "furo", "docutils", "babel"}
# a frame of a notebook's cell, as IPython names it, and the line of the cell it quotes
CELL_FRAME = re.compile(r"^\s*Cell In\[(\d+)\], line (\d+), in \S+\n    (.*)$", re.M)
# a checked value ("label: value") or an expected error or warning ("RuntimeError: ...")
OUTCOME = re.compile(r"^(?:[A-Za-z_][\w.\[\]]*: \S.*|\w+(?:Error|Warning|Exception): .*)$")


@pytest.fixture(scope="module")
def served(whole_site: Site) -> Iterator[str]:
    """The built site on loopback, at its root: ``http://127.0.0.1:<port>/``."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(whole_site.html))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    httpd = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name not in NOT_OURS}
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _download(whole_site: Site, language: str, suffix: str, example: str = EXAMPLE) -> Path:
    (found,) = (whole_site.html / language / "_downloads").rglob(f"{Path(example).name}{suffix}")
    return found


def _missing_message(language: str, script: str, command: str) -> str:
    """What a download in ``language`` prints without the helpers, numpy and matplotlib (torch installed)."""
    modules, _at = third_party_imports(script)
    missing = [module for module in modules if module != "torch"]
    catalog = ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "sphinx.po"
    template = translations(catalog).get(MISSING, MISSING) if language != "en" else MISSING
    return f"{template.format(modules=', '.join(modules), missing=', '.join(missing))}\n    {command}\n"


@pytest.fixture(scope="module")
def reader(torch_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with PyTorch (pinned, shared install) and ipykernel only; returns its python."""
    folder = tmp_path_factory.mktemp("reader") / "venv"
    python = venv_on(torch_site, folder)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    installed = _run(*pip, "ipykernel")
    assert installed.returncode == 0, installed.stderr[-3000:]
    kernel = _run(python, "-m", "ipykernel", "install", "--prefix", folder, "--name", KERNEL)
    assert kernel.returncode == 0, kernel.stderr[-3000:]
    return python


@pytest.fixture(scope="module")
def installed(reader: Path, whole_site: Site, served: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader's environment once a download was run without the package, then the package installed."""
    # 1. a reader runs downloads before installing anything of ours: in every language, one that
    # imports PyTorch first and one that imports matplotlib first (neither is installed)
    site_command = install_command(site_url_of(ROOT / "docs"))
    folder = tmp_path_factory.mktemp("before")
    for language in LANGUAGES:
        for example in (EXAMPLE, MATPLOTLIB_FIRST):
            script = folder / language / f"{Path(example).name}.py"
            script.parent.mkdir(exist_ok=True)
            script.write_bytes(_download(whole_site, language, ".py", example).read_bytes())
            text = script.read_text(encoding="utf-8")
            assert third_party_imports(text)[0][0] == ("torch" if example == EXAMPLE else "matplotlib")
            before = _run(reader, script, cwd=script.parent)
            assert before.returncode == 1, before.stdout + before.stderr
            assert before.stderr == _missing_message(language, text, site_command), (language, example)
    # 2. an older helper is installed already (the release, numbered without a commit's time), as
    # for a reader who ran another page's download before: the page's command must replace it
    older = build_wheel(copy_project(tmp_path_factory.mktemp("older"), gallery=False), folder / "older")
    assert older.name == f"autograd_notes-{RELEASE}-py3-none-any.whl"
    result = _run(reader, "-m", "pip", "install", "--quiet", "--no-deps", older)
    assert result.returncode == 0, result.stdout + result.stderr
    # 3. the reader types the command the pages show, against the served site
    command = install_command(served).split()
    assert command[:3] == ["pip", "install", "--upgrade"]
    result = _run(reader, "-m", *command, "--quiet", "--disable-pip-version-check")
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = (whole_site.html / PACKAGES).glob("autograd_notes-*-py3-none-any.whl")
    served_version = wheel.name.split("-")[1]
    assert Version(served_version) > Version(RELEASE), wheel.name  # the site is built from a checkout
    shown = _run(reader, "-m", "pip", "show", "autograd-notes")
    assert f"\nVersion: {served_version}\n" in shown.stdout, shown.stdout
    return reader


def test_the_site_serves_the_wheel_on_a_page_pip_reads(whole_site: Site) -> None:
    folder = whole_site.html / PACKAGES
    (wheel,) = folder.glob("autograd_notes-*-py3-none-any.whl")
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert f'href="{wheel.name}#sha256=' in page


def test_installing_the_package_pulls_nothing_of_the_site(installed: Path) -> None:
    listed = _run(installed, "-m", "pip", "list", "--format=json")
    names = {entry["name"].lower() for entry in json.loads(listed.stdout)}
    assert "autograd-notes" in names
    assert "torch" in names
    assert not names & SITE_ONLY, sorted(names & SITE_ONLY)


def test_helpers_and_records_import_without_sphinx(installed: Path, tmp_path: Path) -> None:
    probe = (
        "import json, sys, autograd_notes, autograd_notes.records.cli; print(json.dumps(list(sys.modules)))"
    )
    result = _run(installed, "-c", probe, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    modules = set(json.loads(result.stdout))
    assert "autograd_notes.records.format.record" in modules
    assert not {"sphinx", "sphinx_gallery", "docutils", "myst_nb"} & modules


def _outcomes(text: str) -> list[str]:
    return [line for line in (" ".join(raw.split()) for raw in text.splitlines()) if OUTCOME.match(line)]


def _page_outputs(whole_site: Site, language: str) -> str:
    """The text of every output block of the example's page (this build's runner)."""
    page = (whole_site.html / language / "examples" / f"{EXAMPLE}.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="[^"]*runner-output[^"]*"[^>]*>(.*?)</div>\s*</div>', page, flags=re.S)
    assert blocks, "no output blocks on the page"
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks)


def _folded_frames(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if re.match(r"^\s*\[.*PyTorch.*\]$", line)]


def _same_outcomes(printed: str, page: str) -> None:
    ran, shown = _outcomes(printed), _outcomes(page)
    assert len(shown) >= 3, shown  # the page checks values and expects an error
    assert ran == shown
    # the folded frames of a traceback, in the page's language as the page shows them
    assert _folded_frames(printed) == _folded_frames(page)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_downloaded_script_runs_as_the_page_says(
    installed: Path, whole_site: Site, language: str, tmp_path: Path
) -> None:
    script = tmp_path / f"{Path(EXAMPLE).name}.py"
    script.write_bytes(_download(whole_site, language, ".py").read_bytes())
    result = _run(installed, script, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    _same_outcomes(result.stdout, _page_outputs(whole_site, language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_drift_in_a_download_is_explained_in_its_language(
    installed: Path, whole_site: Site, language: str, tmp_path: Path
) -> None:
    script = tmp_path / f"{Path(EXAMPLE).name}.py"
    downloaded = _download(whole_site, language, ".py").read_text(encoding="utf-8")
    # the reader's PyTorch gives another value than the page documents
    script.write_text(f"{downloaded}\ncheck(1.0, 2.0, label='a value')\n", encoding="utf-8")
    result = _run(installed, script, cwd=tmp_path)
    assert result.returncode == 1
    said = words(language)
    # the explanation leads the message, in the page's language
    lead = re.escape(said["lead"]).replace(r"\{torch\}", ".+").replace(r"\{pinned\}", ".+")
    lead = lead.replace(r"\{location\}", re.escape(f"{script.name}:") + r"\d+")
    explained = [line for line in result.stderr.splitlines() if "BehaviourDrift: " in line]
    assert len(explained) == 1, result.stderr[-3000:]
    assert re.fullmatch(lead, explained[0].split("BehaviourDrift: ", 1)[1]), explained[0]
    assert said["documented"].format(documented="a value: 2.0") in result.stderr
    named = page_in(downloaded.splitlines()[0])
    assert named is not None
    page = named.address
    assert page.endswith(f"/{language}/examples/{EXAMPLE}.html")
    assert f"{page}#across-pytorch-releases" in result.stderr


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_downloaded_notebook_runs_as_the_page_says(
    installed: Path, whole_site: Site, language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = nbformat.read(_download(whole_site, language, ".ipynb"), as_version=4)
    first = notebook.cells[0]
    assert first.cell_type == "code"
    assert f"%{install_command(site_url_of(ROOT / 'docs'))}" in first.source
    markdown = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "`source_" not in markdown  # references are links named by title, not bare labels
    assert "sources.html#source-" in markdown
    monkeypatch.setenv("JUPYTER_PATH", str(installed.parents[1] / "share" / "jupyter"))
    printed = run_notebook(notebook, KERNEL, tmp_path)
    _same_outcomes(printed, _page_outputs(whole_site, language))
    # a traceback names its cell as IPython does, and its line is that cell's line it quotes
    frames = CELL_FRAME.findall(printed)
    assert frames, printed[:2000]
    assert "<cell>" not in printed
    sources = {
        cell.execution_count: cell.source.splitlines() for cell in notebook.cells if cell.cell_type == "code"
    }
    for count, line, quoted in frames:
        assert sources[int(count)][int(line) - 1].strip() == quoted.strip()


NO_GRAD = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"


@pytest.mark.parametrize("language", LANGUAGES)
def test_explain_runs_from_the_wheel_in_every_language(
    installed: Path, whole_site: Site, language: str, tmp_path: Path
) -> None:
    """The first page ``explain`` names is a page of the built site, titled as that page is."""
    result = _run(installed, "-m", "autograd_notes", "explain", "--language", language, NO_GRAD, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    title, address = (line.strip() for line in result.stdout.splitlines()[1:3])
    path = address.split(f"/{language}/", 1)[1].split("#")[0]
    page = read_page(whole_site.html / language, path)
    assert title == f"1. {page.h1}"
    assert page.article.by_id(address.split("#")[1]) is not None  # the cell it names
    unrelated = _run(installed, "-m", "autograd_notes", "explain", "--language", language, "KeyError: 'x'")
    assert unrelated.returncode == 1
    assert unrelated.stdout.strip().endswith(f"/{language}/errors.html")


def test_the_notebook_extension_adds_the_page_in_a_real_kernel(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext autograd_notes"),
        nbformat.v4.new_code_cell("import torch\n(torch.ones(2) * 2).sum().backward()"),
        nbformat.v4.new_code_cell("{}['missing']"),
        nbformat.v4.new_code_cell("%unload_ext autograd_notes"),
        nbformat.v4.new_code_cell("(torch.ones(2) * 2).sum().backward()"),
    ]
    monkeypatch.setenv("JUPYTER_PATH", str(installed.parents[1] / "share" / "jupyter"))
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    client = NotebookClient(
        notebook,
        kernel_name=KERNEL,
        timeout=600,
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = [cell.outputs for cell in notebook.cells]
    # the error as IPython shows it, unchanged, then the line, in the locale's language
    error, line = outputs[1]
    assert (error.output_type, error.ename) == ("error", "RuntimeError")
    assert error.evalue == NO_GRAD.removeprefix("RuntimeError: ")
    assert line.name == "stderr"
    assert line.text.startswith("Autograd Notes объясняет эту ошибку: ")
    assert "/ru/examples/" in line.text
    assert [o.output_type for o in outputs[2]] == ["error"]  # no page explains a KeyError: nothing added
    assert [o.output_type for o in outputs[4]] == ["error"]  # unloaded: as before


def test_readme_says_how_to_install() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert install_command(site_url_of(ROOT / "docs")) in readme
