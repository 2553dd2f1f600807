"""The test-suite benchmark's CPU account: the whole machine's busy time while a command runs."""

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
