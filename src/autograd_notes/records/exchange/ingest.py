r"""``python -m autograd_notes ingest ARCHIVE``: add a record archive to ``records/``, checking it all.

An archive (:mod:`.archive`) comes from a machine we do not control, so
nothing of it is trusted: the whole archive is read and checked before one
file is written, and the first problem refuses all of it, with a message
naming the archive and the member (:class:`ArchiveError`). Checked, in the
order they are met:

* the archive's own size (:data:`~.archive.MAX_ARCHIVE_BYTES`), and how much
  it unpacks to (:data:`~.archive.MAX_RECORD_BYTES` per member,
  :data:`~.archive.MAX_MEMBERS` members, :data:`~.archive.MAX_UNPACKED_BYTES`
  in all): each member's size is read from its tar header, before its content is;
* each member's name: no absolute path, no ``..``, no ``\\``, no link or
  anything but a plain file, no name twice, and nothing but ``manifest.json``
  and record files in their places (:func:`~.archive.member_place`);
* each record: valid UTF-8 JSON of the records' types and sizes, of an
  example of this gallery, with that script's cells (:func:`~.schema.check_record`),
  recorded on the device and release its place says;
* the manifest: its format and types, and that it lists exactly the records
  the archive holds.

Then each record is merged (:class:`~.status.Merge`): written where there is
none; kept where the committed record says the same; kept and reported where
it differs, unless ``accept`` replaces it. What a record says (a message
holding ``<script>`` or reST) is kept exactly as it came: it is data, and the
site shows it as text.
"""

from __future__ import annotations

import gzip
import json
import sys
import tarfile
from dataclasses import dataclass
from io import RawIOBase
from pathlib import Path, PurePosixPath
from typing import BinaryIO, cast

from ..drift.compare import same_behaviour
from ..format.currency import CellCode, script_code
from ..format.failures import new_failures
from ..format.record import load_record, write_records
from ..format.record_format import Record, RecordError
from ..format.schema import SchemaError, check_record, check_typed, gallery_cells
from ..format.status import DriftStatus, Merge
from ..format.terminal import printable
from ..history.releases import pinned_torch, release_of
from .archive import (
    ARCHIVE_FORMAT,
    MANIFEST,
    MAX_ARCHIVE_BYTES,
    MAX_MEMBERS,
    MAX_RECORD_BYTES,
    MAX_UNPACKED_BYTES,
    Manifest,
    member_place,
)

__all__ = ["ArchiveError", "Merged", "ingest", "ingest_command", "read_archive"]


@dataclass(frozen=True)
class ArchiveError(Exception):
    """An archive that is refused: which one, which member (if one), and why."""

    archive: str
    member: str | None
    reason: str

    def __str__(self) -> str:
        where = f"member {self.member!r}: " if self.member is not None else ""
        return f"{self.archive}: {where}{self.reason}; nothing was ingested"


@dataclass(frozen=True)
class Merged:
    """One record of an archive, where it goes in ``records/`` and what was done with it."""

    place: str
    """Its path inside ``records/`` (``releases/2.11.0/cuda/05_x/plot_y.json``)."""
    outcome: Merge


class _Limited(RawIOBase):
    """A read-only stream that refuses to give more than ``limit`` bytes of ``inner``.

    It stands between the gzip stream and :mod:`tarfile`: whatever an archive
    claims in its headers, no more than this is ever unpacked.
    """

    def __init__(self, inner: BinaryIO, limit: int, refuse: ArchiveError) -> None:
        self._inner, self._left, self._refuse = inner, limit, refuse

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._inner.read(min(len(buffer), self._left + 1))
        if len(data) > self._left:
            raise self._refuse
        self._left -= len(data)
        buffer[: len(data)] = data
        return len(data)


_BLOCK = 512
_PAX_LIMIT = 4096
"""The largest extended (pax) header a member may have: a long name needs far less."""


def _header_problem(stream: BinaryIO) -> str | None:
    """Why the tar in ``stream`` may not be parsed, from its raw headers; ``None`` if it may.

    :mod:`tarfile` reads an extended header whole and builds what it
    describes (a sparse map of millions of pieces from a few kilobytes):
    this pass reads only the headers, each extended one up to
    :data:`_PAX_LIMIT` bytes, before :mod:`tarfile` sees any of them. Other
    members (links, folders, a file too large) are refused by name once
    :mod:`tarfile` has read their headers (:func:`_member_problem`).
    """
    while True:
        header = stream.read(_BLOCK)
        if len(header) < _BLOCK or header == bytes(_BLOCK):
            return None
        kind = header[156:157]
        try:
            size = int(header[124:136].rstrip(b"\0 ").decode("ascii") or "0", 8)
        except ValueError:
            return "a member header whose size is not a number"
        if kind == b"S":
            return "a sparse file: an archive holds plain files only"
        if kind in (b"x", b"g", b"L", b"K") and size > _PAX_LIMIT:
            return f"an extended header of {size} bytes, more than {_PAX_LIMIT}"
        if size > MAX_RECORD_BYTES:
            return None  # refused by name, from its header, when tarfile reads it (_member_problem)
        data = stream.read(size) if kind in (b"x", b"g") else b""
        if b"GNU.sparse" in data:
            return "a sparse file: an archive holds plain files only"
        left = -(-size // _BLOCK) * _BLOCK - len(data)
        while left > 0:
            skipped = len(stream.read(min(left, 1 << 16)))
            if not skipped:
                return None
            left -= skipped


def _member_problem(member: tarfile.TarInfo) -> str | None:
    """Why a member may not be in an archive, from its header alone; ``None`` if it may."""
    name = member.name
    path = PurePosixPath(name)
    if not name or name.startswith("/") or path.is_absolute() or ":" in path.parts[0]:
        return "an absolute path: members are relative to the archive"
    if "\\" in name:
        return "a path with a backslash: members are relative POSIX paths"
    if any(part in ("..", ".") for part in name.split("/")) or "//" in name:
        return "a path that leaves its folder (.. or .): members are plain relative paths"
    if member.issym() or member.islnk():
        return f"a link (to {member.linkname!r}): an archive holds files only"
    if not member.isfile():
        return "not a plain file (a folder, device or fifo): an archive holds files only"
    if member.size > MAX_RECORD_BYTES:
        return f"{member.size} bytes, more than the {MAX_RECORD_BYTES} a member may have"
    if name != MANIFEST and member_place(name) is None:
        return (
            "an unexpected file: an archive holds manifest.json and records/<runner>/<section>/plot_*.json "
            "or records/releases/<release>/<device>/<section>/plot_*.json only"
        )
    return None


def _json(data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise SchemaError("", f"not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise SchemaError(
            "", f"not valid JSON: line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise SchemaError("", "JSON nested deeper than Python reads: not a record") from None
    except ValueError as error:  # an integer of more digits than Python converts
        raise SchemaError("", f"not a record: {error}") from None


def _check_place(record: Record, folder: str, device: str, pinned: str | None) -> None:
    """The record was made on the device and release its place in ``records/`` says."""
    runner = record["runner"]
    if runner["device"] != device:
        raise SchemaError(
            "runner.device", f"is {runner['device']!r:.40}, but its place is a {device} runner's"
        )
    release = release_of(runner["torch"])
    if folder.startswith("releases/"):
        if release != folder.split("/")[1]:
            raise SchemaError("runner.torch", f"is {runner['torch']!r:.40}, not the release its place names")
    elif pinned is not None and release != pinned:
        raise SchemaError(
            "runner.torch",
            f"is {runner['torch']!r:.40}: records/{folder} holds the pinned release's ({pinned}) only",
        )


def read_archive(archive: Path, root: Path) -> tuple[Manifest, dict[str, Record]]:
    """Read and check the whole of ``archive`` against the project ``root``'s gallery.

    Returns its manifest and its records (place inside ``records/`` ->
    record); raises :class:`ArchiveError` at the first problem.
    """
    shown = archive.name

    def refuse(member: str | None, reason: str) -> ArchiveError:
        return ArchiveError(shown, member, reason)

    if not archive.is_file():
        raise refuse(None, "no such file")
    if archive.stat().st_size > MAX_ARCHIVE_BYTES:
        raise refuse(
            None, f"{archive.stat().st_size} bytes, more than the {MAX_ARCHIVE_BYTES} an archive may have"
        )
    known = gallery_cells(root / "gallery")
    code: dict[str, list[CellCode]] = {}  # today's code of each example the archive holds, read once
    pinned = pinned_torch(root)
    limit = MAX_UNPACKED_BYTES
    manifest: object = None
    records: dict[str, Record] = {}
    seen: set[str] = set()
    current: str | None = None
    try:
        # a first pass over the raw headers, bounded as the second: nothing tarfile would build large
        with archive.open("rb") as raw, gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
            headers = _Limited(
                cast("BinaryIO", unpacked), limit, refuse(None, f"unpacks to more than {limit} bytes")
            )
            problem = _header_problem(cast("BinaryIO", headers))
            if problem is not None:
                raise refuse(None, problem)
        with archive.open("rb") as raw, gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
            stream = _Limited(
                cast("BinaryIO", unpacked), limit, refuse(None, f"unpacks to more than {limit} bytes")
            )
            with tarfile.open(fileobj=cast("BinaryIO", stream), mode="r|") as tar:
                for member in tar:
                    current = member.name
                    if len(seen) >= MAX_MEMBERS:
                        raise refuse(None, f"more than {MAX_MEMBERS} members")
                    problem = _member_problem(member)
                    if problem is not None:
                        raise refuse(member.name, problem)
                    if member.name in seen:
                        raise refuse(member.name, "in the archive twice")
                    seen.add(member.name)
                    content = tar.extractfile(member)
                    assert content is not None  # a plain file (checked above)
                    data = _json(content.read(MAX_RECORD_BYTES + 1))
                    if member.name == MANIFEST:
                        manifest = data
                        continue
                    folder, device, example = cast("tuple[str, str, str]", member_place(member.name))
                    if example not in code:
                        code[example] = script_code(root / "gallery" / example) if example in known else []
                    check_record(data, example, known, code=code[example] or None)
                    record = cast("Record", data)
                    _check_place(record, folder, device, pinned)
                    records[member.name.partition("/")[2]] = record
                current = None
    except SchemaError as error:
        raise refuse(current, f"not a record of this project: {error}") from None
    except (OSError, EOFError, tarfile.TarError) as error:
        raise refuse(current, f"not a readable .tar.gz archive ({error})") from None
    return _checked_manifest(manifest, records, shown), records


def _checked_manifest(manifest: object, records: dict[str, Record], shown: str) -> Manifest:
    """The manifest, checked against its type and against the records the archive holds."""

    def make(member: str | None, reason: str) -> ArchiveError:
        return ArchiveError(shown, member, reason)

    if manifest is None:
        raise make(None, f"no {MANIFEST}: not an archive of python -m autograd_notes capture --archive")
    try:
        check_typed(manifest, Manifest)
    except SchemaError as error:
        raise make(MANIFEST, f"not a manifest of this project: {error}") from None
    checked = cast("Manifest", manifest)
    if checked["format"] != ARCHIVE_FORMAT:
        raise make(MANIFEST, f"archive format {checked['format']}, but this version reads {ARCHIVE_FORMAT}")
    if any(not name.startswith("records/") for name in checked["members"]):
        raise make(MANIFEST, "lists a member outside records/")
    for place, record in sorted(records.items()):
        made, said = record["runner"], checked["runner"]
        if (made["torch"], made["device"]) != (said["torch"], said["device"]):
            raise make(
                f"records/{place}",
                f"recorded with PyTorch {made['torch']} on {made['device']}, but the manifest says "
                f"PyTorch {said['torch']} on {said['device']}",
            )
    listed = {name.partition("/")[2] for name in checked["members"]}
    if listed != set(records) or len(listed) != len(checked["members"]):
        missing, extra = sorted(listed - set(records)), sorted(set(records) - listed)
        raise make(
            MANIFEST, f"lists other records than the archive holds (missing: {missing}, unlisted: {extra})"
        )
    return checked


def ingest(
    archive: Path, root: Path, records_dir: Path, *, accept: bool, accept_failures: bool = False
) -> tuple[Manifest, list[Merged]]:
    """Check ``archive`` whole (:func:`read_archive`), then merge its records into ``records_dir``.

    A record whose cell failed with an exception its committed record (if
    any) does not have is no behaviour to keep: the archive is refused, the
    failures listed, unless ``accept_failures``; a record written so says it
    (``failures_accepted``).
    """
    manifest, records = read_archive(archive, root)
    failed = {
        place: found
        for place, record in sorted(records.items())
        if (found := new_failures(record, load_record(records_dir / place)))
    }
    if failed and not accept_failures:
        listed = "; ".join(f"{place}: {', '.join(map(str, found))}" for place, found in failed.items())
        raise ArchiveError(
            archive.name,
            None,
            f"{len(failed)} record(s) with a cell that failed with an exception no record has: {listed} "
            "(read them; --accept-failures writes them, marked)",
        )
    for place in failed:
        records[place] = {**records[place], "failures_accepted": True}
    merged: list[Merged] = []
    writes = []
    for place, record in sorted(records.items()):
        path = records_dir / place
        old = load_record(path)
        if old is None:
            outcome = Merge.ADDED
        elif old == record or same_behaviour(old, record):
            outcome = Merge.UNCHANGED
        else:
            outcome = Merge.REPLACED if accept else Merge.KEPT
        if outcome in (Merge.ADDED, Merge.REPLACED):
            writes.append((path, record))
        merged.append(Merged(place, outcome))
    # every record encoded and staged before the first is put in place: all of the archive or none
    write_records(writes)
    return manifest, merged


def ingest_command(
    root: Path, records: Path, archive: Path, *, accept: bool, accept_failures: bool = False
) -> int:
    """``ingest``: merge ``archive`` into ``records``, print what was done; the exit status."""
    try:
        manifest, merged = ingest(archive, root, records, accept=accept, accept_failures=accept_failures)
    except (ArchiveError, RecordError) as error:
        print(f"error: {printable(str(error))}", file=sys.stderr)
        return 2
    runner = manifest["runner"]
    print(
        f"{archive.name}: PyTorch {printable(runner['torch'])} on {printable(runner['device'])} "
        f"({printable(runner['device_name'])}), {len(merged)} record(s)"
    )
    for item in merged:
        print(f"{item.outcome}: {records.name}/{item.place}")
    for result in manifest["results"]:
        if result["status"] in (DriftStatus.TIMED_OUT, DriftStatus.NO_RESULT):
            print(f"not recorded there: {printable(result['example'])} ({printable(result['status'])})")
    counts = {outcome: sum(m.outcome == outcome for m in merged) for outcome in Merge}
    print(", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n) or "no records")
    if counts[Merge.KEPT]:
        print(
            "ingest: records that differ were kept; read the differences (python -m autograd_notes "
            "drift), then pass --accept to replace them",
            file=sys.stderr,
        )
        return 1
    return 0
