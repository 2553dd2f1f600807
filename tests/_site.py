"""Build a copy of the site (or a fixture site) in a temporary folder, as CI would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograd_notes.site.build.sitebuild import languages_of
from autograd_notes.site.examples.downloads import EARLY_STOP

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = list(languages_of(ROOT / "docs"))
"""The site's languages, English first, as ``docs/conf.py`` names them: the one list the tests use."""
TRANSLATIONS = LANGUAGES[1:]
"""The languages other than English."""
BUILDERS = frozenset(
    {
        "sphinx_build",
        "extract_messages",
        "build_site",
        "build_whole_site",
        "SphinxTestApp",
        "torch_only",
        "venv_on",
    }
)
"""What builds a site or an environment: a test that calls one, or a fixture that does, is marked
``build`` at collection (``conftest.builds``)."""


@dataclass
class Build:
    """The result of one ``sphinx-build`` run."""

    returncode: int
    output: str
    html: Path

    def page(self, name: str) -> str:
        return (self.html / name).read_text(encoding="utf-8")


GPU_RELEASE_RECORDS = ("cuda", "mps", "xpu")
"""The folders of ``records/releases/<release>/`` that a copy leaves out unless asked (``gpu_records``)."""


def is_gpu_release_record(path: Path) -> bool:
    """Whether ``path`` (relative to ``records/``) is in a GPU runner's release records, or is one."""
    parts = path.parts
    return len(parts) > 2 and parts[0] == "releases" and parts[2] in GPU_RELEASE_RECORDS


def copy_project(dest: Path, *, gallery: bool = True, gpu_records: bool = False) -> Path:
    """Copy what a build needs (docs, gallery and its records, the package) to ``dest``; return it.

    The GPU runners' release records (``records/releases/<release>/cuda``, first taken on an H200)
    stay behind unless ``gpu_records``: the tests' sites hold the synthetic GPU records they build
    on, so that what a page shows is exactly what a test put there; ``tests/records/test_gpu_records.py``
    reads the real ones.
    """
    caches = shutil.ignore_patterns("__pycache__", "_build", "*.mo")

    def records_ignore(folder: str, names: list[str]) -> set[str]:
        if gpu_records:
            return set()
        here = Path(folder).relative_to(ROOT / "records")
        return {name for name in names if is_gpu_release_record(here / name)}

    def ignore(folder: str, names: list[str]) -> set[str]:
        # what sphinx-gallery and myst-nb generate in docs/ itself (not docs/locale/*/examples)
        generated = {"examples", "jupyter_execute"} if Path(folder) == ROOT / "docs" else set()
        return set(caches(folder, names)) | (generated & set(names))

    shutil.copytree(ROOT / "docs", dest / "docs", ignore=ignore)
    if gallery:
        shutil.copytree(ROOT / "gallery", dest / "gallery", ignore=caches)
        shutil.copytree(ROOT / "records", dest / "records", ignore=records_ignore)
    # the project itself: the site build publishes its wheel
    shutil.copytree(ROOT / "src", dest / "src", ignore=caches)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


# The pages of docs/ a small site keeps: they read the records of whatever examples it has,
# and name none of the others.
SMALL_SITE_PAGES = ("runners", "errors", "timeline")


def small_site(dest: Path, examples: list[str], *, pages: tuple[str, ...] = SMALL_SITE_PAGES) -> Path:
    """A copy of the project with only ``examples`` (``"05_inplace/plot_x.py"``) and ``pages`` of docs/.

    The real conf.py, catalogs, templates and extension, the examples' own
    section headers and records (every runner and release, GPU releases' left out), and an index
    whose table of contents lists the gallery and ``pages``: a site that
    builds in seconds per language and behaves as the real one does, for the
    tests that change something and build again.
    """
    copy_project(dest, gallery=False)
    docs = dest / "docs"
    for page in [*docs.glob("*.md"), *docs.glob("concepts/*.md")]:
        if page.relative_to(docs).with_suffix("").as_posix() not in pages:
            page.unlink()
    toctree = "\n".join(["examples/index", *pages, "left_out"])
    (docs / "index.md").write_text(f"# Small site\n\n```{{toctree}}\n{toctree}\n```\n", encoding="utf-8")
    # the labels of what was left out, which the kept examples link to
    left_out = [
        label
        for page in [*ROOT.glob("docs/*.md"), *ROOT.glob("docs/concepts/*.md")]
        if page.relative_to(ROOT / "docs").with_suffix("").as_posix() not in pages
        for label in re.findall(r"^\((\w+)\)=$", page.read_text(encoding="utf-8"), re.M)
    ] + [
        label
        for script in sorted((ROOT / "gallery").glob("*/plot_*.py"))
        if script.relative_to(ROOT / "gallery").as_posix() not in examples
        for label in re.findall(r"^\.\. _(\w+):$", script.read_text(encoding="utf-8"), re.M)
    ]
    stand_ins = "".join(f"\n({label})=\n## {label}\n" for label in left_out)
    (docs / "left_out.md").write_text(f"# Left out of this small site\n{stand_ins}", encoding="utf-8")
    (dest / "gallery").mkdir()
    shutil.copy2(ROOT / "gallery" / "GALLERY_HEADER.rst", dest / "gallery" / "GALLERY_HEADER.rst")
    for example in examples:
        source = ROOT / "gallery" / example
        section = dest / "gallery" / source.parent.name
        section.mkdir(exist_ok=True)
        shutil.copy2(source.parent / "GALLERY_HEADER.rst", section / "GALLERY_HEADER.rst")
        shutil.copy2(source, section / source.name)
        for record in (ROOT / "records").rglob(Path(example).with_suffix(".json").as_posix()):
            if is_gpu_release_record(record.relative_to(ROOT / "records")):
                continue  # as copy_project does: the tests' GPU records are synthetic
            target = dest / "records" / record.relative_to(ROOT / "records")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(record, target)
    return dest


def sphinx_build(
    project: Path, *extra: str, env: dict[str, str] | None = None, timeout: float = 900
) -> Build:
    """Run ``sphinx-build -n -W --keep-going`` on ``project/docs`` like ``nox -s docs``."""
    html = project / "build" / "html"
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-n",
        "-W",
        "--keep-going",
        "--no-color",
        "-b",
        "html",
        "-d",
        str(project / "build" / "doctrees"),
        *extra,
        str(project / "docs"),
        str(html),
    ]
    environment = {**os.environ, "PYTHONWARNINGS": "", **(env or {})}
    result = subprocess.run(
        command, cwd=project, env=environment, capture_output=True, text=True, timeout=timeout, check=False
    )
    return Build(result.returncode, result.stdout + result.stderr, html)


def extract_messages(project: Path) -> Path:
    """The templates of ``project``'s pages, as ``nox -s translations`` extracts them; their folder.

    Sphinx's gettext builder with ``plot_gallery=0``: the messages come from the
    pages, never from an execution. The interface template is left out, as the
    session leaves it (``sphinx.po`` is kept by hand).
    """
    pot = project / "build" / "gettext"
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "gettext", "-D", "plot_gallery=0"]
    command += ["-d", str(project / "build" / "doctrees-gettext"), str(project / "docs"), str(pot)]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    (pot / "sphinx.pot").unlink(missing_ok=True)
    return pot


def executions(log: Path) -> list[str]:
    """The examples the reset hook logged as executed, in order."""
    return log.read_text(encoding="utf-8").split() if log.exists() else []


# The text a CUDA record differs by from the CPU one, for the example below:
# the tensor type in its in-place error, the runner, the build of PyTorch.
SYNTHETIC_CUDA_EDIT = {
    "torch.FloatTensor": "torch.cuda.FloatTensor",
    '"device": "cpu"': '"device": "cuda"',
    '"device_name": "x86_64"': '"device_name": "NVIDIA H100 80GB HBM3"',
    "+cpu": "+cu130",
}
SYNTHETIC_CUDA_EXAMPLE = "05_inplace/plot_detach_inplace_saved.py"
# A CUDA record that printed what the CPU build prints: the runner differs, no output does.
SYNTHETIC_SAME_CUDA_EXAMPLE = "04_detach_vs_data/plot_detach_shares_storage.py"
SYNTHETIC_SAME_CUDA_EDIT = {
    old: new for old, new in SYNTHETIC_CUDA_EDIT.items() if old != "torch.FloatTensor"
}

# A release newer than any the timeline has, that rewords one message of one example:
# every page gets its column, and that example a "message differs" mark in it.
SYNTHETIC_RELEASE = "2.99.0"
SYNTHETIC_RELEASE_EXAMPLE = "02_backward/plot_retain_graph.py"
SYNTHETIC_RELEASE_EDIT = {
    "second time (or directly": "second time (or else directly",
    '"torch": "2.13.0+cpu"': '"torch": "2.99.0+cu999"',
}


def patched_record(project: Path, example: str, runner: str, edit: dict[str, str]) -> Path:
    """Write ``runner``'s record of ``example`` in ``project``: the committed CPU record, text replaced."""
    record = json.loads((ROOT / "records" / "cpu" / Path(example).with_suffix(".json")).read_text("utf-8"))
    text = json.dumps(record)
    for old, new in edit.items():
        text = text.replace(old, new)
    target = project / "records" / runner / Path(example).with_suffix(".json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def build_site(project: Path, *args: str, log: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m autograd_notes.site.build.sitebuild docs build/html`` in ``project``, as nox does."""
    env = {**os.environ, "PYTHONWARNINGS": ""}
    if log is not None:
        env["AUTOGRAD_NOTES_EXECUTION_LOG"] = str(log)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "autograd_notes.site.build.sitebuild",
            "docs",
            "build/html",
            "--no-color",
            *args,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def git(repo: Path, *args: str, date: str | None = None) -> None:
    """Run git in ``repo`` as the tests' own author (no user configuration needed); ``date``: the commit's."""
    identity = ["-c", "user.name=Tests", "-c", "user.email=tests@example.org", "-c", "commit.gpgsign=false"]
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else None
    subprocess.run(["git", "-C", str(repo), *identity, *args], check=True, capture_output=True, env=env)


def as_checkout(project: Path, date: str | None = None) -> Path:
    """Make ``project`` a git checkout of one commit (made at ``date``, or now), as a clone is; return it.

    Its wheel is then numbered as a clone's (``<RELEASE>.post<commit time>``,
    :mod:`autograd_notes._version`): higher than a helper installed before.
    """
    git(project, "init", "--quiet", "--initial-branch=main")
    git(project, "add", "--all")
    git(project, "commit", "--quiet", "--message", "the project", date=date)
    return project


def build_whole_site(dest: Path) -> dict[str, Any]:
    """Copy the project to ``dest`` with the synthetic records of the ``whole_site`` fixture, build every
    language as ``nox -s docs`` does; its folder, the build's exit status and its output."""
    project = as_checkout(copy_project(dest))
    patched_record(project, SYNTHETIC_CUDA_EXAMPLE, "cuda", SYNTHETIC_CUDA_EDIT)
    patched_record(project, SYNTHETIC_SAME_CUDA_EXAMPLE, "cuda", SYNTHETIC_SAME_CUDA_EDIT)
    release = f"releases/{SYNTHETIC_RELEASE}/cpu"
    patched_record(project, SYNTHETIC_RELEASE_EXAMPLE, release, SYNTHETIC_RELEASE_EDIT)
    result = build_site(project, log=project / "executions.log")
    return {"project": str(project), "returncode": result.returncode, "output": result.stdout + result.stderr}


@dataclass
class Site:
    """The whole site, every language, built once for the tests that read it."""

    project: Path
    html: Path
    log: Path

    def pages(self, language: str) -> list[str]:
        """The pages of a language, as paths under its folder, Sphinx's ``_static`` and the like left out."""
        base = self.html / language
        return sorted(
            p.relative_to(base).as_posix()
            for p in base.rglob("*.html")
            if not p.relative_to(base).parts[0].startswith("_")
        )


def unguarded(download: str) -> list[str]:
    """A downloaded ``.py``'s lines without its three header lines and its import guard (four lines)."""
    lines = download.splitlines()
    assert lines[0].startswith("# "), lines[0]
    assert lines[2].startswith("#     pip install --upgrade autograd-notes "), lines[2]
    body = lines[3:]
    at = body.index("import importlib.util")
    assert body[at + 1].startswith("if _missing := [name for name in ("), body[at + 1]
    assert body[at + 2].startswith("    raise SystemExit("), body[at + 2]
    assert body[at + 3] == EARLY_STOP, body[at + 3]
    return body[:at] + body[at + 4 :]


def assert_same_script(download: str, source: str) -> None:
    """A download is its script line for line: code unchanged, only comments' ``:ref:`` roles linked."""
    got, want = unguarded(download), source.splitlines()
    assert len(got) == len(want), (len(got), len(want))
    for number, (line, original) in enumerate(zip(got, want, strict=True), 1):
        if ":ref:`" in original:
            assert ":ref:`" not in line, (number, line)
        else:
            assert line == original, (number, line, original)
