"""The suite's fixtures: what a run makes once for every worker, and the ``build`` marker.

The whole site and the PyTorch-only environment take minutes: each is made
once per run, by the first worker that needs it, under a file lock that the
other workers wait on (pytest-xdist's documented recipe, :func:`_once`).
A test that builds a site or an environment is marked ``build`` at
collection (:func:`builds`), so that the inner loop (``-m "not build"``)
never builds one.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

# tests/_site.py and the other helper modules of the tests are importable as `_site`, ...
sys.path.insert(0, str(Path(__file__).parent))

from _markers import builds
from _site import Site, build_whole_site
from _venvs import torch_only

# What the tests read from a subprocess must not depend on the terminal: CI
# sets FORCE_COLOR, and Sphinx, sphinx-gallery and pytest then colour their
# messages with escape codes in the middle of the words the tests look for.
for variable in ("FORCE_COLOR", "PY_COLORS", "CLICOLOR_FORCE"):
    os.environ.pop(variable, None)
os.environ["NO_COLOR"] = "1"
# The test sites are published at conf.py's default address, whatever a host's CI sets.
os.environ.pop("AUTOGRAD_NOTES_SITE_URL", None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if builds(item):
            item.add_marker(pytest.mark.build)


def _once(factory: pytest.TempPathFactory, worker: str, name: str, make: Callable[[Path], Any]) -> Any:
    """``make(folder)``, once per run however many workers ask: pytest-xdist's recipe, a file lock.

    The first worker makes it and writes its result (JSON) beside the lock;
    the others wait for the lock and read the result. A failure is written
    too, so that no other worker makes it again.
    """
    if worker == "master":  # no xdist: this process is the run
        return make(factory.mktemp(name))
    shared = factory.getbasetemp().parent  # the run's folder, above each worker's
    result = shared / f"{name}.json"
    with FileLock(str(shared / f"{name}.lock")):
        if not result.is_file():
            try:
                value = {"value": make(shared / name)}
            except Exception:  # every worker reports the first one's failure
                value = {"error": traceback.format_exc()}
            result.write_text(json.dumps(value), encoding="utf-8")
        found = json.loads(result.read_text(encoding="utf-8"))
    if "error" in found:
        pytest.fail(f"making {name} failed:\n{found['error']}")
    return found["value"]


@pytest.fixture(scope="session")
def torch_site(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The site-packages of a fresh environment with only the pinned PyTorch, shared by the fresh
    environments of the reader test and the GPU rehearsal (``_venvs.venv_on``); installed once per run."""
    return Path(_once(tmp_path_factory, worker_id, "torch-only", lambda folder: str(torch_only(folder))))


@pytest.fixture(scope="session")
def whole_site(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Site:
    """Every language of the real site, built once per test run as ``nox -s docs`` builds it.

    Two synthetic CUDA records are added to the copy: one that differs from
    this build (``_site.SYNTHETIC_CUDA_EXAMPLE``), so that a page has CPU/GPU
    tabs for the browser to switch, and one that printed the same
    (``_site.SYNTHETIC_SAME_CUDA_EXAMPLE``); and one synthetic release record
    (``_site.SYNTHETIC_RELEASE``), so that the timeline has a release whose
    change the tests know (``_site.build_whole_site``).
    """
    built = _once(tmp_path_factory, worker_id, "whole-site", build_whole_site)
    output = built["output"]
    assert built["returncode"] == 0, output[-6000:]
    assert "WARNING" not in output, output[-3000:]
    project = Path(built["project"])
    return Site(project, project / "build" / "html", project / "executions.log")
