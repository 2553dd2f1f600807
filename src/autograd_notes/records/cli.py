"""``python -m autograd_notes capture|drift``: record examples per runner, and report drift.

Needs PyTorch and this package only (no Sphinx), so it runs on a bare GPU
machine. See ``--help`` of each command.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import torch

from .._device import DEVICE_VARIABLE
from .compare import compare_records
from .notes import NOTES_FILE, build_notes, render_notes, site_address
from .record import (
    RUNNERS,
    Record,
    RecordError,
    capture_example,
    load_record,
    record_path,
    same_behaviour,
    write_record,
)
from .releases import PIN_FILE, RELEASES, pinned_torch, release_of, release_records
from .report import (
    ExampleResult,
    RunnerSkip,
    exit_status,
    render_json,
    render_text,
)
from .status import DriftStatus
from .timeline import load_timelines

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
            "widen the documented pattern), or change the pin first."
        )


def release_folder(root: Path, records: Path, torch_version: str, *, cuda_build: bool) -> Path:
    """Where ``capture --release`` writes: ``records/releases/<release>``.

    The pinned release's own build is the runner records (a copy under
    ``releases/`` would be a second truth); its CUDA build, which the registry
    serves as for every other release, is recorded there: against it, the
    timeline tells a difference of the build (pin_memory's message) from a
    difference of the release.
    """
    release = release_of(torch_version)
    if release == pinned_torch(root) and not cuda_build:
        raise UsageError(
            f"PyTorch {release} is the pinned release: its records are {records.name}/cpu "
            "(capture without --release); --release records the other releases, and the pinned "
            "release's CUDA build, for the timeline"
        )
    return release_records(records, release)


def comparison_records(root: Path, records: Path, torch_version: str) -> tuple[Path, str]:
    """The records a drift check compares with, and a sentence saying which.

    The pinned release compares with the runner records. Another release
    compares with its own release records where the timeline has them, so
    that what the timeline already shows for it is no drift; otherwise with
    the pinned release's.
    """
    release = release_of(torch_version)
    pinned = pinned_torch(root)
    if pinned is None or release == pinned:
        return records, ""
    own = release_records(records, release)
    if own.is_dir():
        return own, (
            f"PyTorch {release} is not the pinned {pinned}: compared with its own release records "
            f"({own.relative_to(records.parent).as_posix()}), what the timeline shows for it"
        )
    return records, (
        f"PyTorch {release} is not the pinned {pinned} and has no release records: compared with "
        f"{pinned}'s, so every difference between the two releases is reported"
    )


def select_runners(device: str) -> tuple[list[str], list[RunnerSkip]]:
    """Choose the runners for this machine; CUDA is skipped, or required by REQUIRE_CUDA=1."""
    wanted = list(RUNNERS) if device == "all" else [device]
    runners: list[str] = []
    skips: list[RunnerSkip] = []
    for runner in wanted:
        if runner == "cuda" and not torch.cuda.is_available():
            reason = f"no CUDA device is available to this PyTorch ({torch.__version__})"
            if os.environ.get(REQUIRE_CUDA) == "1":
                raise UsageError(f"cuda runner: {reason}, and {REQUIRE_CUDA}=1 requires it")
            skips.append(RunnerSkip(runner, f"{reason} (set {REQUIRE_CUDA}=1 to make this an error)"))
        else:
            runners.append(runner)
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
    """Capture one example on ``runner`` and compare it with its record, writing as allowed."""
    path = record_path(records, runner, example)
    old = load_record(path)
    with on_runner(runner):
        new = capture_example(root / "gallery", example, root)
    result = ExampleResult(example, runner, DriftStatus.SAME, now=new["runner"])
    if old is None:
        result.status = DriftStatus.RECORDED if (write_missing or accept) else DriftStatus.NO_RECORD
        if result.status == DriftStatus.RECORDED:
            write_record(path, new)
        return result
    result.before, result.recorded = old["runner"], old["recorded"]
    if same_behaviour(old, new):
        if "seconds" not in old and (write_missing or accept):
            # a record from before running times (capture): add it, change nothing else
            timed = Record(
                format=old["format"],
                example=old["example"],
                runner=old["runner"],
                recorded=old["recorded"],
                seconds=new["seconds"],
                cells=old["cells"],
            )
            write_record(path, timed)
        return result
    result.differences = compare_records(old, new)
    result.status = DriftStatus.ACCEPTED if accept else DriftStatus.DRIFT
    if accept:
        write_record(path, new)
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograd_notes", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    capture = commands.add_parser(
        "capture",
        help="run examples on one runner and record what they do",
        description="Run examples on one runner and write records for those that have none. "
        "A record that differs is reported and kept unless --accept is given.",
    )
    capture.add_argument("--device", choices=RUNNERS, default="cpu", help="the runner (default: cpu)")
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
        help="write this PyTorch release's records (records/releases/<version>/cpu), for the timeline",
    )
    notes = commands.add_parser(
        "release-notes",
        help="write what each release is recorded to do into the package (src/autograd_notes/"
        "release_notes.json)",
        description="Write the release notes the helper's drift messages read, from the records; "
        "--check only says whether the committed file is up to date (exit status 1 if not).",
    )
    notes.add_argument("--check", action="store_true", help="compare instead of writing")
    for command in (capture, drift, notes):
        command.add_argument("--root", type=Path, help="project folder (default: found from the current one)")
        command.add_argument("--records", type=Path, help="records folder (default: <root>/records)")
    for command in (capture, drift):
        command.add_argument("--accept", action="store_true", help="overwrite records that differ")
        command.add_argument("examples", nargs="*", help="examples, e.g. plot_retain_graph (default: all)")
    return parser


def release_notes(root: Path, records: Path, *, check: bool) -> int:
    """Write (or with ``check``, compare) the package's release notes; the exit status."""
    text = render_notes(build_notes(load_timelines(records), site_address(root)))
    path = root / NOTES_FILE
    if check:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            print(f"{NOTES_FILE.as_posix()} is up to date with {records.name}/")
            return 0
        print(
            f"{NOTES_FILE.as_posix()} is out of date with {records.name}/: "
            "run python -m autograd_notes release-notes",
            file=sys.stderr,
        )
        return 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {NOTES_FILE.as_posix()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        root = (args.root or find_root(Path.cwd())).resolve()
        records = (args.records or root / "records").resolve()
        if args.command == "release-notes":
            return release_notes(root, records, check=args.check)
        examples = select_examples(root / "gallery", args.examples)
        against = ""
        if getattr(args, "release", False):
            if args.device != "cpu":
                raise UsageError("release records are captured on the cpu runner (--device cpu)")
            cuda_build = torch.version.cuda is not None
            records = release_folder(root, records, torch.__version__, cuda_build=cuda_build)
        else:
            if args.accept or args.command == "capture":
                check_writes_this_release(root, torch.__version__)
            if args.command == "drift":
                records, against = comparison_records(root, records, torch.__version__)
        runners, skips = select_runners(args.device)
        results = [
            compare_example(
                root, records, runner, example, write_missing=args.command == "capture", accept=args.accept
            )
            for runner in runners
            for example in examples
        ]
    except (UsageError, RecordError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if against:
        print(against)
    print(render_text(results, skips))
    for result in results:
        if result.status in (DriftStatus.RECORDED, DriftStatus.ACCEPTED):
            verb = "wrote" if result.status == DriftStatus.RECORDED else "overwrote"
            path = record_path(records, result.runner, result.example)
            print(f"{verb} {(path.relative_to(root) if path.is_relative_to(root) else path).as_posix()}")
    if getattr(args, "json", None):
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(render_json(results, skips), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    if against and records.parent.name == RELEASES and any(r.status == DriftStatus.DRIFT for r in results):
        print(
            f"These are the release records of PyTorch {records.name}, not the pinned release's: "
            "to record what it does now, run `python -m autograd_notes capture --release --accept` with it.",
            file=sys.stderr,
        )
    if args.command == "capture" and any(r.status == DriftStatus.DRIFT for r in results):
        print("capture: records that differ were kept; pass --accept to overwrite them", file=sys.stderr)
    return exit_status(results)
