"""The record store: the committed records read once, every view the same as reading the files for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograd_notes.records.format.record import load_all_records
from autograd_notes.records.history.releases import load_releases
from autograd_notes.records.history.runners import example_runner_records
from autograd_notes.records.history.store import RecordStore
from autograd_notes.records.history.timeline import load_timelines

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "records"


@pytest.fixture(scope="module")
def store() -> RecordStore:
    return RecordStore.read(RECORDS)


def test_the_pinned_records_are_the_runner_folders(store: RecordStore) -> None:
    assert store.pinned == load_all_records(RECORDS)
    assert store.pinned is store.pinned  # computed once


def test_the_release_records_are_the_release_folders(store: RecordStore) -> None:
    releases = store.releases("cpu")
    assert releases == load_releases(RECORDS, "cpu")
    assert list(releases) == list(load_releases(RECORDS, "cpu"))  # oldest first


def test_the_timelines_are_the_records_timelines(store: RecordStore) -> None:
    assert store.timelines == load_timelines(RECORDS)
    assert store.timelines is store.timelines  # computed once


def test_an_examples_files_are_where_its_records_are(store: RecordStore) -> None:
    example = "02_backward/plot_retain_graph.py"
    files = store.files(example)
    assert [path.relative_to(RECORDS).as_posix() for path in files] == [
        run.runner.path(RECORDS, example).relative_to(RECORDS).as_posix()
        for run in example_runner_records(RECORDS, example)
    ]
    assert all(path.is_file() for path in files)
    assert "cpu/02_backward/plot_retain_graph.json" in [p.relative_to(RECORDS).as_posix() for p in files]
    every = store.files()
    assert len(every) == sum(len(runs) for runs in store.runs.values())
    assert set(files) <= set(every)
    assert store.files("99_none/plot_none.py") == []
