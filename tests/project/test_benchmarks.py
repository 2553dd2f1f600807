"""The benchmarks' own logic: the suite benchmark's CPU account, the build benchmark's count of pages read."""

from __future__ import annotations

import resource
import sys
from pathlib import Path

from _modules import load_file

ROOT = Path(__file__).resolve().parents[2]
# half a second of CPU, in a child
BUSY = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass"


def test_a_commands_cpu_time_is_counted_with_the_machines() -> None:
    """A busy child's CPU time is within what the machine spent meanwhile (which counts every process)."""
    bench = load_file(ROOT / "benchmarks" / "suite_speed.py", "suite_speed_check")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    timing, result = bench.timed([sys.executable, "-c", BUSY], ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert result.returncode == 0
    child = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert child >= 0.5
    assert timing.cpu >= child - 0.05  # the clock ticks every 10 ms
    note = timing.note()
    assert f"[{timing.cpu:.0f} CPU-s on the machine: its CPUs " in note
    assert note.endswith("% busy]")


def test_the_build_benchmark_counts_the_pages_each_language_read() -> None:
    build_speed = load_file(ROOT / "benchmarks" / "build_speed.py", "build_speed_check")
    output = (
        "updating environment: [config changed ('x')] 88 added, 0 changed, 0 removed\n"
        "reading sources... [ 50%] errors\n"
        "updating environment: 0 added, 6 changed, 0 removed\n"
    )
    assert build_speed.pages_read(output) == [88, 6]
