"""Runners × releases: which records an example's pages show, and the CPU each GPU record is compared with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autograd_notes.records.history.runners import (
    BUILD,
    baseline,
    cpu_of,
    example_runner_records,
    load_runner_records,
    page_runners,
    record_outputs,
    runner_releases,
)

EXAMPLE = "05_inplace/plot_x.py"


def record(device: str, torch: str, outputs: list[list[str]]) -> dict[str, Any]:
    return {
        "format": 1,
        "example": EXAMPLE,
        "runner": {
            "device": device,
            "device_name": f"{device} machine",
            "torch": torch,
            "variant": "CUDA 13.0" if device == "cuda" else "CPU",
            "cuda": "13.0" if device == "cuda" else None,
            "python": "3.11.7",
        },
        "recorded": "2026-01-02",
        "cells": [
            {"lines": [10 * n + 1, 10 * n + 9], "status": "ran", "output": output, "events": []}
            for n, output in enumerate(outputs)
        ],
    }


def write(records: Path, folder: str, content: dict[str, Any], example: str = EXAMPLE) -> None:
    path = records / folder / Path(example).with_suffix(".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), encoding="utf-8")


@pytest.fixture
def records(tmp_path: Path) -> Path:
    """The pinned CPU (2.13.0), CPU records of 2.11.0 and 2.12.1, CUDA of 2.11.0, MPS of 2.12.1."""
    records = tmp_path / "records"
    write(records, "cpu", record("cpu", "2.13.0+cpu", [["a"], ["b"]]))
    write(records, "releases/2.11.0/cpu", record("cpu", "2.11.0+cu130", [["a"], ["old b"]]))
    write(records, "releases/2.12.1/cpu", record("cpu", "2.12.1+cu130", [["a"], ["b"]]))
    write(records, "releases/2.11.0/cuda", record("cuda", "2.11.0+cu130", [["a"], ["old b on cuda"]]))
    write(records, "releases/2.12.1/mps", record("mps", "2.12.1", [["a"], ["b"]]))
    (records / "releases" / "not-a-release" / "cuda").mkdir(parents=True)
    (records / "cuda").mkdir()  # an empty folder is no runner
    return records


def test_every_folder_that_holds_a_record_is_a_runner_and_release(records: Path) -> None:
    runs = example_runner_records(records, EXAMPLE)
    assert [(r.runner.device, r.runner.release, r.runner.folder) for r in runs] == [
        ("cpu", "2.11.0", "releases/2.11.0/cpu"),
        ("cpu", "2.12.1", "releases/2.12.1/cpu"),
        ("cpu", "2.13.0", "cpu"),
        ("cuda", "2.11.0", "releases/2.11.0/cuda"),
        ("mps", "2.12.1", "releases/2.12.1/mps"),
    ]
    assert [r.runner.pinned for r in runs] == [False, False, True, False, False]
    assert example_runner_records(records, "05_inplace/plot_other.py") == []
    assert load_runner_records(records) == {EXAMPLE: runs}
    assert len(runner_releases([*runs, *runs])) == len(runs)


def test_the_release_of_a_pinned_folder_is_the_one_its_records_ran(tmp_path: Path) -> None:
    write(tmp_path, "cuda", record("cuda", "2.11.0+cu130", [["a"]]))
    (run,) = example_runner_records(tmp_path, EXAMPLE)
    assert (run.runner.release, run.runner.folder, run.runner.pinned) == ("2.11.0", "cuda", True)


def test_pages_show_the_pinned_runners_and_every_gpu_release_not_the_cpus_other_releases(
    records: Path,
) -> None:
    shown = page_runners(example_runner_records(records, EXAMPLE))
    assert [r.runner.folder for r in shown] == ["cpu", "releases/2.11.0/cuda", "releases/2.12.1/mps"]


def test_a_gpu_record_is_compared_with_the_cpu_of_its_own_release(records: Path) -> None:
    runs = example_runner_records(records, EXAMPLE)
    cuda = next(r for r in runs if r.runner.device == "cuda")
    mps = next(r for r in runs if r.runner.device == "mps")
    against = baseline(cuda, runs, "2.13.0")
    assert against is not None
    assert against != BUILD
    assert not isinstance(against, str)
    assert against.runner.folder == "releases/2.11.0/cpu"  # never the pinned CPU's 2.13.0
    assert record_outputs(against.record) == [(1, ["a"]), (11, ["old b"])]
    mps_against = baseline(mps, runs, "2.13.0")
    assert not isinstance(mps_against, str)
    assert mps_against is not None
    assert mps_against.runner.folder == "releases/2.12.1/cpu"
    # a record of the build's own release is compared with what the build printed
    assert baseline(cuda, runs, "2.11.0") == BUILD


def test_without_a_cpu_record_of_its_release_nothing_is_compared(records: Path) -> None:
    write(records, "releases/2.10.0/cuda", record("cuda", "2.10.0+cu126", [["a"]]))
    runs = example_runner_records(records, EXAMPLE)
    old = next(r for r in runs if r.runner.release == "2.10.0")
    assert cpu_of(runs, "2.10.0") is None
    assert baseline(old, runs, "2.13.0") is None


def test_the_pinned_cpu_folder_comes_before_the_release_folder_of_the_same_release(records: Path) -> None:
    write(records, "releases/2.13.0/cpu", record("cpu", "2.13.0+cu130", [["a"], ["b"]]))
    runs = example_runner_records(records, EXAMPLE)
    found = cpu_of(runs, "2.13.0")
    assert found is not None
    assert found.runner.folder == "cpu"
