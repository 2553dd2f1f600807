"""The test-suite benchmark's CPU account: the whole machine's busy time while a command runs."""

from __future__ import annotations

import importlib.util
import resource
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
# half a second of CPU, in a child
BUSY = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass"


def _suite_speed() -> ModuleType:
    spec = importlib.util.spec_from_file_location("suite_speed_check", ROOT / "benchmarks" / "suite_speed.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_commands_cpu_time_is_counted_with_the_machines() -> None:
    """A busy child's CPU time is within what the machine spent meanwhile (which counts every process)."""
    bench = _suite_speed()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, result = bench.timed([sys.executable, "-c", BUSY], ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert result.returncode == 0
    child = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert child >= 0.5
    machine = bench._CPU[-1]
    assert machine >= child - 0.05  # the clock ticks every 10 ms
    note = bench.cpu_note(seconds)
    assert f"[{machine:.0f} CPU-s on the machine: its CPUs " in note
    assert note.endswith("% busy]")
