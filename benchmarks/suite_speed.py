"""Test-suite speed benchmark: prints times and ratios measured in one run.

Run with ``nox -s benchmark-tests`` (or ``python benchmarks/suite_speed.py``
in an environment with the test dependencies, such as ``.nox/tests``). In
one run, on this machine, it measures:

* a clean site build, every language, as ``nox -s docs`` makes it (in a
  copy of the project, with no cache: every example executes);
* the whole test suite, as ``nox -s tests`` runs it (without the install): a
  worker per CPU, the whole site built once for all of them by the first
  that needs it (``pyproject.toml``'s ``addopts``, ``tests/conftest.py``);
* the inner loop, ``pytest -m "not build"``: every test that builds no site.

and prints the goals beside them: the whole suite at most 6 minutes (with
the clean build's time beside it, for the ratio), the inner loop at most
60 s. Beside each time it prints the CPU time the whole machine spent
meanwhile (Linux's ``/proc/stat``: Chromium, the site build and every
subprocess included) and how busy that kept the
CPUs: a run that keeps every CPU busy is as fast as its work allows, and
only less work makes it faster. It also lists the slowest tests of the
whole run. The exit status is non-zero only when a command failed: times
are reported, never asserted. ``--skip-suite`` leaves the whole suite out
(the clean build and the inner loop only).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _site import copy_project  # noqa: E402

SUITE_GOAL = 360.0  # seconds, on 2 cores
INNER_GOAL = 60.0  # seconds


STAT = Path("/proc/stat")


def machine_cpu_seconds() -> float | None:
    """CPU seconds the whole machine has spent busy since it started (``None`` off Linux)."""
    if not STAT.exists():
        return None
    fields = [int(value) for value in STAT.read_text(encoding="ascii").split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and waiting for I/O
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Timing:
    """A command's wall time, and the CPU time the whole machine spent meanwhile (``None`` off Linux)."""

    seconds: float
    cpu: float | None

    def note(self) -> str:
        """The machine's CPU time, and the share of every CPU it kept busy ("" where unknown)."""
        if self.cpu is None:
            return ""
        busy = self.cpu / (self.seconds * (os.cpu_count() or 1))
        return f"  [{self.cpu:.0f} CPU-s on the machine: its CPUs {busy:.0%} busy]"


def timed(command: list[str], cwd: Path) -> tuple[Timing, subprocess.CompletedProcess[str]]:
    """Run ``command`` in ``cwd``: its timing and its result."""
    env = {**os.environ, "PYTHONWARNINGS": ""}
    before, start = machine_cpu_seconds(), time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds, after = time.perf_counter() - start, machine_cpu_seconds()
    return Timing(seconds, after - before if after is not None and before is not None else None), result


def clean_build() -> Timing:
    """The timing of a clean four-language build of a copy of the project."""
    with tempfile.TemporaryDirectory() as folder:
        project = copy_project(Path(folder) / "project")
        timing, result = timed(
            [sys.executable, "-m", "autograd_notes.site.build.sitebuild", "docs", "build/html", "--no-color"],
            project,
        )
        if result.returncode != 0:
            sys.exit(f"the clean build failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return timing


def pytest_run(*arguments: str) -> tuple[Timing, str]:
    """The timing of ``pytest arguments`` in the project, and the summary line it ended with."""
    timing, result = timed(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=15", *arguments], ROOT
    )
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0:
        sys.exit(f"pytest {' '.join(arguments)} failed:\n" + "\n".join(lines[-40:]) + result.stderr[-2000:])
    slowest = [line for line in lines if re.match(r"^\d+\.\d+s (setup|call|teardown) ", line)]
    print("\n".join(f"    {line}" for line in slowest))
    return timing, lines[-1] if lines else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Test-suite speed: the whole suite and the inner loop.")
    parser.add_argument("--skip-suite", action="store_true", help="leave the whole suite out")
    options = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    build = clean_build()
    print(f"clean build, every language:   {build.seconds:7.1f} s{build.note()}")
    print("inner loop (-m 'not build'), slowest tests:")
    inner, inner_summary = pytest_run("-m", "not build")
    print(f"inner loop:                     {inner.seconds:7.1f} s  ({inner_summary}){inner.note()}")
    print(f"  goal ≤ {INNER_GOAL:.0f} s: {'met' if inner.seconds <= INNER_GOAL else 'MISSED'}")
    if not options.skip_suite:
        print("whole suite, slowest tests:")
        suite, suite_summary = pytest_run()
        ratio = suite.seconds / build.seconds
        print(f"whole suite:                    {suite.seconds:7.1f} s  ({suite_summary}){suite.note()}")
        print(f"  whole suite / clean build:    {ratio:7.2f}")
        print(f"  goal ≤ {SUITE_GOAL:.0f} s: {'met' if suite.seconds <= SUITE_GOAL else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
