"""Run a page's function on several processes of one process group, on this machine.

``run_ranks(train, world_size=2)`` starts ``world_size`` fresh Python
processes (*ranks*), joins them in a ``gloo`` process group through a file
in a temporary folder (no port to choose), calls ``train(rank, world_size)``
in each and returns what each returned, in rank order. What a rank printed,
warned and raised comes back to the page:

* its printed lines are printed by the page, each after ``[rank0]:`` (as
  ``torchrun --tee`` does);
* its warnings are warned again by the page, once each: the page's filters
  and ``expect_warning`` apply to them;
* an exception in a rank stops the others and is raised again by the page,
  of the same type and message, its traceback going on into the rank's
  own lines.

Each rank is started fresh (not forked) and gets the function as its
source, see :mod:`autograd_notes._ranks.shipping`: a page's function cannot be
imported by another process, and a fork made after a backward on a machine
with CUDA cannot run autograd. Each rank uses one thread for its
operations, so ranks do not compete for the cores.

A rank sends what happened before it leaves the group, and the page does
not wait for it to leave: on PyTorch 2.4 and 2.5, ``destroy_process_group``
of a ``gloo`` group may never return (a rank stopped there until the
timeout, and the page recorded a ``TimeoutError`` its function never
caused). A rank still there :data:`_LEAVE` seconds after every rank
answered is stopped.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import re
import subprocess
import sys
import tempfile
import time
import traceback
import types
import warnings
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from .._traceback import attach_remote_frames
from .shipping import pack, unpack

__all__ = ["DEFAULT_TIMEOUT", "run_ranks"]

DEFAULT_TIMEOUT = 180.0
"""Seconds the ranks may take together, starting Python and PyTorch included."""

_GRACE = 10.0
"""Seconds the other ranks get, after one failed, to fail or finish before they are stopped."""

_LEAVE = 3.0
"""Seconds the ranks get to leave the group and exit once they answered, before they are stopped."""

_CHILD = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from autograd_notes._ranks.run import _rank_main; _rank_main()"
)


def run_ranks(
    function: Callable[[int, int], Any], world_size: int = 2, *, timeout: float = DEFAULT_TIMEOUT
) -> list[Any]:
    """Call ``function(rank, world_size)`` on ``world_size`` ranks of a ``gloo`` group; return the results.

    ``function`` must be defined at the top level of the page (see the
    module's docstring for what it may use). Its results must pickle
    (tensors, numbers, lists, dictionaries). Raises :class:`TimeoutError`
    naming the ranks that had not finished after ``timeout`` seconds (they
    are stopped), and the first failing rank's exception when one fails.
    """
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"run_ranks needs a function defined with def, not {type(function).__name__}")
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, not {world_size}")
    payload = pickle.dumps((pack(function), world_size, timeout))
    root = str(Path(__file__).resolve().parents[2])  # the folder that holds autograd_notes
    # one thread per rank, set before torch starts (its OpenMP pool reads it) and again in the
    # rank (set_num_threads): ranks share the machine's cores, and more threads only compete
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory(prefix="ranks-") as folder:
        Path(folder, "package.pickle").write_bytes(payload)
        ranks = []
        for rank in range(world_size):
            with Path(folder, f"rank{rank}.stderr").open("wb") as stderr:  # a pipe could fill and block
                ranks.append(
                    subprocess.Popen(
                        [sys.executable, "-c", _CHILD, root, folder, str(rank)],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=stderr,
                        env=environment,
                    )
                )
        try:
            outcomes = _wait(ranks, Path(folder), timeout)
        finally:
            _stop(ranks)
    return _report(outcomes, world_size)


def _stop(ranks: list[subprocess.Popen[bytes]]) -> None:
    """Let the ranks exit for :data:`_LEAVE` seconds, then stop those still running."""
    deadline = time.monotonic() + _LEAVE
    for process in ranks:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait(ranks: list[subprocess.Popen[bytes]], folder: Path, timeout: float) -> list[dict[str, Any]]:
    """Each rank's outcome, or the first failure's alone; stop waiting after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    outcomes: dict[int, dict[str, Any]] = {}
    grace: float | None = None  # after a failure: how long the others may take to fail or finish
    while len(outcomes) < len(ranks):
        for rank, process in enumerate(ranks):
            if rank in outcomes:
                continue
            result = folder / f"rank{rank}.pickle"
            if result.exists():  # written whole (renamed into place), maybe before the rank left the group
                outcomes[rank] = pickle.loads(result.read_bytes())
            elif process.poll() is not None:  # died before it could say why: a crash, a signal
                stderr = (folder / f"rank{rank}.stderr").read_text(errors="replace")
                last = stderr.strip().splitlines()[-1:] or ["(nothing on stderr)"]
                error = RuntimeError(f"rank {rank} exited with code {process.returncode}: {last[0]}")
                # first among the failures: a rank that another's failure stops raises, it does not die
                outcomes[rank] = {"error": error, "failed_at": 0.0, "frames": [], "printed": ""}
                outcomes[rank]["warnings"] = []
        if grace is None and any("error" in outcome for outcome in outcomes.values()):
            grace = time.monotonic() + _GRACE
        if len(outcomes) < len(ranks):
            if grace is not None and time.monotonic() > grace:
                break
            if time.monotonic() > deadline:
                waiting = [str(rank) for rank in range(len(ranks)) if rank not in outcomes]
                raise TimeoutError(
                    f"rank {', '.join(waiting)} of {len(ranks)} had not finished after {timeout:g} s "
                    "and was stopped"
                )
            time.sleep(0.05)
    failed = [rank for rank, outcome in outcomes.items() if "error" in outcome]
    if failed:
        return [_first_failure(outcomes, failed)]
    return [outcomes[rank] | {"rank": rank} for rank in range(len(ranks))]


def _first_failure(outcomes: dict[int, dict[str, Any]], failed: list[int]) -> dict[str, Any]:
    """The failure to raise again: the earliest, as the lowest rank that raised the same error.

    A rank whose peer left the group fails in its next collective, later:
    the earliest failure is the cause. Ranks that raise the same error by
    themselves (the same type and message, but for the numbers in it)
    finish in any order; the lowest of them is named, so a page shows the
    same traceback at every run.
    """
    earliest = min(failed, key=lambda rank: (outcomes[rank]["failed_at"], rank))
    same = [rank for rank in failed if _kind(outcomes[rank]["error"]) == _kind(outcomes[earliest]["error"])]
    return outcomes[min(same)] | {"rank": min(same)}


def _kind(error: BaseException) -> tuple[type[BaseException], str]:
    """An error's type and message, its numbers left out: each rank may name itself in it (DDP does)."""
    return type(error), re.sub(r"\d+", "#", str(error))


def _report(outcomes: list[dict[str, Any]], world_size: int) -> list[Any]:
    """Print, warn and raise again what the ranks did; return their results."""
    for outcome in outcomes:
        for line in outcome["printed"].splitlines():
            print(f"[rank{outcome['rank']}]: {line}")
    seen: set[tuple[str, str, str, int]] = set()
    for outcome in outcomes:
        for category, message, filename, line in outcome["warnings"]:
            if (category.__name__, message, filename, line) not in seen:
                seen.add((category.__name__, message, filename, line))
                warnings.warn_explicit(message, category, filename, line)
    failed = [outcome for outcome in outcomes if "error" in outcome]
    if failed:
        error: BaseException = failed[0]["error"]
        attach_remote_frames(error, failed[0]["rank"], world_size, failed[0]["frames"])
        raise error
    return [outcome["result"] for outcome in outcomes]


def _portable(error: BaseException) -> BaseException:
    """``error`` itself if it survives pickling, else a RuntimeError with its type and message."""
    travels, copy = _round_trip(error)
    if travels and type(copy) is type(error) and str(copy) == str(error):
        return error
    return RuntimeError(f"{type(error).__name__}: {error}")


def _rank_main() -> None:
    """The rank's side: define the function, join the group, call it, write what happened."""
    folder, rank = Path(sys.argv[2]), int(sys.argv[3])
    package, world_size, timeout = pickle.loads((folder / "package.pickle").read_bytes())
    printed = io.StringIO()
    outcome: dict[str, Any] = {}
    failed_at: float | None = None  # when the function raised, before the rank left the group
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed):
        warnings.simplefilter("always")
        try:
            import torch
            import torch.distributed as dist

            torch.set_num_threads(1)
            function = unpack(package)
            init = (folder / "store").as_uri()
            dist.init_process_group(
                "gloo", init_method=init, rank=rank, world_size=world_size, timeout=timedelta(seconds=timeout)
            )
            try:
                outcome["result"] = function(rank, world_size)
            except Exception:
                failed_at = time.time()  # before leaving the group makes the others fail too
                raise
        except Exception as error:  # every failure goes back to the page
            frames = traceback.extract_tb(error.__traceback__)
            outcome = {
                # the ranks' common clock: which one failed first (joining the group: when it failed)
                "failed_at": time.time() if failed_at is None else failed_at,
                "error": _portable(error),
                "frames": [(f.filename, f.lineno, f.name) for f in frames],
            }
    outcome["printed"] = printed.getvalue()
    outcome["warnings"] = [
        (w.category if _pickles(w.category) else UserWarning, str(w.message), w.filename, w.lineno)
        for w in caught
    ]
    try:
        data = pickle.dumps(outcome)
    except Exception as error:  # a result that cannot travel is the page's mistake
        kind = type(outcome.get("result")).__name__
        outcome = outcome | {
            "error": TypeError(f"{package.function}() returned a {kind}, which cannot be sent back: {error}"),
            "failed_at": time.time(),
            "frames": [],
        }
        outcome.pop("result", None)
        data = pickle.dumps(outcome)
    partial = folder / f"rank{rank}.partial"
    partial.write_bytes(data)
    partial.rename(folder / f"rank{rank}.pickle")  # whole or absent when the parent looks
    _leave_group()


def _leave_group() -> None:
    """Leave the process group if this rank joined one: after its answer, as this may never return."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def _round_trip(value: Any) -> tuple[bool, Any]:
    """Whether ``value`` survives pickling, and the copy that came back (``None`` if it did not)."""
    try:
        return True, pickle.loads(pickle.dumps(value))
    except Exception:  # any value that fails to pickle, for any reason
        return False, None


def _pickles(value: Any) -> bool:
    return _round_trip(value)[0]
