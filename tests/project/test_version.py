"""The helper's version grows with every commit that changes it, so that the site's ``--upgrade`` works.

:mod:`autograd_notes._version` numbers a git checkout ``<RELEASE>.post<UTC
commit time>`` of the newest commit that changed the helper; the commit tagged
``v<RELEASE>`` and a tree without git are ``RELEASE``. These tests make real
repositories with set commit dates, and build the real sdist and wheel of one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _site import as_checkout, copy_project, git
from packaging.version import Version

from autograd_notes._version import RELEASE, VersionError, helper_version


def _commit(repo: Path, path: str, text: str, date: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message", f"change {path}", date=date)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose first commit, 2026-01-02 03:04:05 UTC (+01:00 local), has a helper module."""
    folder = tmp_path / "project"
    folder.mkdir()
    git(folder, "init", "--quiet", "--initial-branch=main")
    _commit(folder, "src/autograd_notes/a.py", "A = 1\n", "2026-01-02T04:04:05+01:00")
    return folder


def test_a_tree_without_git_is_its_release(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert helper_version(tmp_path) == RELEASE


def test_a_checkout_is_numbered_by_the_helpers_last_change_in_utc(repo: Path) -> None:
    assert helper_version(repo) == f"{RELEASE}.post20260102030405"
    # a commit that changes neither the helper nor pyproject.toml leaves the number alone
    _commit(repo, "docs/index.md", "# notes\n", "2026-03-01T00:00:00+00:00")
    assert helper_version(repo) == f"{RELEASE}.post20260102030405"


def test_every_change_of_the_helper_numbers_it_higher(repo: Path) -> None:
    first = Version(helper_version(repo))
    _commit(repo, "pyproject.toml", "[project]\n", "2026-01-02T03:04:06+00:00")  # one second later
    second = Version(helper_version(repo))
    _commit(repo, "src/autograd_notes/a.py", "A = 2\n", "2026-05-06T07:08:09+00:00")
    third = Version(helper_version(repo))
    assert Version(RELEASE) < first < second < third
    # a post-release, not a pre-release: pip takes it without --pre, and over the release itself
    assert not third.is_prerelease
    assert third.release == Version(RELEASE).release


def test_the_release_tag_is_the_release_alone(repo: Path) -> None:
    git(repo, "tag", f"v{RELEASE}")
    assert helper_version(repo) == RELEASE
    git(repo, "tag", "other")  # another tag beside it changes nothing
    assert helper_version(repo) == RELEASE
    _commit(repo, "src/autograd_notes/a.py", "A = 3\n", "2026-06-01T00:00:00+00:00")
    assert helper_version(repo) == f"{RELEASE}.post20260601000000"


def test_a_checkout_git_cannot_read_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /nonexistent/repository\n", encoding="utf-8")
    with pytest.raises(VersionError, match=rf"^{tmp_path}: `tag --points-at HEAD` failed: .+"):
        helper_version(tmp_path)


def test_the_sdist_and_the_wheel_carry_the_checkouts_number(tmp_path: Path) -> None:
    """``python -m build`` builds the wheel from the unpacked sdist, which has no git: PKG-INFO keeps it."""
    project = as_checkout(copy_project(tmp_path / "project", gallery=False), date="2026-07-08T09:10:11+00:00")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    version = f"{RELEASE}.post20260708091011"
    assert sorted(path.name for path in (tmp_path / "dist").iterdir()) == [
        f"autograd_notes-{version}-py3-none-any.whl",
        f"autograd_notes-{version}.tar.gz",
    ]
