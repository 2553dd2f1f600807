"""``python -m autograd_notes capture|drift|ingest|verify|changes|explain``: record, drift, merge, explain.

Needs PyTorch, NumPy and matplotlib only (no Sphinx, no nox, no network), so
it runs from a plain copy of the source tree (``PYTHONPATH=src``) on a bare
GPU machine. See ``--help`` of each command.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import torch

from .._device import DEVICE_VARIABLE, device_available
from .._explain.cli import explain_parser, run_explain
from .capture.cells import capture_example
from .capture.device_details import runner_metadata
from .capture.isolated import (
    DEFAULT_TIMEOUT_S,
    check_settings,
    end_with_the_run,
    positive_jobs,
    positive_seconds,
)
from .capture.limits import OutputLimitError
from .capture_run import Destination, compare_captured, run_captures
from .drift.baseline import ACCEPT_PINNED, comparison_records, recorded_releases
from .drift.report import (
    ExampleResult,
    RunnerSkip,
    exit_status,
    render_earlier,
    render_json,
    render_text,
)
from .exchange.ingest import ingest_command
from .exchange.verify import add_verify_parser, verify_command
from .format.record import record_path
from .format.record_format import DEVICES, RUNNERS, RecordError
from .format.status import DriftStatus
from .history.changelog import release_change_lines
from .history.notes import release_notes_command
from .history.releases import PIN_FILE, pinned_torch, release_of, release_records
from .history.runners import earlier_records

__all__ = ["main"]

REQUIRE_CUDA = "REQUIRE_CUDA"


class UsageError(Exception):
    """Bad arguments: exit status 2 with the message."""


def find_root(start: Path) -> Path:
    """Return the project folder: the nearest above ``start`` with ``gallery/`` and ``pyproject.toml``."""
    for folder in [start, *start.parents]:
        if (folder / "gallery").is_dir() and (folder / "pyproject.toml").is_file():
            return folder
    raise UsageError(f"no project with gallery/ and pyproject.toml above {start}; pass --root")


def select_examples(gallery: Path, wanted: list[str]) -> list[str]:
    """Gallery-relative paths of the examples named (all when none are)."""
    every = sorted(p.relative_to(gallery).as_posix() for p in gallery.glob("*/plot_*.py"))
    if not every:
        raise UsageError(f"no examples ({gallery.name}/*/plot_*.py) in {gallery.parent}")
    if not wanted:
        return every
    chosen: list[str] = []
    for name in wanted:
        key = Path(name).as_posix().removeprefix("gallery/")
        matches = [
            e for e in every if key in (e, Path(e).name, Path(e).stem, Path(e).with_suffix("").as_posix())
        ]
        if not matches:
            raise UsageError(f"no example {name!r} in {gallery.name}/ (examples are e.g. {every[0]})")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


def check_writes_this_release(root: Path, torch_version: str) -> None:
    """Refuse to write runner records from a PyTorch other than the pinned one.

    ``records/<runner>`` holds what the pinned release does: a run on another
    release (a drift check with ``AUTOGRAD_NOTES_TORCH``) that wrote its results
    there would make every later run of the pinned release drift. The build
    variant (``+cpu``, ``+cu128``) does not count: the same release on a GPU
    machine writes the CUDA records.
    """
    pinned = pinned_torch(root)
    if pinned is not None and release_of(torch_version) != pinned:
        raise UsageError(
            f"this is PyTorch {torch_version}, but the records are those of the pinned PyTorch {pinned} "
            f"({PIN_FILE.as_posix()}): writing them from another release would make the pinned one drift. "
            "Run drift without --accept to see the differences, then change the page (raise the floor, "
            "widen the documented pattern), or change the pin first. To record what this release does, "
            "for the timeline, add --release."
        )


def release_target(root: Path, records: Path, torch_version: str, device: str) -> tuple[Path, str]:
    """Where ``capture --release --device <device>`` writes, and a sentence when it is the runner records.

    Any release on any device: ``records/releases/<release>`` (its ``<device>``
    folder). The pinned release's own builds are the runner records the pages
    show, ``records/cpu`` and ``records/cuda`` (a copy under ``releases/`` would
    be a second truth), so there it writes those: one command records any
    release on any machine. The pinned release's CUDA build run on the CPU, as
    the registry serves it for every other release, is a release record: against
    it, the timeline tells a difference of the build (pin_memory's message) from
    a difference of the release.
    """
    release = release_of(torch_version)
    cuda_build_on_cpu = device == "cpu" and torch.version.cuda is not None
    if release == pinned_torch(root) and device in RUNNERS and not cuda_build_on_cpu:
        return records, (
            f"PyTorch {release} is the pinned release: its {device} records are the runner records, "
            f"{records.name}/{device}"
        )
    return release_records(records, release), ""


def select_runners(device: str, *, required: bool = False) -> tuple[list[str], list[RunnerSkip]]:
    """Choose the runners for this machine.

    CUDA is skipped when missing, unless ``REQUIRE_CUDA=1`` or ``required``
    (an ``--archive`` run, which has nothing to archive without it) makes that
    an error; MPS and XPU, only ever named on purpose, are an error when missing.
    """
    wanted = list(RUNNERS) if device == "all" else [device]
    runners: list[str] = []
    skips: list[RunnerSkip] = []
    for runner in wanted:
        if device_available(runner):
            runners.append(runner)
            continue
        reason = f"no {runner.upper()} device is available to this PyTorch ({torch.__version__})"
        if runner != "cuda" or required:
            raise UsageError(f"{runner} runner: {reason}")
        if os.environ.get(REQUIRE_CUDA) == "1":
            raise UsageError(f"cuda runner: {reason}, and {REQUIRE_CUDA}=1 requires it")
        skips.append(RunnerSkip(runner, f"{reason} (set {REQUIRE_CUDA}=1 to make this an error)"))
    return runners, skips


@contextlib.contextmanager
def on_runner(runner: str) -> Iterator[None]:
    """Point :func:`~autograd_notes.runner_device` at ``runner`` inside the block."""
    before = os.environ.get(DEVICE_VARIABLE)
    os.environ[DEVICE_VARIABLE] = runner
    try:
        yield
    finally:
        if before is None:
            del os.environ[DEVICE_VARIABLE]
        else:
            os.environ[DEVICE_VARIABLE] = before


def compare_example(
    root: Path, records: Path, runner: str, example: str, *, write_missing: bool, accept: bool
) -> ExampleResult:
    """Capture one example on ``runner`` in this process and compare it with its record."""
    with on_runner(runner):
        new = capture_example(root / "gallery", example, root)
    return compare_captured(records, runner, example, new, write_missing=write_missing, accept=accept)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograd_notes", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    capture = commands.add_parser(
        "capture",
        help="run examples on one runner and record what they do",
        description="Run examples on one runner and write records for those that have none. "
        "A record that differs is reported and kept unless --accept is given.",
    )
    capture.add_argument(
        "--device",
        choices=DEVICES,
        default="cpu",
        help="the runner (default: cpu); mps and xpu with --release only",
    )
    drift = commands.add_parser(
        "drift",
        help="re-capture and compare with the committed records",
        description="Re-capture examples on the runners this machine has and compare them with the "
        "committed records. Exit status 1 on any difference or missing record. Records are only "
        "written with --accept.",
    )
    drift.add_argument("--device", choices=(*RUNNERS, "all"), default="all", help="runners (default: all)")
    drift.add_argument("--json", type=Path, metavar="PATH", help="also write the report as JSON to PATH")
    capture.add_argument(
        "--release",
        action="store_true",
        help="record whatever PyTorch this is: records/releases/<version>/<device> (the pinned "
        "release's CUDA records: records/cuda), for the timeline and the runners",
    )
    capture.add_argument(
        "--archive",
        type=Path,
        metavar="FILE.tar.gz",
        help="also write every record of the run into one file, rewritten after each example "
        "(python -m autograd_notes ingest adds it to records/)",
    )
    capture.add_argument(
        "--isolate",
        action="store_true",
        help="run each example in a fresh process, with a timeout and a progress line "
        "(always so on a GPU and with --archive)",
    )
    capture.add_argument(
        "--jobs",
        type=positive_jobs,
        default=os.cpu_count() or 1,
        metavar="N",
        help="examples run side by side, each in its own process (default: the machine's CPUs, "
        f"{os.cpu_count() or 1} here); on one GPU they share it",
    )
    capture.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"how long one example's process may run (default: {DEFAULT_TIMEOUT_S:g})",
    )
    merge = commands.add_parser(
        "ingest",
        help="add a record archive (capture --archive) to records/, checking all of it first",
        description="Check a record archive whole (its members' names and sizes, every record "
        "against the gallery's scripts) and add its records to records/. A record that differs "
        "from the committed one is kept, and reported, unless --accept is given. Exit status 2 "
        "when the archive is refused (nothing is written), 1 when a differing record was kept.",
    )
    merge.add_argument("archive", type=Path, help="the archive, e.g. autograd-notes-2.11.0-cuda.tar.gz")
    merge.add_argument("--accept", action="store_true", help="replace committed records that differ")
    merge.add_argument(
        "--accept-failures",
        action="store_true",
        help="also write records with a cell that failed with an exception no record has (marked so)",
    )
    notes = commands.add_parser(
        "release-notes",
        help="write what each release is recorded to do into the package (src/autograd_notes/"
        "release_notes.json)",
        description="Write the release notes the helper's drift messages read, from the records; "
        "--check only says whether the committed file is up to date (exit status 1 if not).",
    )
    notes.add_argument("--check", action="store_true", help="compare instead of writing")
    changes = commands.add_parser(
        "changes",
        help="print what changed in each release against the recorded release before it",
        description="Print, for each release named (default: every recorded one), what changed against "
        "the recorded release before it, one line per change, as the timeline page's changelog says it.",
    )
    changes.add_argument("releases", nargs="*", help="releases, e.g. 2.15.0 (default: all recorded)")
    add_verify_parser(commands)
    explain_parser(commands)
    for command in (capture, drift, notes, merge, changes):
        command.add_argument("--root", type=Path, help="project folder (default: found from the current one)")
        command.add_argument("--records", type=Path, help="records folder (default: <root>/records)")
    for command in (capture, drift):
        command.add_argument("--accept", action="store_true", help="overwrite records that differ")
        command.add_argument("examples", nargs="*", help="examples, e.g. plot_retain_graph (default: all)")
    return parser


def _lagging(
    root: Path, records_root: Path, records: Path, results: list[ExampleResult]
) -> list[tuple[Path, int]]:
    """The records of an earlier version of their page that the report does not list as drift already."""
    drifted = {
        record_path(records, result.runner, result.example).relative_to(records_root)
        for result in results
        if result.status == DriftStatus.DRIFT
    }
    found = earlier_records(records_root, root / "gallery")
    return [(path, line) for path, line in found if path not in drifted]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (SIGTERM's handler as it was, after it)."""
    before = signal.getsignal(signal.SIGTERM)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C: what was written stays, what ran has ended; no traceback
        print("interrupted: the records and archive written so far are kept", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, before)


def _main(argv: list[str] | None) -> int:
    """The command line's work."""
    args = _parser().parse_args(argv)
    if args.command in ("capture", "drift", "verify"):
        try:  # every variable a run obeys, before anything runs
            check_settings()
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        end_with_the_run()
    if args.command == "verify":  # a reader's machine: the installed package only, no project
        return verify_command(args)
    if args.command == "explain":
        return run_explain(args)
    try:
        root = (args.root or find_root(Path.cwd())).resolve()
        records = (args.records or root / "records").resolve()
        if args.command == "release-notes":
            return release_notes_command(root, records, check=args.check)
        if args.command == "ingest":
            return ingest_command(
                root, records, args.archive, accept=args.accept, accept_failures=args.accept_failures
            )
        if args.command == "changes":
            print("\n".join(release_change_lines(records, args.releases or recorded_releases(records))))
            return 0
        examples = select_examples(root / "gallery", args.examples)
        records_root, against, advice = records, "", ACCEPT_PINNED
        if getattr(args, "release", False):
            records, against = release_target(root, records, torch.__version__, args.device)
            advice = (
                f"Then record what PyTorch {release_of(torch.__version__)} does now with "
                "`python -m autograd_notes capture --release --accept`."
            )
        else:
            if args.command == "capture" and args.device not in RUNNERS:
                raise UsageError(f"{args.device} records are release records: add --release")
            if args.accept or args.command == "capture":
                check_writes_this_release(root, torch.__version__)
            if args.command == "drift":
                baseline = comparison_records(root, records, torch.__version__)
                records, against, advice = baseline.records, baseline.sentence, baseline.advice
        archive = getattr(args, "archive", None)
        runners, skips = select_runners(args.device, required=archive is not None)
        if args.command == "capture" and runners and (args.isolate or archive or args.device != "cpu"):
            if against:
                print(against, flush=True)
                against = ""
            with on_runner(args.device):
                runner = runner_metadata()
            place = (records / args.device).relative_to(records_root).as_posix()
            where = Destination(records, args.device, archive, place)
            results = run_captures(
                root, examples, runner, where, timeout=args.timeout, accept=args.accept, jobs=args.jobs
            )
        else:
            results = [
                compare_example(
                    root,
                    records,
                    runner,
                    example,
                    write_missing=args.command == "capture",
                    accept=args.accept,
                )
                for runner in runners
                for example in examples
            ]
    except (UsageError, RecordError, OutputLimitError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if against:
        print(against)
    print(render_text(results, skips, advice=advice))
    earlier = _lagging(root, records_root, records, results) if args.command == "drift" else []
    if earlier:
        print("\n".join(render_earlier(earlier)))
    for result in results:
        if result.status in (DriftStatus.RECORDED, DriftStatus.ACCEPTED):
            verb = "wrote" if result.status == DriftStatus.RECORDED else "overwrote"
            path = record_path(records, result.runner, result.example)
            print(f"{verb} {(path.relative_to(root) if path.is_relative_to(root) else path).as_posix()}")
    if getattr(args, "json", None):
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(render_json(results, skips, earlier), indent=1, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
    if getattr(args, "archive", None) and args.archive.exists():
        print(
            f"archive: {args.archive} (bring it back, then: "
            f"python -m autograd_notes ingest {args.archive.name})"
        )
    if args.command == "capture" and any(r.status == DriftStatus.DRIFT for r in results):
        print("capture: records that differ were kept; pass --accept to overwrite them", file=sys.stderr)
    return exit_status(results)
