"""A whole-site build with the inputs of the last one builds nothing; any change to an input builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from _site import copy_project

import autograd_notes.site.build.sitebuild as sitebuild
from autograd_notes.site.build.input_stamp import inputs_digest, is_current, stamp_of, write_stamp


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def test_the_digest_follows_every_input(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = inputs_digest(project)
    assert inputs_digest(project) == first  # stable
    record = next((project / "records" / "cpu").rglob("*.json"))
    record.write_text(record.read_text(encoding="utf-8") + " ", encoding="utf-8")
    second = inputs_digest(project)
    assert second != first
    (project / "docs" / "examples").mkdir(exist_ok=True)
    (project / "docs" / "examples" / ".runner-key").write_text("torch=other\n", encoding="utf-8")
    third = inputs_digest(project)
    assert third != second  # what sphinx-gallery generated in docs/ counts too
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert inputs_digest(project) != third  # what decides the runner
    # what is not an input: the build's output, Python's caches
    (project / "build" / "html").mkdir(parents=True)
    (project / "build" / "html" / "x.html").write_text("x", encoding="utf-8")
    (project / "src" / "__pycache__").mkdir()
    (project / "src" / "__pycache__" / "x.pyc").write_bytes(b"x")
    fourth = inputs_digest(project)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert inputs_digest(project) == third
    assert fourth != third


def test_only_a_whole_site_build_is_skipped_and_only_when_nothing_changed(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project / "build" / "html"
    builds: list[list[str] | None] = []

    def build(*args: object, only: list[str] | None = None, **kwargs: object) -> int:
        builds.append(only)
        out.mkdir(parents=True, exist_ok=True)
        return 0

    monkeypatch.setattr(sitebuild, "_build_all", build)
    docs = project / "docs"
    assert sitebuild.build_all(docs, out) == 0
    assert is_current(out, project)
    assert sitebuild.build_all(docs, out) == 0  # nothing changed: nothing built
    assert builds == [None]
    assert "nothing changed since the last build" in capsys.readouterr().out
    assert sitebuild.build_all(docs, out, only=["en"]) == 0  # one language is always built...
    assert not is_current(out, project)  # ...and the next whole build runs
    assert sitebuild.build_all(docs, out) == 0
    assert builds == [None, ["en"], None]
    record = next((project / "records" / "cpu").rglob("*.json"))
    record.write_text(record.read_text(encoding="utf-8").replace('"seconds": ', '"seconds": 1'), "utf-8")
    assert not is_current(out, project)  # a changed input
    assert sitebuild.build_all(docs, out) == 0
    assert builds == [None, ["en"], None, None]


def test_a_failed_or_partial_build_leaves_no_stamp(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = project / "build" / "html"
    out.mkdir(parents=True)
    write_stamp(out, project)
    assert stamp_of(out) == project / "build" / "html.inputs"  # beside the pages, not published
    assert stamp_of(out).read_text(encoding="utf-8").strip() == inputs_digest(project)
    record = next((project / "records" / "cpu").rglob("*.json"))
    record.write_text(record.read_text(encoding="utf-8") + " ", encoding="utf-8")
    monkeypatch.setattr(sitebuild, "_build_all", lambda *args, **kwargs: 1)
    assert sitebuild.build_all(project / "docs", out) == 1
    assert not stamp_of(out).exists()  # the pages are the last good build's: their inputs are gone
    write_stamp(out, project)
    monkeypatch.setattr(sitebuild, "_build_all", lambda *args, **kwargs: 0)
    assert sitebuild.build_all(project / "docs", out, only=["ru"]) == 0
    assert not stamp_of(out).exists()  # the pages changed, from inputs no stamp says
