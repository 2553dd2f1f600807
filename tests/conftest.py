from __future__ import annotations

import collections
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# tests/_site.py is a helper module of the tests, importable as `_site`.
sys.path.insert(0, str(Path(__file__).parent))

import _site
from _shared import RUN_VARIABLE, Job, end_jobs, run_folder
from _site import Site

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
# What a run makes once, in the background from its start (``_shared``), for these fixtures
WHOLE_SITE_SECONDS = 1800
TORCH_SECONDS = 900
# How far the workers lower their own priority while the jobs run (``_background_jobs``)
WORKER_NICENESS = 10


def _whole_site_job() -> Job:
    return Job("whole-site", "_site:build_whole_site", str(run_folder() / "whole-site"))


def _torch_job() -> Job:
    return Job("torch-only", "_venvs:torch_only", str(run_folder() / "torch-only" / "venv"))


BACKGROUND_JOBS = {"whole_site": _whole_site_job, "torch_site": _torch_job}


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # the process that starts pytest makes the run's shared folder; its xdist workers inherit it
    if not _is_worker(config):
        os.environ[RUN_VARIABLE] = tempfile.mkdtemp(prefix="autograd-notes-tests-")


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _is_worker(config) and os.environ.get(RUN_VARIABLE):
        folder = Path(os.environ.pop(RUN_VARIABLE))
        end_jobs(folder)
        shutil.rmtree(folder, ignore_errors=True)


def _phase(item: pytest.Item) -> int:
    """0: builds nothing; 1: builds a small site or an environment; 2: reads the whole site."""
    if item.get_closest_marker("build") is None:
        return 0
    return 2 if "whole_site" in getattr(item, "fixturenames", ()) else 1


def _group(item: pytest.Item) -> str | None:
    """The ``xdist_group`` of a test: its tests run in one worker, one after the other."""
    mark = item.get_closest_marker("xdist_group")
    return str(mark.args[0]) if mark is not None and mark.args else None


def _unit(item: pytest.Item) -> str:
    """What pytest-xdist hands a worker at once: the test's ``xdist_group``, or the test alone."""
    return _group(item) or item.nodeid


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if (SITE_FIXTURES | ENVIRONMENT_FIXTURES) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.build)
    # The order the workers are handed the tests in (``--no-loadscope-reorder`` keeps it: xdist
    # would otherwise hand out the largest groups first, whatever they wait for). The tests that
    # need the whole site come last, so that the others run while it builds; a group goes where its
    # latest test goes (a worker that took it would otherwise wait for the whole site in its
    # middle). Within a phase, the largest groups go first, so that no long one is left for last.
    # pytest-randomly has shuffled the tests already: a stable sort keeps its order otherwise.
    units = [_unit(item) for item in items]
    phases: dict[str, int] = {}
    for unit, item in zip(units, items, strict=True):
        phases[unit] = max(phases.get(unit, 0), _phase(item))
    sizes = collections.Counter(units)
    first: dict[str, int] = {}
    for index, unit in enumerate(units):
        first.setdefault(unit, index)  # a group stays together, where its first test was
    ranked = sorted(
        zip(units, items, strict=True), key=lambda pair: (phases[pair[0]], -sizes[pair[0]], first[pair[0]])
    )
    items[:] = [item for _, item in ranked]


@pytest.fixture(scope="session", autouse=True)
def _background_jobs(request: pytest.FixtureRequest) -> None:
    """Start, as the run starts, what a selected test of the run will wait for (once for all workers)."""
    needed = set().union(*(getattr(item, "fixturenames", ()) for item in request.session.items))
    jobs = [job for fixture, job in BACKGROUND_JOBS.items() if fixture in needed]
    for job in jobs:
        job().start()
    if jobs:
        # The jobs (started above at this process's priority, or by another worker) are the run's
        # longest path: the tests that read the whole site wait for it. The workers give way to
        # them, and take what CPU they leave; once they are done, only the workers are left.
        os.nice(WORKER_NICENESS)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # before any fixture of the test is set up: the builders ask whether this test may build
    _site.BUILD_ALLOWED = item.get_closest_marker("build") is not None


@pytest.fixture(scope="session")
def torch_site() -> Path:
    """The site-packages of a fresh environment with only the pinned PyTorch, shared by the fresh
    environments of the reader test and the GPU rehearsal (``_venvs.venv_on``); installed once per
    run, in the background from its start."""
    return Path(_torch_job().result(TORCH_SECONDS))


@pytest.fixture(scope="session")
def whole_site() -> Site:
    """Every language of the real site, built once per test run as ``nox -s docs`` builds it.

    The build starts in the background when the run starts (``_background_jobs``), and every
    worker shares it. Two synthetic CUDA records are added to the copy: one that differs from
    this build (``_site.SYNTHETIC_CUDA_EXAMPLE``), so that a page has CPU/GPU
    tabs for the browser to switch, and one that printed the same
    (``_site.SYNTHETIC_SAME_CUDA_EXAMPLE``); and one synthetic release record
    (``_site.SYNTHETIC_RELEASE``), so that the timeline has a release whose
    change the tests know (``_site.build_whole_site``).
    """
    built = _whole_site_job().result(WHOLE_SITE_SECONDS)
    output = built["output"]
    assert built["returncode"] == 0, output[-6000:]
    assert "WARNING" not in output, output[-3000:]
    project = Path(built["project"])
    return Site(project, project / "build" / "html", project / "executions.log")
