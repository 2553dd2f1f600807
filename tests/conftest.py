from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# tests/_site.py is a helper module of the tests, importable as `_site`.
sys.path.insert(0, str(Path(__file__).parent))

import _site
from _site import (  # found through the path above
    SYNTHETIC_CUDA_EDIT,
    SYNTHETIC_CUDA_EXAMPLE,
    SYNTHETIC_RELEASE,
    SYNTHETIC_RELEASE_EDIT,
    SYNTHETIC_RELEASE_EXAMPLE,
    SYNTHETIC_SAME_CUDA_EDIT,
    SYNTHETIC_SAME_CUDA_EXAMPLE,
    Site,
    build_site,
    copy_project,
    patched_record,
)

# What the tests read from a subprocess must not depend on the terminal: CI
# sets FORCE_COLOR, and Sphinx, sphinx-gallery and pytest then colour their
# messages with escape codes in the middle of the words the tests look for.
for variable in ("FORCE_COLOR", "PY_COLORS", "CLICOLOR_FORCE"):
    os.environ.pop(variable, None)
os.environ["NO_COLOR"] = "1"
# The test sites are published at conf.py's default address, whatever a host's CI sets.
os.environ.pop("AUTOGRAD_NOTES_SITE_URL", None)

# The fixtures that build a Sphinx site. A test that uses one, directly or through another
# fixture, is marked ``build`` at collection, so that ``-m "not build"`` (the inner loop)
# never builds a site; a test that builds one itself must say so with the marker, or the
# builders of ``_site`` fail it (``pytest_runtest_setup`` below).
SITE_FIXTURES = frozenset({"whole_site", "small_site_build"})
# The fixtures that install an environment (minutes): their tests are marked ``build`` too.
ENVIRONMENT_FIXTURES = frozenset({"torch_site"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if (SITE_FIXTURES | ENVIRONMENT_FIXTURES) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.build)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # before any fixture of the test is set up: the builders ask whether this test may build
    _site.BUILD_ALLOWED = item.get_closest_marker("build") is not None


@pytest.fixture(scope="session")
def torch_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site-packages of a fresh environment with only the pinned PyTorch, shared by the fresh
    environments of the reader test and the GPU rehearsal (``_venvs.venv_on``)."""
    import _venvs

    return _venvs.torch_only(tmp_path_factory.mktemp("torch-only") / "venv")


@pytest.fixture(scope="session")
def whole_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """Every language of the real site, built once per test run as ``nox -s docs`` builds it.

    Two synthetic CUDA records are added to the copy: one that differs from
    this build (``_site.SYNTHETIC_CUDA_EXAMPLE``), so that a page has CPU/GPU
    tabs for the browser to switch, and one that printed the same
    (``_site.SYNTHETIC_SAME_CUDA_EXAMPLE``); and one synthetic release record
    (``_site.SYNTHETIC_RELEASE``), so that the timeline has a release whose
    change the tests know.
    """
    project = copy_project(tmp_path_factory.mktemp("site"))
    patched_record(project, SYNTHETIC_CUDA_EXAMPLE, "cuda", SYNTHETIC_CUDA_EDIT)
    patched_record(project, SYNTHETIC_SAME_CUDA_EXAMPLE, "cuda", SYNTHETIC_SAME_CUDA_EDIT)
    release = f"releases/{SYNTHETIC_RELEASE}/cpu"
    patched_record(project, SYNTHETIC_RELEASE_EXAMPLE, release, SYNTHETIC_RELEASE_EDIT)
    log = project / "executions.log"
    result = build_site(project, log=log)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "WARNING" not in result.stdout + result.stderr, (result.stdout + result.stderr)[-3000:]
    return Site(project, project / "build" / "html", log)
