"""Capture against a plain run of the examples: what recording costs, on this PyTorch.

Run in an environment with PyTorch and autograd-notes (``nox -s timeline``
runs it in every release's environment after the capture)::

    python benchmarks/capture_ratio.py [--json]

In this one process, every example runs three times:

1. plainly, to warm up (imports, kernels, font caches), not counted;
2. plainly, as a reader runs a download (``runpy``, in the script's folder,
   with the per-example reset of a build); a ``BehaviourDrift`` of an older
   release ends that example as it would end the reader's run;
3. through :func:`~autograd_notes.records.format.record.capture_example`, cell by
   cell with every check's event recorded and outputs normalised: what
   ``capture`` does per example.

It prints both times and their ratio (goal: at most 1.5); ``--json`` prints
one JSON line instead. Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import runpy
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from autograd_notes.records.capture.cells import capture_example
from autograd_notes.records.capture.reset import reset_example

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "gallery"
GOAL = 1.5


def run_plainly(script: Path) -> None:
    """Run one example as a reader's ``python plot_x.py`` would, output discarded."""
    previous = Path.cwd()
    os.chdir(script.parent)
    reset_example({}, script.name, "before")
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runpy.run_path(str(script), run_name="__main__")
    except Exception:
        pass
    finally:
        reset_example({}, script.name, "after")
        os.chdir(previous)


def main() -> int:
    """Measure and print; exit status 0 (times are never a failure)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    examples = sorted(p.relative_to(GALLERY).as_posix() for p in GALLERY.glob("*/plot_*.py"))
    for example in examples:
        run_plainly(GALLERY / example)
    start = time.perf_counter()
    for example in examples:
        run_plainly(GALLERY / example)
    plain = time.perf_counter() - start
    start = time.perf_counter()
    for example in examples:
        capture_example(GALLERY, example, ROOT)
    captured = time.perf_counter() - start
    ratio = captured / plain if plain else float("inf")
    import torch

    if args.json:
        print(
            json.dumps(
                {
                    "torch": torch.__version__,
                    "examples": len(examples),
                    "plain_s": plain,
                    "capture_s": captured,
                    "ratio": ratio,
                }
            )
        )
    else:
        print(f"PyTorch {torch.__version__}, {len(examples)} examples in one process")
        print(f"  plain run:  {plain:6.1f} s")
        print(f"  capture:    {captured:6.1f} s")
        print(f"  ratio:      {ratio:6.2f}  (goal <= {GOAL}){'' if ratio <= GOAL else '  MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
