"""``python -m autograd_notes verify``: run the downloaded examples here, say what holds, archive it.

For a reader who installed the helper package from the site (``pip install
autograd-notes --find-links <site>/packages/``), with the examples downloaded
from it (:mod:`.downloaded`: the scripts in a folder, or the download-all
archive ``examples_python.zip``). Each example runs in a fresh process with a
timeout (:mod:`.isolated`), as the gallery script it was downloaded from, so
its record has the gallery's line numbers. Then, per example, it says whether
the page's checks hold here, where one differs (the downloaded file's line,
what the page documents, what happened, the page's address), or that this
PyTorch lacks an API the example calls (:func:`judge`).

The records go into ``autograd-notes-<release>-<device>.tar.gz``, an archive
of :mod:`.archive`'s format that ``ingest`` adds to a checkout's ``records/``
(see CONTRIBUTING.md, "Contribute your machine's results"). Only the English
downloads are archived: a translated download's text cells have other lines
than the gallery script's. The archive holds no path of this machine: the
examples run from a temporary folder whose path the records leave out, and
any home, working or download folder a message names is replaced
(:func:`scrub`). It needs the installed package only: no project checkout,
no gallery, no Sphinx.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import torch

from ..._device import device_available
from ..._events import Event
from ..._release_notes import pinned_release, recorded_difference, site_root
from ..capture.isolated import DEFAULT_TIMEOUT_S, capture_isolated, positive_seconds
from ..format.record_format import DEVICES, RUNNERS, Record, Runner
from ..format.status import DriftStatus, Word
from ..format.terminal import printable
from ..history.releases import RELEASES, release_of
from .archive import ARCHIVE_FORMAT, Manifest, RunResult, write_archive
from .downloaded import Download, DownloadError, find_downloads

__all__ = [
    "Finding",
    "Verdict",
    "add_verify_parser",
    "archive_name",
    "judge",
    "runner_place",
    "scrub",
    "verify_command",
]

_WIDTH = 160
_VERDICT_WIDTH = 37  # the summary's column of verdicts: the longest and a space
"""The most characters of a documented or observed text the summary shows."""


class Verdict(Word):
    """What running one downloaded example here showed."""

    HOLDS = "holds"
    RECORDED = "differs as recorded for this release"
    """Every check that differs does what the site recorded this PyTorch release doing there."""
    DIFFERS = "differs"
    NOT_AVAILABLE = "not available in this release"
    """A cell calls an API this PyTorch does not have."""
    NO_RESULT = "no result"
    """Its process timed out or ended without a record."""


@dataclass(frozen=True)
class Finding:
    """One example's verdict, where (a line of the script as the gallery numbers it) and what."""

    verdict: Verdict
    line: int | None = None
    documented: str = ""
    happened: str = ""


@dataclass(frozen=True)
class _Ran:
    download: Download
    finding: Finding
    seconds: float
    record: Record | None


def _traceback_line(output: list[str], example: str) -> int | None:
    pattern = re.compile(rf'File "gallery/{re.escape(example)}", line (\d+)')
    lines = [int(found[1]) for text in output for found in pattern.finditer(text)]
    return lines[-1] if lines else None


def _last_line(output: list[str]) -> str:
    return next((text.strip() for text in reversed(output) if text.strip()), "")


def _difference(event: Event) -> Finding:
    """A check that does not hold: where, what the page documents and what happened here."""
    if event["kind"] == "value":
        label = f"{event['label']}: " if event["label"] else ""
        return Finding(Verdict.DIFFERS, event["line"], label + event["documented"], label + event["value"])
    if event["kind"] == "error":
        raised = event["raised"]
        happened = f"{raised}: {event['message']}" if raised else "nothing was raised"
        return Finding(Verdict.DIFFERS, event["line"], event["documented"], happened)
    warned = "; ".join(f"{w['category']}: {w['message']}" for w in event["warnings"])
    return Finding(Verdict.DIFFERS, event["line"], event["documented"], warned or "no warning")


def judge(record: Record, script: Path) -> Finding:
    """The verdict of a record: its first check that does not hold, or cell that failed, in order.

    A check that does not hold, or a cell that raised what the page does not
    document, *differs*; where every check that does not hold is one the site
    records this PyTorch release doing otherwise (``release_notes.json``, what
    the download itself said when it went on), it *differs as recorded for this
    release*; a cell that failed because an API is missing from this PyTorch is
    *not available in this release*; otherwise it *holds*. ``script`` is the file
    that ran, whose lines of code find each check in the release notes.
    """
    example, release = record["example"], record["runner"]["torch"]
    recorded: Finding | None = None
    for cell in record["cells"]:
        for found in (_difference(event) for event in cell["events"] if not event["holds"]):
            if not found.line or not recorded_difference(
                example, found.line, found.documented, release, str(script)
            ):
                return found
            recorded = recorded or dataclasses.replace(found, verdict=Verdict.RECORDED)
        if cell["status"] in ("failed", "unavailable"):
            line = _traceback_line(cell["output"], example) or cell["lines"][0]
            verdict = Verdict.NOT_AVAILABLE if cell["status"] == "unavailable" else Verdict.DIFFERS
            return Finding(verdict, line, "this cell runs without an error", _last_line(cell["output"]))
    return recorded or Finding(Verdict.HOLDS)


def runner_place(release: str, device: str, pinned: str | None, *, cuda_build: bool) -> str:
    """The runner's folder in ``records/`` for a record of ``release`` on ``device``.

    As ``capture --release`` places them: the pinned release's own builds on
    the CPU and CUDA are the runner records (``cpu``, ``cuda``); anything else
    (another release, MPS, a CUDA build run on the CPU) is a release record,
    ``releases/<release>/<device>``.
    """
    if release == pinned and device in RUNNERS and not (device == "cpu" and cuda_build):
        return device
    return f"{RELEASES}/{release}/{device}"


def archive_name(release: str, device: str) -> str:
    """``autograd-notes-<release>-<device>.tar.gz``."""
    return f"autograd-notes-{release}-{device}.tar.gz"


def _private_paths() -> dict[str, str]:
    """Folders of this machine that a message may name, longest first, and what stands for each."""
    found: dict[str, str] = {}
    for folder, stand_in in ((Path.cwd(), "."), (Path.home(), "~")):
        for form in {str(folder), str(folder.resolve()), folder.resolve().as_posix()}:
            if len(Path(form).parts) > 1:
                found[form] = stand_in
    return dict(sorted(found.items(), key=lambda item: -len(item[0])))


def scrub(value: object, paths: dict[str, str]) -> object:
    """``value`` (a record, parsed JSON) with every string's mention of ``paths`` replaced."""
    if isinstance(value, str):
        for path, stand_in in paths.items():
            value = value.replace(path, stand_in)
        return value
    if isinstance(value, list):
        return [scrub(item, paths) for item in value]
    if isinstance(value, dict):
        return {key: scrub(item, paths) for key, item in value.items()}
    return value


def choose_device(choice: str) -> str:
    """The device ``--device`` names; ``auto``: CUDA, MPS or XPU where this PyTorch has one, else the CPU."""
    if choice == "auto":
        return next((d for d in ("cuda", "mps", "xpu") if device_available(d)), "cpu")
    if not device_available(choice):
        raise DownloadError(f"--device {choice}: this PyTorch ({torch.__version__}) has no {choice} device")
    return choice


def _run(download: Download, root: Path, device: str, timeout: float, paths: dict[str, str]) -> _Ran:
    script = root / "gallery" / download.example
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(download.script, encoding="utf-8")
    outcome = capture_isolated(root, download.example, device, timeout)
    if outcome.record is None:
        why = f"timed out after {timeout:g} s (--timeout)" if outcome.timed_out else outcome.output
        return _Ran(
            download, Finding(Verdict.NO_RESULT, happened=_last_line(why.splitlines())), outcome.seconds, None
        )
    record = cast("Record", scrub(outcome.record, paths))
    return _Ran(download, judge(record, script), outcome.seconds, record)


def _short(text: str) -> str:
    shown = printable(" ".join(text.split()))
    return shown if len(shown) <= _WIDTH else shown[: _WIDTH - 1] + "…"


def _where(ran: _Ran) -> str:
    finding, download = ran.finding, ran.download
    file = download.name
    return f"{file}:{download.download_line(finding.line)}" if finding.line is not None else file


def render_summary(ran: list[_Ran], runner: Runner | None, seconds: float) -> list[str]:
    """The summary: counts per verdict, then where each example that does not hold stands."""
    translated = sum(r.download.translated for r in ran)
    languages = f" ({len(ran) - translated} English, {translated} translated)" if translated else ""
    head = f"{len(ran)} download(s){languages} in {seconds:.1f} s"
    if runner is not None:
        head += (
            f" on {runner['device']} ({_short(runner['device_name'])}), PyTorch {runner['torch']}, "
            f"Python {runner['python']}"
        )
    lines = [head]
    for verdict in Verdict:
        count = sum(r.finding.verdict == verdict for r in ran)
        if count:
            lines.append(f"  {verdict:<{_VERDICT_WIDTH}} {count}")
    for item in ran:
        finding = item.finding
        if finding.verdict == Verdict.HOLDS:
            continue
        lines.append(f"{finding.verdict}: {_where(item)}")
        if finding.documented:
            lines.append(f"  the page documents: {_short(finding.documented)}")
        if finding.happened:
            lines.append(f"  here:               {_short(finding.happened)}")
        lines.append(f"  page: {item.download.address}")
    return lines


def _manifest(ran: list[_Ran], runner: Runner) -> Manifest:
    results = [
        RunResult(
            example=r.download.example,
            status=str(
                DriftStatus.RECORDED
                if r.record is not None
                else DriftStatus.TIMED_OUT
                if r.finding.happened.startswith("timed out")
                else DriftStatus.NO_RESULT
            ),
            seconds=round(r.seconds, 1),
        )
        for r in ran
        if not r.download.translated
    ]
    return Manifest(
        format=ARCHIVE_FORMAT, release=release_of(runner["torch"]), runner=runner, members=[], results=results
    )


def verify(
    downloads: list[Download], device: str, timeout: float, archive: Path | None
) -> tuple[list[_Ran], Runner | None]:
    """Run every download on ``device``, a progress line each; rewrite ``archive`` after each."""
    paths = _private_paths()
    ran: list[_Ran] = []
    archived: dict[str, Record] = {}
    runner: Runner | None = None
    width = len(str(len(downloads)))
    with tempfile.TemporaryDirectory(prefix="autograd-notes-verify-") as scratch:
        root = Path(scratch).resolve()
        # a project's marker: tracebacks name the script gallery/<example>, as a capture's do
        (root / "pyproject.toml").write_text("", encoding="utf-8")
        for index, download in enumerate(downloads, start=1):
            item = _run(download, root, device, timeout, paths)
            ran.append(item)
            print(
                printable(
                    f"[{index:>{width}}/{len(downloads)}] {download.example}"
                    f"{f' [{download.language}]' if download.translated else ''}  {item.seconds:.1f} s  "
                    f"{item.finding.verdict}"
                ),
                flush=True,
            )
            if item.record is None:
                continue
            runner = runner or item.record["runner"]
            if archive is not None and not download.translated:
                release = release_of(runner["torch"])
                place = runner_place(
                    release, runner["device"], pinned_release(), cuda_build=runner["cuda"] is not None
                )
                archived[f"{place}/{Path(download.example).with_suffix('.json').as_posix()}"] = item.record
                write_archive(archive, archived, _manifest(ran, runner))
    return ran, runner


def add_verify_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``verify`` to the command line's subcommands."""
    verify_parser = commands.add_parser(
        "verify",
        help="run the examples downloaded from the site on this machine, and archive the records",
        description="Run the examples downloaded from the site (a folder of plot_*.py, or the "
        "download-all archive examples_python.zip) on this machine, each in a fresh process. Say per "
        "example whether the page's checks hold here, and write the records into "
        "autograd-notes-<release>-<device>.tar.gz, to send to the project. Exit status 1 when an "
        "example differs from its page in a way the site has not recorded this release doing, or gave "
        "no result.",
    )
    verify_parser.add_argument(
        "examples", nargs="*", help="examples to run, e.g. plot_retain_graph (default: every one found)"
    )
    verify_parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=Path(),
        metavar="FOLDER|ZIP",
        help="where the downloads are: a folder (its plot_*.py, or its examples_python.zip) or the "
        "zip itself (default: the current folder)",
    )
    verify_parser.add_argument(
        "--device",
        choices=("auto", *DEVICES),
        default="auto",
        help="where to run (default: auto, a GPU if any)",
    )
    verify_parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"how long one example's process may run (default: {DEFAULT_TIMEOUT_S:g})",
    )
    verify_parser.add_argument(
        "--archive",
        type=Path,
        metavar="FILE.tar.gz",
        help="where to write the archive (default: autograd-notes-<release>-<device>.tar.gz here)",
    )


def _selected(downloads: list[Download], wanted: list[str]) -> list[Download]:
    if not wanted:
        return downloads
    chosen: list[Download] = []
    for name in wanted:
        key = Path(name).as_posix().removesuffix(".py")
        matches = [d for d in downloads if key in (d.example.removesuffix(".py"), Path(d.example).stem)]
        if not matches:
            raise DownloadError(
                f"no example {name!r} among the downloads (they are e.g. {downloads[0].example})"
            )
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


def verify_command(args: argparse.Namespace) -> int:
    """``verify``: run, print the summary and where the archive is; the exit status."""
    try:
        found = find_downloads(args.source)
        downloads = _selected(found.downloads, args.examples)
        device = choose_device(args.device)
    except DownloadError as error:
        print(f"error: {printable(str(error))}", flush=True)
        return 2
    release = release_of(torch.__version__)
    archive = (args.archive or Path(archive_name(release, device))).absolute()
    archive.unlink(missing_ok=True)  # a previous run's: this run writes its own
    start = time.perf_counter()
    ran, runner = verify(downloads, device, args.timeout, archive)
    print()
    # names and addresses come from the downloads: a terminal shows them, never obeys them
    print("\n".join(map(printable, render_summary(ran, runner, time.perf_counter() - start))))
    if found.left_out:
        print(f"{len(found.left_out)} download(s) left out, as copies of one that ran:")
        print("\n".join(f"  {printable(why)}" for why in found.left_out))
    translated = [r for r in ran if r.download.translated]
    if translated:
        first = translated[0].download
        english = printable(first.address.replace(f"/{first.language}/", "/en/", 1))
        print(
            f"{len(translated)} translated download(s) were run but not archived: their text has other "
            f"lines than the gallery's scripts. The English downloads are archived (e.g. {english})."
        )
    if archive.exists():
        site = site_root()
        where = f" (how: {site}en/contribute.html)" if site else ""
        print(f"archive: {archive.name}, {archive.stat().st_size} bytes: send it to the project{where}")
    failed = {Verdict.DIFFERS, Verdict.NO_RESULT}
    return 1 if any(r.finding.verdict in failed for r in ran) else 0
