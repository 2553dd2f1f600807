"""The wheel the site serves, its find-links page, and the command readers type."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest
from _site import ROOT

from autograd_notes._version import helper_version
from autograd_notes.site.examples.install import (
    PACKAGES,
    WheelError,
    build_wheel,
    install_command,
    packages_address,
    publish_wheel,
)


def test_the_command_points_at_the_sites_packages() -> None:
    assert packages_address("https://example.org/notes") == "https://example.org/notes/packages/"
    assert install_command("https://example.org/notes/") == (
        "pip install --upgrade autograd-notes --find-links https://example.org/notes/packages/"
    )


def test_the_site_gets_the_wheel_and_a_page_with_its_digest(tmp_path: Path) -> None:
    wheel = publish_wheel(ROOT, tmp_path)
    assert wheel.parent == tmp_path / PACKAGES
    # numbered as the checkout is (autograd_notes._version), so that --upgrade replaces an older one
    assert wheel.name == f"autograd_notes-{helper_version(ROOT)}-py3-none-any.whl"
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert f'href="{wheel.name}#sha256={digest}"' in (wheel.parent / "index.html").read_text("utf-8")
    names = zipfile.ZipFile(wheel).namelist()
    # every module of the source tree (hatchling follows .gitignore: a pattern once left out site/build/)
    sources = {
        path.relative_to(ROOT / "src").as_posix()
        for path in (ROOT / "src" / "autograd_notes").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert sorted(sources - set(names)) == []
    assert "autograd_notes/site/web/static/autograd_notes.css" in names
    assert not [name for name in names if name.startswith(("tests/", "gallery/", "docs/"))]


def test_a_project_that_does_not_build_is_an_error_naming_it(tmp_path: Path) -> None:
    project = tmp_path / "broken-project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project\n", encoding="utf-8")
    with pytest.raises(WheelError, match="could not build the wheel of broken-project/"):
        build_wheel(project, tmp_path / "out")
