"""What drift compares with: the pinned release's records, a release's own, or the nearest recorded one."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograd_notes.records.drift.baseline import (
    ACCEPT_PINNED,
    comparison_records,
    nearest_release,
    recorded_releases,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project pinned to 2.13.0 with release records of 2.4.1, 2.13.0 and 2.14.1 (and a stray folder)."""
    (tmp_path / "constraints").mkdir()
    (tmp_path / "constraints" / "torch.txt").write_text("torch==2.13.0\n", encoding="utf-8")
    for release in ("2.4.1", "2.13.0", "2.14.1"):
        folder = tmp_path / "records" / "releases" / release / "cpu"
        folder.mkdir(parents=True)
        (folder / "x.json").write_text("{}", encoding="utf-8")
    (tmp_path / "records" / "releases" / "2.16.0").mkdir()  # empty: not recorded
    (tmp_path / "records" / "releases" / "notes").mkdir()
    return tmp_path


def test_recorded_releases_are_the_non_empty_release_folders_in_order(project: Path) -> None:
    assert recorded_releases(project / "records") == ["2.4.1", "2.13.0", "2.14.1"]
    assert recorded_releases(project / "nowhere") == []


@pytest.mark.parametrize(
    ("release", "nearest"),
    [("2.15.0", "2.14.1"), ("2.14.0", "2.13.0"), ("2.5.1", "2.4.1"), ("2.3.1", "2.4.1")],
)
def test_the_nearest_recorded_release_is_the_newest_older_one_else_the_oldest(
    release: str, nearest: str
) -> None:
    assert nearest_release(release, ["2.4.1", "2.13.0", "2.14.1"]) == nearest


def test_no_recorded_release_has_no_nearest() -> None:
    assert nearest_release("2.15.0", []) is None


def test_the_pinned_release_compares_with_the_runner_records(project: Path) -> None:
    records = project / "records"
    assert comparison_records(project, records, "2.13.0+cpu").records == records
    assert comparison_records(project, records, "2.13.0+cpu").advice == ACCEPT_PINNED


def test_a_recorded_release_compares_with_its_own_records(project: Path) -> None:
    baseline = comparison_records(project, project / "records", "2.14.1+cu128")
    assert baseline.records == project / "records" / "releases" / "2.14.1"
    assert "compared with its own release records (records/releases/2.14.1)" in baseline.sentence
    assert "`nox -s timeline -- 2.14.1 --accept`" in baseline.advice


def test_an_unrecorded_release_compares_with_the_nearest_and_advises_the_timeline(project: Path) -> None:
    baseline = comparison_records(project, project / "records", "2.15.0+cu132")
    assert baseline.records == project / "records" / "releases" / "2.14.1"
    assert baseline.sentence == (
        "PyTorch 2.15.0 is not the pinned 2.13.0 and has no release records: compared with 2.14.1's "
        "(records/releases/2.14.1), the nearest recorded release, so only what differs from 2.14.1 "
        "is reported"
    )
    assert baseline.advice.startswith(
        "PyTorch 2.15.0 has no release records: record it for the timeline with `nox -s timeline -- 2.15.0`"
    )
    assert "drift --accept` writes only the pinned release's records" in baseline.advice
