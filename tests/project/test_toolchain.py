"""The tool chain is locked: every session, CI run and host installs from constraints/toolchain.txt.

``nox -s lock`` resolves the lock from the dependency groups of
``pyproject.toml``; these tests check that it is up to date with them, that
every install in ``noxfile.py`` and in the hosting configurations goes through
it, and that the scheduled ``toolchain`` workflow refreshes it by pull request
only. The ``release`` workflow builds with the project's own session and
publishes through PyPI's trusted publishing.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml
from _modules import load_file
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints" / "toolchain.txt"
WORKFLOWS = ROOT / ".github" / "workflows"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def pins() -> dict[str, Version]:
    """``name -> version`` of the lock (one version per name on Python 3.11, this machine's)."""
    found: dict[str, Version] = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith((" ", "#")):
            continue
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"python_full_version": "3.11.7"}):
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", line
            found[canonicalize_name(requirement.name)] = Version(specifier.version)
    return found


def group_requirements() -> list[tuple[str, Requirement]]:
    groups: dict[str, list[Any]] = PYPROJECT["dependency-groups"]
    return [
        (group, Requirement(item))
        for group, items in groups.items()
        for item in items
        if isinstance(item, str)
    ]


def test_the_lock_pins_every_tool_of_every_group() -> None:
    locked = pins()
    assert len(locked) > 50
    for group, requirement in group_requirements():
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement} ({group}) is not in {LOCK.name}: run nox -s lock"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"{LOCK.name} pins {name}=={locked[name]}, outside {group}'s {requirement}: run nox -s lock"
        )


def test_the_lock_leaves_pytorch_to_its_own_pin() -> None:
    assert "torch" not in pins()
    assert re.search(r"^torch==\d", (ROOT / "constraints" / "torch.txt").read_text(), flags=re.M)


def _calls(function: str) -> list[ast.Call]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == function
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "session"
    ]


def test_every_install_in_the_noxfile_goes_through_the_lock() -> None:
    installs = _calls("install")
    pip_runs = [
        call for call in _calls("run") if "pip" in ast.unparse(call) and "install" in ast.unparse(call)
    ]
    assert len(installs) >= 3
    for call in [*installs, *pip_runs]:
        text = ast.unparse(call)
        assert "TOOLCHAIN" in text or "pins" in text, f"noxfile.py:{call.lineno} installs unlocked: {text}"


@pytest.mark.parametrize(
    "path",
    [ROOT / ".ci" / "run", ROOT / ".readthedocs.yaml", *sorted(WORKFLOWS.glob("*.yml"))],
    ids=lambda p: p.name,
)
def test_nox_itself_is_installed_from_the_lock(path: Path) -> None:
    lines = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"pip install\b.*\bnox\b", line)
    ]
    assert lines, f"{path.name} installs no nox"
    assert all("-c constraints/toolchain.txt" in line for line in lines), lines


def _workflow(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


def test_the_toolchain_job_refreshes_builds_tests_and_proposes() -> None:
    workflow = _workflow("toolchain.yml")
    triggers = workflow[True]  # YAML reads the key `on` as True
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    (job,) = workflow["jobs"].values()
    runs = _runs(job)
    assert runs.index("nox -s lock -- --upgrade") < runs.index("nox -s lint docs tests")
    (propose,) = [
        step
        for step in job["steps"]
        if str(step.get("uses", "")).startswith("peter-evans/create-pull-request@")
    ]
    assert propose["with"]["add-paths"] == "constraints/toolchain.txt"
    assert "git push" not in runs  # a pull request to review, never a push


def test_the_release_builds_with_nox_and_publishes_by_trusted_publishing() -> None:
    workflow = _workflow("release.yml")
    assert workflow[True]["push"]["tags"] == ["v*"]
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert "nox -s package" in _runs(build)
    assert "src/autograd_notes/_version.py" in _runs(build)  # the tag must name the release there
    assert "dist/autograd_notes-${RELEASE}-py3-none-any.whl" in _runs(build)  # and the files carry it
    assert publish["needs"] == "build"
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"}
    (upload,) = publish["steps"][-1:]
    assert upload["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "with" not in upload or "password" not in upload["with"]  # no token: trusted publishing


def test_ci_builds_and_checks_the_distributions() -> None:
    assert "nox -s package" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_names_the_pythons_of_the_lock_and_of_the_package() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    (locked,) = re.findall(r'"--python-version=(3\.\d+)"', noxfile)
    package = PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert f"Python {locked}+" in readme  # building and testing the site: the lock's Python
    assert f"supports Python {package}+" in readme  # the helper package a reader installs
    assert "Python 3.10+ (nox" not in readme
    classifiers = PYPROJECT["project"]["classifiers"]
    assert f"Programming Language :: Python :: {package}" in classifiers
    assert f"Programming Language :: Python :: {locked}" in classifiers


def test_the_tests_session_says_before_it_changes_the_host() -> None:
    source = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    function = source[source.index("def _ensure_chromium") :]
    function = function[: function.index("\n@nox.session")]
    said, installed = function.index("session.log("), function.index('"apt-get",\n')
    assert said < installed
    assert "AUTOGRAD_NOTES_CHROMIUM" in function[said:installed]
    assert "AUTOGRAD_NOTES_CHROMIUM" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_records_modules_the_noxfile_loads_alone_load_without_the_package() -> None:
    """noxfile.py loads some records modules by path, without PyTorch or the package: each must load so.

    A module loaded by path is registered in ``sys.modules`` first, as the
    noxfile does (a dataclass looks its module up there); nothing else of the
    package may be imported.
    """
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    names = re.findall(r'_load_records_module\("([\w/]+)"\)', noxfile)
    assert names, "noxfile.py loads no records module by path any more: remove this test"
    assert "sys.modules[spec.name] = module" in noxfile
    for name in names:
        load_file(
            ROOT / "src" / "autograd_notes" / "records" / f"{name}.py",
            f"noxfile_check_{name.replace('/', '_')}",
        )


def test_an_xdist_group_runs_in_one_worker(tmp_path: Path) -> None:
    """The suite runs with ``-n auto --dist loadgroup`` (addopts): a module whose module-scoped
    fixture builds something marks itself ``xdist_group``, so that it builds once. pytest 9.2 made
    pytest-xdist 3.8 ignore the mark without a word (the lock keeps pytest below 9.2 for it)."""
    for module in ("grouped", "other"):
        mark = 'pytestmark = pytest.mark.xdist_group("one")\n' if module == "grouped" else ""
        (tmp_path / f"test_{module}.py").write_text(
            f"import os, pathlib\nimport pytest\n{mark}@pytest.mark.parametrize('i', range(8))\n"
            "def test_worker(i):\n"
            f"    pathlib.Path('{module}-' + str(i)).write_text(os.environ['PYTEST_XDIST_WORKER'])\n",
            encoding="utf-8",
        )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:randomly", "-p",
         "no:cacheprovider", "-c", "/dev/null", "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    workers = {path.name: path.read_text() for path in tmp_path.glob("*-*")}
    assert len(workers) == 16, workers
    assert len({workers[f"grouped-{i}"] for i in range(8)}) == 1, workers
