"""display_path and project_root: paths a published page may show."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograd_notes._paths import display_path, notebook_cell, project_root


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    project_root.cache_clear()
    yield
    project_root.cache_clear()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "gallery" / "05_inplace").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    return root


def test_file_in_a_project_is_project_relative(project: Path) -> None:
    script = project / "gallery" / "05_inplace" / "plot_detach_inplace.py"
    script.touch()
    assert display_path(str(script)) == "gallery/05_inplace/plot_detach_inplace.py"


def test_unresolved_path_in_a_project_is_project_relative(project: Path) -> None:
    script = project / "gallery" / ".." / "gallery" / "plot_x.py"
    assert display_path(str(script)) == "gallery/plot_x.py"


def test_git_folder_marks_a_project_too(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    assert project_root(str(tmp_path / "repo" / "src" / "a.py")) == tmp_path / "repo"
    assert display_path(str(tmp_path / "repo" / "src" / "a.py")) == "src/a.py"


def test_nearest_project_wins(project: Path) -> None:
    inner = project / "gallery" / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").touch()
    assert project_root(str(inner / "plot_x.py")) == inner
    assert display_path(str(inner / "plot_x.py")) == "plot_x.py"
    assert project_root(str(project / "gallery" / "plot_y.py")) == project


def test_project_root_of_a_loose_file_is_none(tmp_path: Path) -> None:
    assert project_root(str(tmp_path / "downloads" / "plot_x.py")) is None


def test_project_root_is_cached(tmp_path: Path) -> None:
    script = str(tmp_path / "later" / "plot_x.py")
    assert project_root(script) is None
    (tmp_path / "later").mkdir()
    (tmp_path / "later" / "pyproject.toml").touch()
    assert project_root(script) is None  # still the cached answer
    project_root.cache_clear()
    assert project_root(script) == tmp_path / "later"


def test_other_absolute_file_is_its_base_name(tmp_path: Path) -> None:
    assert display_path(str(tmp_path / "downloads" / "plot_x.py")) == "plot_x.py"


@pytest.mark.parametrize(
    ("filename", "shown"),
    [
        ("/usr/lib/python3.11/site-packages/torch/_tensor.py", "torch/_tensor.py"),
        ("/home/alice/.venv/lib/python3.11/site-packages/torch/autograd/graph.py", "torch/autograd/graph.py"),
        ("/x/site-packages/vendored/site-packages/torch/nn/functional.py", "torch/nn/functional.py"),
        ("/tmp/ipykernel_12345/2807.py", "<cell>"),
        ("/home/alice/ipykernel_7/cell.py", "<cell>"),
        ("<string>", "<string>"),
        (
            "<doctest autograd_notes._expect.expect_error[0]>",
            "<doctest autograd_notes._expect.expect_error[0]>",
        ),
        ("gallery/plot_x.py", "gallery/plot_x.py"),
        ("plot_x.py", "plot_x.py"),
    ],
)
def test_display_path(filename: str, shown: str) -> None:
    assert display_path(filename) == shown


def test_site_packages_inside_a_project_is_the_import_path(project: Path) -> None:
    installed = project / ".venv" / "lib" / "python3.11" / "site-packages" / "torch" / "_tensor.py"
    assert display_path(str(installed)) == "torch/_tensor.py"


def test_this_file_is_shown_relative_to_this_project() -> None:
    assert display_path(__file__) == "tests/helpers/test_paths.py"


def test_a_notebook_cell_is_named_as_ipython_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    shell = SimpleNamespace(compile=SimpleNamespace(_filename_map={"/tmp/ipykernel_7/123.py": 5}))
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: shell))
    assert notebook_cell("/tmp/ipykernel_7/123.py") == "In[5]"
    assert notebook_cell("/tmp/ipykernel_7/999.py") is None  # a cell the kernel did not name: "<cell>"
    assert notebook_cell("/home/reader/plot_x.py") is None
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: None))
    assert notebook_cell("/tmp/ipykernel_7/123.py") is None


def test_the_standard_library_is_named_inside_it_wherever_python_lives() -> None:
    """A pyenv Python lives in a git checkout: its copy.py is still copy.py, never versions/3.x/lib/..."""
    import copy
    import multiprocessing.process

    assert display_path(copy.__file__) == "copy.py"
    assert display_path(multiprocessing.process.__file__) == "multiprocessing/process.py"
