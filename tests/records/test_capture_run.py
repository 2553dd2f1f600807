"""capture --isolate / --archive: each example in a fresh process, with a timeout and progress.

The examples of the project here crash their process, sleep past the
timeout, or run: the run goes on past the first two, says what happened to
each, and what it recorded is on disk and in the archive as soon as it is
made, even when the run itself is cut off.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autograd_notes._device import DEVICE_VARIABLE
from autograd_notes.records.capture.isolated import child_environment
from autograd_notes.records.capture.reset import TIMEOUT_VARIABLE
from autograd_notes.records.cli import main
from autograd_notes.records.format.record import load_record

FAST = '''"""
Fast
====

Runs.
"""

# %%
import torch

from autograd_notes import check

check(torch.ones(2).sum(), 2.0, label="total")
'''
CRASH = '"""\nCrash\n=====\n\nEnds its process.\n"""\n\n# %%\nimport os\n\nos._exit(3)\n'
SLEEP = '''"""
Sleep
=====

Never ends.
"""

# %%
import os
import time
from pathlib import Path

written = Path(os.environ["SLEEPER_PID"] + ".part")  # renamed whole: a reader never meets an empty file
written.write_text(str(os.getpid()))
os.replace(written, os.environ["SLEEPER_PID"])
time.sleep(600)
'''
FAILS = '''"""
Fails
=====

A cell raises what no expect_error expects.
"""

# %%
import torch

from autograd_notes import check

check(torch.ones(2).sum(), 2.0, label="total")

# %%
torch.ones(2).backward()
'''
NO_NETWORK = (
    '"""\nNo network\n==========\n\nNo loopback.\n"""\n\n# %%\n'
    'raise RuntimeError("[enforce fail at ../gloo/transport/tcp/device.cc:83] Unable to find interface for: '
    '[127.0.0.1]")\n'
)
PROGRESS = re.compile(r"^\[(\d)/(\d)\] (\S+)  \d+\.\d s  (.+)$")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "gallery" / "01_x").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "fixture"\n', encoding="utf-8")
    scripts = (
        ("plot_fast", FAST),
        ("plot_crash", CRASH),
        ("plot_sleep", SLEEP),
        ("plot_fails", FAILS),
        ("plot_no_network", NO_NETWORK),
    )
    for name, script in scripts:
        (root / "gallery" / "01_x" / f"{name}.py").write_text(script, encoding="utf-8")
    monkeypatch.setenv("SLEEPER_PID", str(tmp_path / "sleeper.pid"))
    for variable in (DEVICE_VARIABLE, TIMEOUT_VARIABLE, "REQUIRE_CUDA"):
        monkeypatch.delenv(variable, raising=False)
    return root


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[Path]:
    """The pid file of the sleeping example; whatever is left of it is ended after the test."""
    path = tmp_path / "sleeper.pid"
    yield path
    if path.exists():
        pid = int(path.read_text())
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def progress(out: str) -> list[tuple[str, str]]:
    found = [PROGRESS.match(line) for line in out.splitlines()]
    return [(m.group(3), m.group(4)) for m in found if m]


def archive_content(path: Path) -> tuple[dict[str, Any], list[str]]:
    with tarfile.open(path) as tar:
        names = tar.getnames()
        manifest = tar.extractfile("manifest.json")
        assert manifest is not None
        return json.load(manifest), names


def test_a_crash_is_reported_and_the_run_goes_on(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "out" / "cpu.tar.gz"
    status = main(
        [
            "capture",
            "--root",
            str(project),
            "--jobs",
            "1",
            "--archive",
            str(archive),
            "plot_crash",
            "plot_fast",
        ]
    )
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert progress(out) == [("01_x/plot_crash.py", "no result"), ("01_x/plot_fast.py", "recorded")]
    lines = out.splitlines()
    assert lines[lines.index(next(line for line in lines if "plot_crash.py" in line)) + 1] == (
        "    its process ended without a record: exit status 3"
    )
    assert re.search(r"^captured 2 example\(s\) on cpu in \d+\.\d s \(\d at a time\)$", out, re.MULTILINE)
    assert "Not recorded (1): 01_x/plot_crash.py" in lines
    assert (project / "records" / "cpu" / "01_x" / "plot_fast.json").exists()
    assert not (project / "records" / "cpu" / "01_x" / "plot_crash.json").exists()
    manifest, names = archive_content(archive)
    assert names == ["manifest.json", "records/cpu/01_x/plot_fast.json"]
    assert [(r["example"], r["status"]) for r in manifest["results"]] == [
        ("01_x/plot_crash.py", "no result"),
        ("01_x/plot_fast.py", "recorded"),
    ]
    assert not archive.with_name("cpu.tar.gz.partial").exists()


def test_an_example_past_its_timeout_is_ended(
    project: Path, sleeper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.perf_counter()
    status = main(["capture", "--root", str(project), "--isolate", "--timeout", "6", "plot_sleep"])
    out, _ = capsys.readouterr()
    assert time.perf_counter() - start < 30
    assert status == 1
    assert progress(out) == [("01_x/plot_sleep.py", "timed out")]
    assert "    timed out after 6 s (--timeout): no record was made" in out.splitlines()
    assert not (project / "records").exists()
    if sleeper.exists():  # it started before the timeout: it is gone now
        with pytest.raises(ProcessLookupError):
            os.kill(int(sleeper.read_text()), 0)


def test_a_run_cut_off_leaves_what_it_recorded(project: Path, tmp_path: Path, sleeper: Path) -> None:
    archive = tmp_path / "cpu.tar.gz"
    command = [sys.executable, "-m", "autograd_notes", "capture", "--jobs", "1", "--archive", str(archive)]
    # SIGKILL leaves the run no time to remove its temporary folders: they stay in the test's own
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run = subprocess.Popen(
        [*command, "plot_fast", "plot_sleep"],
        cwd=project,
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert run.stdout is not None
    first = run.stdout.readline()
    deadline = time.monotonic() + 120
    while not sleeper.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    run.kill()  # the machine's time limit, in the middle of the second example
    run.communicate()
    assert progress(first) == [("01_x/plot_fast.py", "recorded")]
    record = load_record(project / "records" / "cpu" / "01_x" / "plot_fast.json")
    assert record is not None
    assert archive_content(archive)[1] == ["manifest.json", "records/cpu/01_x/plot_fast.json"]


def test_the_child_runs_on_the_device_with_the_package_and_a_later_inner_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", "elsewhere")
    monkeypatch.setenv(TIMEOUT_VARIABLE, "1")
    env = child_environment("cuda", 120)
    assert env[DEVICE_VARIABLE] == "cuda"
    assert float(env[TIMEOUT_VARIABLE]) > 120  # the process's timeout ends it first
    src = str(Path(__file__).resolve().parents[2] / "src")
    assert env["PYTHONPATH"].split(os.pathsep) == [src, "elsewhere"]


@pytest.mark.parametrize("value", ["0", "-1", "inf", "soon"])
def test_a_bad_timeout_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["capture", "--root", str(project), "--timeout", value])
    assert stop.value.code == 2
    assert "--timeout" in capsys.readouterr().err


def test_a_failed_cell_with_no_record_is_reported_not_recorded(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first capture of an example whose cell fails: no record says what that runner does."""
    archive = tmp_path / "out" / "cpu.tar.gz"
    status = main(["capture", "--root", str(project), "--archive", str(archive), "plot_fails", "plot_fast"])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert sorted(progress(out)) == [("01_x/plot_fails.py", "failed"), ("01_x/plot_fast.py", "recorded")]
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if "plot_fails.py" in line and line.startswith("[")))
    assert lines[at + 1].startswith("    cell 3 (lines 15-16): RuntimeError: element 0 of tensors does not")
    assert not (project / "records" / "cpu" / "01_x" / "plot_fails.json").exists()
    # the archive carries it, for ingest to refuse unless told otherwise
    _manifest, names = archive_content(archive)
    assert "records/cpu/01_x/plot_fails.json" in names
    ingested = main(["ingest", str(archive), "--root", str(project)])
    out, err = capsys.readouterr()
    assert ingested == 2
    assert "cpu/01_x/plot_fails.json: cell 3 (lines 15-16): RuntimeError: element 0" in err
    assert "--accept-failures" in err
    assert not (project / "records" / "cpu" / "01_x" / "plot_fails.json").exists()
    assert main(["ingest", str(archive), "--root", str(project), "--accept-failures"]) == 0
    written = load_record(project / "records" / "cpu" / "01_x" / "plot_fails.json")
    assert written is not None
    assert written["failures_accepted"] is True


def test_a_machine_that_cannot_start_a_process_group_records_it_as_not_available(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["capture", "--root", str(project), "--isolate", "plot_no_network"])
    out, err = capsys.readouterr()
    assert status == 0, out + err
    record = load_record(project / "records" / "cpu" / "01_x" / "plot_no_network.json")
    assert record is not None
    assert [cell["status"] for cell in record["cells"]] == ["ran", "unavailable"]


@pytest.mark.parametrize("value", ["nan", "0", "-1", "inf", "soon"])
def test_a_bad_verify_timeout_is_a_usage_error(capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["verify", "--timeout", value])
    assert stop.value.code == 2
    assert "--timeout" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("AUTOGRAD_NOTES_EXAMPLE_TIMEOUT", "abc"),
        ("AUTOGRAD_NOTES_EXAMPLE_TIMEOUT", "-1"),
        ("AUTOGRAD_NOTES_EXAMPLE_TIMEOUT", "nan"),
        ("AUTOGRAD_NOTES_OUTPUT_LIMIT_KIB", "0"),
        ("AUTOGRAD_NOTES_EXAMPLE_MEMORY", "lots"),
    ],
)
@pytest.mark.parametrize("command", ["capture", "verify"])
def test_a_bad_setting_is_one_line_and_exit_2_before_anything_runs(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    command: str,
) -> None:
    monkeypatch.setenv(variable, value)
    monkeypatch.chdir(tmp_path)
    where = ["--root", str(project)] if command == "capture" else ["--from", str(tmp_path)]
    assert main([command, *where]) == 2
    _out, err = capsys.readouterr()
    assert err.splitlines() == [err.strip()]
    assert err.startswith(f"error: {variable}={value!r}")
    assert not (project / "records").exists()


def test_names_from_outside_reach_the_terminal_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "downloads\x1b]2;owned\x07\x1b[2J"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--from", str(folder)]) == 2
    out, _err = capsys.readouterr()
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "downloads\\x1b]2;owned\\x07\\x1b[2J" in out


def test_two_jobs_make_the_records_and_archive_one_job_makes(project: Path, tmp_path: Path) -> None:
    """Side by side or one after another: the same records, and an archive of the same members in order."""

    def captured(jobs: str) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
        records, archive = tmp_path / f"records-{jobs}", tmp_path / f"{jobs}.tar.gz"
        examples = ["plot_fast", "plot_fails", "plot_crash"]
        command = ["capture", "--root", str(project), "--records", str(records), "--jobs", jobs]
        main([*command, "--archive", str(archive), *examples])
        manifest, names = archive_content(archive)
        made = {p.name: load_record(p) for p in records.rglob("*.json")}
        for record in made.values():
            assert record is not None
            record.pop("seconds", None)
        return manifest, names, made

    one, two = captured("1"), captured("2")
    assert one[1] == two[1]  # the same members, in the same order
    assert [r["example"] for r in one[0]["results"]] == [r["example"] for r in two[0]["results"]]
    assert [r["status"] for r in one[0]["results"]] == [r["status"] for r in two[0]["results"]]
    assert one[2] == two[2]


LEAVES = '''"""
Leaves
======

Starts a process of its own session that holds its output, then ends.
"""

# %%
import os
import subprocess
from pathlib import Path

child = subprocess.Popen(["sleep", "600"], start_new_session=True)
written = Path(os.environ["SLEEPER_PID"] + ".part")  # renamed whole: a reader never meets an empty file
written.write_text(str(child.pid))
os.replace(written, os.environ["SLEEPER_PID"])
print("started")
'''


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")  # a zombie is gone


def _ends(pid: int, *, within: float) -> bool:
    """Whether process ``pid`` is gone, or goes within ``within`` seconds."""
    deadline = time.monotonic() + within
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _alive(pid)


def test_what_an_example_started_in_its_own_session_ends_with_it(
    project: Path, sleeper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A child with a session of its own, holding the example's output: the run neither waits nor leaks."""
    (project / "gallery" / "01_x" / "plot_leaves.py").write_text(LEAVES, encoding="utf-8")
    start = time.perf_counter()
    status = main(["capture", "--root", str(project), "--isolate", "--timeout", "60", "plot_leaves"])
    out, _ = capsys.readouterr()
    assert time.perf_counter() - start < 50  # not the timeout: its output file is not waited for
    assert status == 0, out
    assert progress(out) == [("01_x/plot_leaves.py", "recorded")]
    assert _ends(int(sleeper.read_text()), within=5)


def test_a_run_ended_by_sigterm_ends_its_examples_and_leaves_no_folder(
    project: Path, tmp_path: Path, sleeper: Path
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run = subprocess.Popen(
        [sys.executable, "-m", "autograd_notes", "capture", "--isolate", "plot_sleep"],
        cwd=project,
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not sleeper.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sleeper.exists()
    run.send_signal(signal.SIGTERM)  # what `timeout` sends
    assert run.wait(timeout=30) == 128 + signal.SIGTERM
    assert not _alive(int(sleeper.read_text()))
    assert list(scratch.iterdir()) == []


THEN = '''"""
Then
====

Waits its turn behind the sleeper.
"""

# %%
import os
from pathlib import Path

Path(os.environ["SLEEPER_PID"]).with_name("then.ran").write_text("ran")
'''


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_run_starts_none_of_the_examples_still_waiting(
    project: Path, tmp_path: Path, sleeper: Path, signum: int
) -> None:
    """`timeout` (SIGTERM) or Ctrl-C (SIGINT) ends the run at once: a queued example never starts."""
    (project / "gallery" / "01_x" / "plot_then.py").write_text(THEN, encoding="utf-8")
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "autograd_notes",
            "capture",
            "--isolate",
            "--jobs",
            "1",
            "plot_sleep",
            "plot_then",
        ],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not sleeper.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sleeper.exists()
    started = time.monotonic()
    run.send_signal(signum)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 128 + signum, err
    assert time.monotonic() - started < 20  # not after the queued example ran
    assert not (tmp_path / "then.ran").exists()
    assert "plot_then" not in out
    assert not _alive(int(sleeper.read_text()))
    assert "Traceback" not in err


DAEMON = '''"""
Daemon
======

Leaves a process behind with its environment cleared.
"""

# %%
import os
from pathlib import Path

marker = Path(os.environ["SLEEPER_PID"])
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() == 0:
        marker.write_text(str(os.getpid()))
        os.execve("/bin/sleep", ["sleep", "600"], {})  # no mark of the run left in its environment
    os._exit(0)
os.waitpid(child, 0)
while not marker.exists():
    pass
print("left a daemon")
'''


def test_a_daemon_that_clears_its_environment_ends_with_its_example(
    project: Path, sleeper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A double fork with env={} escapes the run's mark: the run adopts the orphan and ends it."""
    (project / "gallery" / "01_x" / "plot_daemon.py").write_text(DAEMON, encoding="utf-8")
    status = main(["capture", "--root", str(project), "--isolate", "plot_daemon"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert progress(out) == [("01_x/plot_daemon.py", "recorded")]
    assert _ends(int(sleeper.read_text()), within=10)
