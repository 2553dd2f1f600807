"""One capture run: every example in turn, a progress line each, records written as they are made.

:func:`compare_captured` compares one new capture with its record and writes
what ``capture`` / ``drift`` may write. :func:`run_captures` is what a
machine that records many examples in one go runs (``capture`` with a GPU,
``--archive`` or ``--isolate``): each example in a fresh process
(:mod:`.isolated`) with a timeout, ``--jobs`` of them side by side; after each, a line ``[ 3/49]
05_inplace/plot_x.py  4.2 s  recorded``, its record written at once, and the
archive (``--archive``) rewritten with every record so far: a run cut off at a
machine's time limit leaves what it did, on disk and in the archive. The total
time is printed at the end.
"""

from __future__ import annotations

import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from .capture.isolated import capture_isolated, end_all
from .drift.compare import compare_records
from .drift.report import ExampleResult
from .exchange.archive import ARCHIVE_FORMAT, Manifest, RunResult, write_archive
from .format.failures import new_failures
from .format.record import load_record, record_path, write_record
from .format.record_format import Record, Runner
from .format.status import DriftStatus
from .history.releases import release_of

__all__ = ["Destination", "compare_captured", "run_captures"]


def compare_captured(
    records: Path, runner: str, example: str, new: Record, *, write_missing: bool, accept: bool
) -> ExampleResult:
    """Compare a new capture of ``example`` with its record under ``records``, writing as allowed."""
    path = record_path(records, runner, example)
    old = load_record(path)
    result = ExampleResult(example, runner, DriftStatus.SAME, now=new["runner"])
    if old is None:
        result.status = DriftStatus.RECORDED if (write_missing or accept) else DriftStatus.NO_RECORD
        failed = new_failures(new, None)
        if failed and not accept:
            # a first record of what failed would be shown as what this runner does: say so, write nothing
            result.status = DriftStatus.FAILED
            result.note = "\n".join(str(failure) for failure in failed)
        if result.status == DriftStatus.RECORDED:
            write_record(path, new)
        return result
    result.before, result.recorded = old["runner"], old["recorded"]
    # what differs is what drift lists: a record that is not the same always has a difference to show
    differences = compare_records(old, new)
    if not differences:
        if write_missing or accept:
            _complete(path, old, new)
        return result
    result.differences = differences
    result.status = DriftStatus.ACCEPTED if accept else DriftStatus.DRIFT
    if accept:
        write_record(path, new)
    return result


def _complete(path: Path, old: Record, new: Record) -> None:
    """Give a record what a capture that behaved the same adds, changing nothing else, and write it.

    A record from before running times gets the new one's; a cell stamped with other code than
    the new capture ran (a page whose code changed and still does what its record says) gets the
    new code's digest: the run just made shows that today's code gives this record.
    """
    cells = [
        {"lines": cell["lines"], "code": made["code"], **cell} | {"code": made["code"]}
        if "code" in made and cell.get("code") != made["code"]
        else cell
        for cell, made in zip(old["cells"], new["cells"], strict=False)
    ]  # the digest right after the lines, as a capture writes it
    if "seconds" in old and cells == old["cells"]:
        return
    completed = {**old, "seconds": old.get("seconds", new["seconds"]), "cells": cells}
    write_record(path, cast("Record", completed))


_STOP = threading.Event()
"""Set when a run is stopped: an example that has not started yet does not start."""


@dataclass(frozen=True)
class Destination:
    """Where a run writes: the records folder, its runner subfolder, and the archive if any."""

    records: Path
    """``records/`` or ``records/releases/<release>``."""
    runner: str
    """The subfolder: the device (``cpu``, ``cuda``, ``mps``, ``xpu``)."""
    archive: Path | None
    place: str
    """The runner's folder inside ``records/`` (``cuda``, ``releases/2.11.0/cuda``): the archive's."""


def _progress(index: int, total: int, example: str, seconds: float, outcome: str) -> None:
    width = len(str(total))
    print(f"[{index:>{width}}/{total}] {example}  {seconds:.1f} s  {outcome}", flush=True)


def run_captures(
    root: Path,
    examples: list[str],
    runner: Runner,
    where: Destination,
    *,
    timeout: float,
    accept: bool,
    jobs: int = 1,
) -> list[ExampleResult]:
    """Capture ``examples`` on ``runner['device']``, each in its own process, ``jobs`` at a time.

    A progress line comes as each example ends; its record is written then, and
    the archive rewritten. Whatever ``jobs``, the records are the same and the
    archive lists the examples in their order.
    """
    device = runner["device"]
    order = {example: index for index, example in enumerate(examples)}
    results: list[ExampleResult] = []
    archived: dict[str, Record] = {}
    ran: list[RunResult] = []
    start = time.perf_counter()
    _STOP.clear()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        running = {pool.submit(_isolated, root, example, device, timeout): example for example in examples}
        for done, future in enumerate(as_completed(running), start=1):
            example = running[future]
            record, seconds, why = future.result()
            if record is None:
                status = DriftStatus.TIMED_OUT if why.startswith("timed out") else DriftStatus.NO_RESULT
                result = ExampleResult(example, device, status, now=runner, note=why)
            else:
                result = compare_captured(
                    where.records, where.runner, example, record, write_missing=True, accept=accept
                )
                archived[f"{where.place}/{Path(example).with_suffix('.json').as_posix()}"] = record
            results.append(result)
            ran.append(RunResult(example=example, status=result.status.value, seconds=round(seconds, 1)))
            _progress(done, len(examples), example, seconds, result.status.value)
            if result.status in (DriftStatus.TIMED_OUT, DriftStatus.NO_RESULT):
                print(f"    {why.splitlines()[0] if why else 'no record was made'}", flush=True)
            if result.status == DriftStatus.FAILED:
                print(textwrap.indent(result.note, "    "), flush=True)
            if where.archive is not None:
                manifest = Manifest(
                    format=ARCHIVE_FORMAT,
                    release=release_of(runner["torch"]),
                    runner=runner,
                    members=[],
                    results=sorted(ran, key=lambda item: order[item["example"]]),
                )
                write_archive(where.archive, dict(sorted(archived.items())), manifest)
    except BaseException:
        # a signal (SIGTERM from `timeout`) or Ctrl-C: no example waiting in the queue starts, and
        # those running end with everything they started; the archive written so far stays whole
        _STOP.set()
        pool.shutdown(wait=False, cancel_futures=True)
        end_all()
        raise
    finally:
        pool.shutdown(wait=True)
    total = time.perf_counter() - start
    print(f"captured {len(examples)} example(s) on {device} in {total:.1f} s ({jobs} at a time)", flush=True)
    return sorted(results, key=lambda result: order[result.example])


def _isolated(root: Path, example: str, device: str, timeout: float) -> tuple[Record | None, float, str]:
    if _STOP.is_set():  # the run was stopped while this example waited for a worker
        return None, 0.0, "not run: the run was stopped"
    outcome = capture_isolated(root, example, device, timeout)
    if outcome.timed_out:
        return None, outcome.seconds, f"timed out after {timeout:g} s (--timeout): no record was made"
    if outcome.record is None:
        return None, outcome.seconds, f"its process ended without a record: {outcome.output}"
    return outcome.record, outcome.seconds, ""
