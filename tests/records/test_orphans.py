"""The run adopts what examples leave behind, and ends it, never a child it had before."""

from __future__ import annotations

import os
import subprocess

import pytest

from autograd_notes.records.capture.orphans import adopt_orphans, end_orphans


def test_a_child_from_before_the_run_is_spared_and_a_later_one_ended() -> None:
    before = subprocess.Popen(["sleep", "60"])
    try:
        assert adopt_orphans()
        later = subprocess.Popen(["sleep", "60"])
        kept = subprocess.Popen(["sleep", "60"])
        end_orphans({kept.pid})
        with pytest.raises(ProcessLookupError):  # killed, and reaped: no such process is left
            os.kill(later.pid, 0)
        later.wait()  # the Popen learns it is gone
        assert before.poll() is None
        assert kept.poll() is None
    finally:
        for process in (before, locals().get("kept")):
            if process is not None:
                process.kill()
                process.wait()
