"""Run gallery scripts as a reader runs a download, many at a time: ``python _run_examples.py SPEC``.

``SPEC`` is a JSON file: ``{"runs": [[script, folder], ...], "env": {...}, "jobs": 2, "timeout": 300}``.
This process imports what every example imports (PyTorch, NumPy, matplotlib,
the helpers) once, then forks a child per script. The child is what
``python -W error <script>`` in ``folder`` would be, without paying for those
imports again: it enters ``folder``, turns every warning into an error, runs
the script as ``__main__`` and exits with its status. Its stdout and stderr go
to ``<folder>/stdout.txt`` and ``<folder>/stderr.txt``. What it prints is
``{script: status}`` as JSON; a script still running after ``timeout``
seconds is killed (status -14, SIGALRM).

A fresh interpreter per script stays covered where it matters: the reader
test (``tests/site/test_reader.py``) runs downloads with ``python`` in an
environment with only PyTorch.
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import traceback
import warnings
from pathlib import Path


def _child(script: Path, folder: Path, timeout: int) -> int:
    """Run ``script`` in ``folder`` as ``python -W error script`` would; return its exit status."""
    signal.alarm(timeout)
    os.chdir(folder)
    for stream, name in ((sys.stdout, "stdout.txt"), (sys.stderr, "stderr.txt")):
        target = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, stream.fileno())
        os.close(target)
    sys.argv = [str(script)]
    sys.path[0] = str(script.parent)
    warnings.simplefilter("error")
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def main(spec_file: str) -> int:
    spec = json.loads(Path(spec_file).read_text(encoding="utf-8"))
    os.environ.update(spec["env"])
    # what every example imports, once; no tensor operation runs before the forks
    import matplotlib.pyplot  # noqa: F401
    import numpy  # noqa: F401
    import torch

    # and what PyTorch imports the first time an example builds an optimizer (torch._dynamo)
    # or compares tensors (torch.distributed.tensor, for assert_close): most of a second each
    import torch._dynamo
    import torch.distributed.tensor  # noqa: F401

    import autograd_notes  # noqa: F401

    pending = [(Path(script), Path(folder)) for script, folder in spec["runs"]]
    running: dict[int, str] = {}
    statuses: dict[str, int] = {}
    while pending or running:
        while pending and len(running) < spec["jobs"]:
            script, folder = pending.pop(0)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                status = _child(script, folder, spec["timeout"])
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
            running[pid] = str(script)
        pid, wait_status = os.wait()
        statuses[running.pop(pid)] = os.waitstatus_to_exitcode(wait_status)
    print(json.dumps(statuses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
