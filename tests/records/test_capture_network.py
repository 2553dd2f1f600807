"""A machine whose loopback is down cannot start a process group: its capture records that, not a failure.

The distributed examples start a ``gloo`` process group on 127.0.0.1. A sandbox
with no usable network interface (the GPU machine's rehearsal ran in one)
raises at ``init_process_group``; before this was handled, that failure was
recorded as what PyTorch does. Here the real thing: the same script captured
in a network namespace of its own (``unshare -n``, whose loopback is down)
and on this machine's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_notes.records.format.record import load_record

ROOT = Path(__file__).resolve().parents[2]
PROCESS_GROUP = '''"""
A process group
===============

One rank on the loopback.
"""

# %%
import torch.distributed as dist

# as the examples start theirs: an in-process store, gloo on the loopback
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
print("world size", dist.get_world_size())
dist.destroy_process_group()
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "gallery" / "01_x").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "fixture"\n', encoding="utf-8")
    (root / "gallery" / "01_x" / "plot_group.py").write_text(PROCESS_GROUP, encoding="utf-8")
    return root


def capture(project: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    environment.pop("AUTOGRAD_NOTES_DEVICE", None)
    command = [
        *prefix,
        sys.executable,
        "-m",
        "autograd_notes",
        "capture",
        "--root",
        str(project),
        "--jobs",
        "1",
    ]
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300, check=False)


def test_with_the_loopback_down_the_process_group_is_not_available(project: Path) -> None:
    done = capture(project, "unshare", "--net")
    assert done.returncode == 0, done.stdout + done.stderr
    record = load_record(project / "records" / "cpu" / "01_x" / "plot_group.json")
    assert record is not None
    assert [cell["status"] for cell in record["cells"]] == ["ran", "unavailable"]
    assert "Unable to find interface" in "\n".join(record["cells"][1]["output"])


def test_with_the_loopback_up_the_same_script_runs(project: Path) -> None:
    done = capture(project)
    assert done.returncode == 0, done.stdout + done.stderr
    record = load_record(project / "records" / "cpu" / "01_x" / "plot_group.json")
    assert record is not None
    assert [cell["status"] for cell in record["cells"]] == ["ran", "ran"]
    assert record["cells"][1]["output"] == ["world size 1"]
