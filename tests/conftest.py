from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# tests/_site.py is a helper module of the tests, importable as `_site`.
sys.path.insert(0, str(Path(__file__).parent))

from _site import (  # found through the path above
    SYNTHETIC_CUDA_EDIT,
    SYNTHETIC_CUDA_EXAMPLE,
    SYNTHETIC_RELEASE,
    SYNTHETIC_RELEASE_EDIT,
    SYNTHETIC_RELEASE_EXAMPLE,
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


@pytest.fixture(scope="session")
def whole_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """Every language of the real site, built once per test run as ``nox -s docs`` builds it.

    One synthetic CUDA record (``_site.SYNTHETIC_CUDA_EXAMPLE``) is added to
    the copy, so that a page has CPU/GPU tabs for the browser to switch, and
    one synthetic release record (``_site.SYNTHETIC_RELEASE``), so that the
    timeline has a release whose change the tests know.
    """
    project = copy_project(tmp_path_factory.mktemp("site"))
    patched_record(project, SYNTHETIC_CUDA_EXAMPLE, "cuda", SYNTHETIC_CUDA_EDIT)
    release = f"releases/{SYNTHETIC_RELEASE}/cpu"
    patched_record(project, SYNTHETIC_RELEASE_EXAMPLE, release, SYNTHETIC_RELEASE_EDIT)
    log = project / "executions.log"
    result = build_site(project, log=log)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "WARNING" not in result.stdout + result.stderr, (result.stdout + result.stderr)[-3000:]
    return Site(project, project / "build" / "html", log)
