"""Build-speed benchmark: prints times and ratios measured in one run.

Run with ``nox -s benchmark`` (or ``python benchmarks/build_speed.py`` in an
environment with the docs dependencies). It copies the project to a
temporary folder and measures, there:

* a clean build, and how many times each example executed in it;
* a rebuild with nothing changed, and how many examples executed (goal: 0);
* a rebuild after the runner changed (goal: every example once);
* the floor: every example run once in one process, its figures drawn
  once, plus a build with execution off (``-D plot_gallery=0``);
* a clean build of all four languages against a clean English-only one
  (``python -m autograd_notes.site.build.sitebuild``), and the executions per example
  in the four-language build (goal: 1);
* that four-language site built again after one record changed: how many
  pages each language read again (goal: the example's own page and the
  pages that aggregate every record, never every page).

The goals are printed beside the measurements; the exit status is non-zero
when an execution-count goal is missed. Times are never asserted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _site import copy_project, executions, sphinx_build  # noqa: E402

# The examples' own work: each runs once, in one process, and its figures are
# drawn once (as plt.show() draws them for a reader), at the site's base
# resolution. What the site adds on top (the hi-dpi copies, thumbnails,
# captured outputs, pages) is what the ratio measures.
RUN_ALL = """
import io, runpy, sys
import matplotlib
matplotlib.use("agg")
import matplotlib.pyplot as plt
from autograd_notes.records.capture.reset import reset_example
plt.show = lambda *args, **kwargs: None
for path in sys.argv[1:]:
    reset_example({}, path, "before")
    try:
        runpy.run_path(path, run_name="__main__")
        for number in plt.get_fignums():
            plt.figure(number).savefig(io.BytesIO(), format="png")
    finally:
        plt.close("all")
        reset_example({}, path, "after")
"""


def timed_build(project: Path, log: Path, *extra: str) -> tuple[float, Counter[str]]:
    start = time.perf_counter()
    result = sphinx_build(project, *extra, env={"AUTOGRAD_NOTES_EXECUTION_LOG": str(log)})
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.output[-3000:]}")
    return elapsed, Counter(executions(log))


def run_all_examples(examples: list[Path]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", RUN_ALL, *map(str, examples)],
        check=True,
        capture_output=True,
        cwd=tempfile.gettempdir(),
    )
    return time.perf_counter() - start


READ_AGAIN = re.compile(r"updating environment: (?:\[[^\]]*\] )?(\d+) added, (\d+) changed")
RECORD = "records/cpu/02_backward/plot_retain_graph.json"
"""The record the last measurement changes."""


def pages_read(output: str) -> list[int]:
    """How many pages each language's build read (added or changed), in build order."""
    return [int(added) + int(changed) for added, changed in READ_AGAIN.findall(output)]


def timed_sitebuild(project: Path, log: Path, *args: str) -> tuple[float, Counter[str], str]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "autograd_notes.site.build.sitebuild", "docs", "build/html", *args],
        cwd=project,
        env={**os.environ, "AUTOGRAD_NOTES_EXECUTION_LOG": str(log)},
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"site build failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return elapsed, Counter(executions(log)), result.stdout + result.stderr


def main() -> int:
    examples = sorted((ROOT / "gallery").glob("*/plot_*.py"))
    names = sorted(p.name for p in examples)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        project = copy_project(work / "site")
        clean, clean_runs = timed_build(project, work / "clean.log")
        noop, noop_runs = timed_build(project, work / "noop.log")
        (project / "docs" / "examples" / ".runner-key").write_text("torch=other\n", encoding="utf-8")
        changed, changed_runs = timed_build(project, work / "changed.log")
        execute_only = run_all_examples(examples)
        no_exec, _ = timed_build(copy_project(work / "noexec"), work / "noexec.log", "-D", "plot_gallery=0")
        english, *_ = timed_sitebuild(
            copy_project(work / "english"), work / "english.log", "--language", "en"
        )
        every_project = copy_project(work / "every")
        every, every_runs, every_output = timed_sitebuild(every_project, work / "every.log")
        record = every_project / RECORD
        record.write_text(record.read_text(encoding="utf-8").replace('"seconds": ', '"seconds": 1'), "utf-8")
        one_record, _, one_output = timed_sitebuild(every_project, work / "record.log")

    floor = execute_only + no_exec
    print(f"examples: {len(names)}")
    print(f"clean build             {clean:7.2f} s")
    print(f"no-change rebuild       {noop:7.2f} s")
    print(f"runner-changed rebuild  {changed:7.2f} s")
    print(
        f"floor                   {floor:7.2f} s  (examples in one process {execute_only:.2f} s"
        f" + build without execution {no_exec:.2f} s)"
    )
    print(f"ratio clean / floor            {clean / floor:5.2f}  (goal: close to 1)")
    print(f"ratio no-change / clean        {noop / clean:5.2f}  (goal: small)")
    print(f"ratio runner-changed / clean   {changed / clean:5.2f}")
    print(f"all four languages      {every:7.2f} s  (English only {english:.2f} s)")
    print(f"ratio four languages / English  {every / english:5.2f}  (goal: at most 1.3)")
    print(f"build without execution {no_exec:7.2f} s  (English, Sphinx alone; goal: at most 15 s)")
    print(
        f"one record changed      {one_record:7.2f} s  pages read again per language: "
        f"{pages_read(one_output)} of {pages_read(every_output)}"
        " (goal: its example's page and the aggregate pages)"
    )
    print("executions per example: clean / no-change / runner-changed / four languages")
    failures = 0
    for name in names:
        row = (clean_runs[name], noop_runs[name], changed_runs[name], every_runs[name])
        ok = row == (1, 0, 1, 1)
        failures += not ok
        counts = " / ".join(map(str, row))
        print(f"  {name:45s} {counts}  {'ok' if ok else 'MISSED (goal 1 / 0 / 1 / 1)'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
