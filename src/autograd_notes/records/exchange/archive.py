"""Record archives: what one capture recorded, in one ``.tar.gz`` file to bring back.

A machine that can only hand back files (a borrowed GPU machine, a reader's
computer) writes its records into one archive (``capture --archive``), and
``python -m autograd_notes ingest`` adds it to ``records/`` (:mod:`.ingest`).
The archive holds:

* ``manifest.json``: the archive's format, the PyTorch release, the runner
  (:class:`~.record.Runner`), the list of the record members, and how each
  example's run ended (:class:`RunResult`);
* ``records/<folder>/<section>/<example>.json``: one record per example, as
  its file in ``records/`` would hold it, where ``<folder>`` is a runner of the
  pinned release (``cpu``, ``cuda``) or ``releases/<release>/<device>``.

It holds no path of the machine, no user or host name and no time of day: its
members are owned by nobody, dated 1970, and its gzip header names no file.
The same records give the same bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path, PurePosixPath
from typing import TypedDict

from ..format.record import record_text
from ..format.record_format import DEVICES, RUNNERS, Record, Runner
from ..history.releases import RELEASES, is_release

__all__ = [
    "ARCHIVE_FORMAT",
    "MANIFEST",
    "MAX_ARCHIVE_BYTES",
    "MAX_MEMBERS",
    "MAX_RECORD_BYTES",
    "MAX_UNPACKED_BYTES",
    "RECORDS",
    "Manifest",
    "RunResult",
    "member_place",
    "write_archive",
]

ARCHIVE_FORMAT = 1
MANIFEST = "manifest.json"
RECORDS = "records"
"""The folder of the record members inside an archive."""
MAX_RECORD_BYTES = 1 << 20
"""The largest member an archive may hold (the biggest record today is about 40 KiB)."""
MAX_MEMBERS = 1000
"""The most members an archive may hold: every example on a few runners, with room to spare."""
MAX_UNPACKED_BYTES = 64 << 20
"""The most an archive may unpack to, headers included (49 records take about 2 MiB)."""
MAX_ARCHIVE_BYTES = 16 << 20
"""The largest archive file ``ingest`` opens (what a borrowed machine hands back at most)."""


class RunResult(TypedDict):
    """How one example's run ended, in the manifest: a timed-out example has no record member."""

    example: str
    status: str
    """A :class:`~.status.DriftStatus` word: ``recorded``, ``same``, ``drift``, ``timed out``, ..."""
    seconds: float


class Manifest(TypedDict):
    """``manifest.json``: what the archive holds and where it was made."""

    format: int
    release: str
    runner: Runner
    members: list[str]
    results: list[RunResult]


def member_place(name: str) -> tuple[str, str, str] | None:
    r"""Where a record member belongs: ``(folder, device, example)``, or ``None`` if it is no record's name.

    ``records/cuda/05_x/plot_y.json`` -> ``("cuda", "cuda", "05_x/plot_y.py")``;
    ``records/releases/2.11.0/cuda/05_x/plot_y.json`` ->
    ``("releases/2.11.0/cuda", "cuda", "05_x/plot_y.py")``. ``name`` must be a
    plain relative POSIX path already (no ``..``, no ``\\``: :mod:`.ingest` checks that first).
    """
    parts = PurePosixPath(name).parts
    if len(parts) == 4 and parts[0] == RECORDS and parts[1] in RUNNERS:
        folder, device, section, file = parts[1], parts[1], parts[2], parts[3]
    elif (
        len(parts) == 6
        and parts[0] == RECORDS
        and parts[1] == RELEASES
        and is_release(parts[2])
        and parts[3] in DEVICES
    ):
        folder, device, section, file = "/".join(parts[1:4]), parts[3], parts[4], parts[5]
    else:
        return None
    if not (file.startswith("plot_") and file.endswith(".json")):
        return None
    return folder, device, f"{section}/{file.removesuffix('.json')}.py"


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def write_archive(path: Path, records: dict[str, Record], manifest: Manifest) -> None:
    """Write ``records`` (``folder/section/plot_x.json`` -> record) and ``manifest`` into ``path``.

    The manifest's ``members`` are set from ``records``. The file is replaced
    whole (written beside it, then renamed), so that a run cut off while
    writing it leaves the previous archive, never half of one.
    """
    members = {f"{RECORDS}/{name}": record_text(record).encode() for name, record in sorted(records.items())}
    manifest = Manifest(**{**manifest, "members": list(members)})
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _add(tar, MANIFEST, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode())
        for name, data in members.items():
            _add(tar, name, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as stream:
        stream.write(buffer.getvalue())
    partial.replace(path)
