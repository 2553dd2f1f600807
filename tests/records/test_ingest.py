"""python -m autograd_notes ingest: an archive from outside is checked whole, then merged.

The project is a copy of one real gallery script and its committed CPU record
(``records/cpu/...``), pinned to this PyTorch; each test makes an archive,
most of them tampered with, and runs ``ingest`` on it.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from autograd_notes.records.cli import main
from autograd_notes.records.exchange.archive import MANIFEST, MAX_RECORD_BYTES, Manifest, write_archive
from autograd_notes.records.format.record import load_record, record_text
from autograd_notes.records.format.record_format import Record
from autograd_notes.records.history.releases import release_of

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "02_backward/plot_retain_graph.py"
PLACE = "cpu/02_backward/plot_retain_graph.json"
MEMBER = f"records/{PLACE}"
PINNED = release_of(torch.__version__)


def committed_record() -> Record:
    record = load_record(ROOT / "records" / PLACE)
    assert record is not None
    # as this PyTorch would record it, whatever release the committed one came from
    record["runner"]["torch"] = torch.__version__
    return record


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "gallery" / "02_backward").mkdir(parents=True)
    shutil.copy(ROOT / "gallery" / EXAMPLE, root / "gallery" / EXAMPLE)
    (root / "pyproject.toml").write_text('[project]\nname = "fixture"\n', encoding="utf-8")
    (root / "constraints").mkdir()
    (root / "constraints" / "torch.txt").write_text(f"torch=={PINNED}\n", encoding="utf-8")
    return root


def manifest_of(records: dict[str, Record]) -> Manifest:
    runner = next(iter(records.values()))["runner"] if records else committed_record()["runner"]
    return Manifest(format=1, release=PINNED, runner=runner, members=[], results=[])


def good_archive(path: Path, record: Record | None = None) -> Path:
    records = {PLACE: record or committed_record()}
    write_archive(path, records, manifest_of(records))
    return path


def info(name: str, size: int, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.size, member.type = size, kind
    return member


def raw_archive(path: Path, members: list[tuple[tarfile.TarInfo, bytes | io.RawIOBase | None]]) -> Path:
    """An archive written by hand, member by member (``None``: a header only)."""
    with gzip.open(path, "wb") as stream, tarfile.open(fileobj=stream, mode="w|") as tar:
        for member, data in members:
            if data is None:
                tar.addfile(member)
            else:
                tar.addfile(member, io.BytesIO(data) if isinstance(data, bytes) else data)
    return path


def manifest_member(members: list[str]) -> tuple[tarfile.TarInfo, bytes]:
    manifest = manifest_of({PLACE: committed_record()})
    manifest["members"] = members
    data = json.dumps(manifest).encode()
    return info(MANIFEST, len(data)), data


def record_member(record: Any, name: str = MEMBER) -> tuple[tarfile.TarInfo, bytes]:
    data = json.dumps(record).encode()
    return info(name, len(data)), data


Ingest = Callable[..., tuple[int, str, str]]


@pytest.fixture
def ingest(project: Path, capsys: pytest.CaptureFixture[str]) -> Ingest:
    def run(archive: Path, *args: str) -> tuple[int, str, str]:
        status = main(["ingest", str(archive), "--root", str(project), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def written(project: Path) -> list[str]:
    records = project / "records"
    return sorted(p.relative_to(records).as_posix() for p in records.rglob("*")) if records.exists() else []


def assert_refused(status: int, err: str, archive: Path, member: str | None, reason: str) -> None:
    assert status == 2, err
    named = f"member {member!r}: " if member is not None else ""
    assert err.startswith(f"error: {archive.name}: {named}"), err
    assert reason in err, err
    assert err.rstrip().endswith("nothing was ingested"), err


# -- a good archive -----------------------------------------------------------------------


def test_an_archive_is_added_then_unchanged(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    archive = good_archive(tmp_path / "cpu.tar.gz")
    status, out, err = ingest(archive)
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        f"cpu.tar.gz: PyTorch {torch.__version__} on cpu (x86_64), 1 record(s)",
        f"added: records/{PLACE}",
        "1 added",
    ]
    assert (project / "records" / PLACE).read_text(encoding="utf-8") == record_text(committed_record())
    assert ingest(archive)[:2] == (0, out.replace("added", "unchanged"))


def test_a_differing_record_is_kept_unless_accepted(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    ingest(good_archive(tmp_path / "first.tar.gz"))
    before = (project / "records" / PLACE).read_text(encoding="utf-8")
    changed = committed_record()
    changed["cells"][1]["output"] = ["something else"]
    archive = good_archive(tmp_path / "second.tar.gz", changed)
    status, out, err = ingest(archive)
    assert status == 1
    assert f"kept: records/{PLACE}" in out.splitlines()
    assert "records that differ were kept" in err
    assert "--accept" in err
    assert (project / "records" / PLACE).read_text(encoding="utf-8") == before
    status, out, _ = ingest(archive, "--accept")
    assert status == 0
    assert f"replaced: records/{PLACE}" in out.splitlines()
    assert load_record(project / "records" / PLACE) == changed


def test_a_new_date_alone_keeps_the_committed_record(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    ingest(good_archive(tmp_path / "first.tar.gz"))
    before = (project / "records" / PLACE).read_text(encoding="utf-8")
    later = committed_record()
    later["recorded"], later["seconds"] = "2099-01-01", 99.0
    status, out, _ = ingest(good_archive(tmp_path / "later.tar.gz", later))
    assert status == 0
    assert f"unchanged: records/{PLACE}" in out.splitlines()
    assert (project / "records" / PLACE).read_text(encoding="utf-8") == before


@pytest.mark.parametrize(
    "text", ["<script>alert(1)</script>", ".. raw:: html\n\n   <b>x</b>", "**bold** `code`"]
)
def test_a_message_is_data_kept_verbatim(project: Path, ingest: Ingest, tmp_path: Path, text: str) -> None:
    record = committed_record()
    cell = next(c for c in record["cells"] if c["events"])
    event = cell["events"][0]
    assert event["kind"] in ("error", "value", "warning")
    if event["kind"] == "error":
        event["message"] = text
    else:
        event["documented"] = text
    cell["output"].append(text)
    status, _, err = ingest(good_archive(tmp_path / "markup.tar.gz", record))
    assert (status, err) == (0, "")
    assert load_record(project / "records" / PLACE) == record  # not refused, not escaped, not altered
    assert json.dumps(text)[1:-1] in (project / "records" / PLACE).read_text(encoding="utf-8")


def test_a_release_record_of_another_device_goes_to_its_place(
    project: Path, ingest: Ingest, tmp_path: Path
) -> None:
    record = committed_record()
    record["runner"].update(
        device="cuda", device_name="NVIDIA H100 80GB HBM3", torch="2.11.0+cu130", variant="CUDA 13.0"
    )
    record["runner"].update(cuda="13.0", capability="9.0", driver="580.65")
    place = "releases/2.11.0/cuda/02_backward/plot_retain_graph.json"
    manifest = Manifest(format=1, release="2.11.0", runner=record["runner"], members=[], results=[])
    write_archive(tmp_path / "gpu.tar.gz", {place: record}, manifest)
    status, out, err = ingest(tmp_path / "gpu.tar.gz")
    assert (status, err) == (0, "")
    assert (
        out.splitlines()[0] == "gpu.tar.gz: PyTorch 2.11.0+cu130 on cuda (NVIDIA H100 80GB HBM3), 1 record(s)"
    )
    assert load_record(project / "records" / place) == record


# -- tampered archives: refused whole, naming the archive and the member --------------------


@pytest.mark.parametrize(
    "name",
    [
        "../evil.json",
        "records/../../evil.json",
        "records/cpu/../../../evil.json",
        "./records/cpu/02_backward/plot_retain_graph.json",
        "/tmp/evil.json",
        "records\\cpu\\evil.json",
    ],
)
def test_a_path_that_leaves_the_archive_is_refused(
    project: Path, ingest: Ingest, tmp_path: Path, name: str
) -> None:
    archive = raw_archive(
        tmp_path / "evil.tar.gz", [manifest_member([MEMBER]), record_member(committed_record(), name)]
    )
    status, _, err = ingest(archive)
    assert_refused(status, err, archive, name, "path")
    assert written(project) == []
    assert not (tmp_path / "evil.json").exists()


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_a_link_is_refused(project: Path, ingest: Ingest, tmp_path: Path, kind: bytes) -> None:
    link = info(MEMBER, 0, kind)
    link.linkname = "/etc/passwd"
    archive = raw_archive(tmp_path / "link.tar.gz", [manifest_member([MEMBER]), (link, None)])
    status, _, err = ingest(archive)
    assert_refused(status, err, archive, MEMBER, "a link (to '/etc/passwd')")
    assert written(project) == []


def test_a_folder_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    archive = raw_archive(tmp_path / "dir.tar.gz", [(info("records/cpu", 0, tarfile.DIRTYPE), None)])
    assert_refused(*ingest(archive)[::2], archive, "records/cpu", "not a plain file")


class Zeros(io.RawIOBase):
    """``size`` zero bytes, made as they are read: a big member without a big file."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), self.left)
        buffer[:count] = bytes(count)
        self.left -= count
        return count


HUNDRED_MB = 100 * 2**20


def test_a_100_mb_member_is_refused_from_its_header(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    archive = raw_archive(
        tmp_path / "big.tar.gz", [manifest_member([MEMBER]), (info(MEMBER, HUNDRED_MB), Zeros(HUNDRED_MB))]
    )
    assert archive.stat().st_size < 2**20  # zeros pack small: the size is in the header
    start = time.perf_counter()
    status, _, err = ingest(archive)
    assert_refused(status, err, archive, MEMBER, f"{HUNDRED_MB} bytes, more than the {MAX_RECORD_BYTES}")
    assert time.perf_counter() - start < 5  # not unpacked
    assert written(project) == []


def test_a_header_claiming_100_mb_is_refused_before_its_content_is_read(
    ingest: Ingest, tmp_path: Path
) -> None:
    # only the header: reading its content would end in "unexpected end of data" instead
    path = tmp_path / "claims.tar.gz"
    with gzip.open(path, "wb") as stream:
        stream.write(info(MEMBER, HUNDRED_MB).tobuf(format=tarfile.PAX_FORMAT))
    assert_refused(*ingest(path)[::2], path, MEMBER, f"{HUNDRED_MB} bytes")


@pytest.mark.parametrize(
    "name",
    [
        "README.md",
        "records/cpu/02_backward/notes.txt",
        "records/gpu/02_backward/plot_retain_graph.json",
        "records/releases/latest/cuda/02_backward/plot_retain_graph.json",
        "records/cpu/plot_retain_graph.json",
    ],
)
def test_an_unexpected_file_is_refused(project: Path, ingest: Ingest, tmp_path: Path, name: str) -> None:
    archive = raw_archive(tmp_path / "extra.tar.gz", [good_member(), (info(name, 2), b"{}")])
    assert_refused(*ingest(archive)[::2], archive, name, "an unexpected file")
    assert written(project) == []


def good_member() -> tuple[tarfile.TarInfo, bytes]:
    return record_member(committed_record())


def test_a_record_of_an_unknown_example_is_refused(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    record = committed_record()
    record["example"] = "02_backward/plot_no_such_page.py"
    name = "records/cpu/02_backward/plot_no_such_page.json"
    archive = raw_archive(tmp_path / "unknown.tar.gz", [manifest_member([name]), record_member(record, name)])
    assert_refused(
        *ingest(archive)[::2],
        archive,
        name,
        "'02_backward/plot_no_such_page.py' is not an example of this gallery",
    )
    assert written(project) == []


def test_a_record_whose_cells_are_not_the_scripts_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    record = committed_record()
    record["cells"] = record["cells"][:-1]
    archive = raw_archive(tmp_path / "cells.tar.gz", [manifest_member([MEMBER]), record_member(record)])
    assert_refused(*ingest(archive)[::2], archive, MEMBER, "cells: the record's cells (lines ")


def test_a_record_of_an_earlier_version_of_the_page_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    """Its cells are the script's, line for line, but one ran other code: an archive of an older checkout."""
    record = committed_record()
    record["cells"][3]["code"] = "0123456789abcdef"
    archive = raw_archive(tmp_path / "earlier.tar.gz", [manifest_member([MEMBER]), record_member(record)])
    first, last = record["cells"][3]["lines"]
    reason = f"cells[3].code: the cell at lines {first}-{last} ran other code"
    assert_refused(*ingest(archive)[::2], archive, MEMBER, reason)
    del record["cells"][3]["code"]  # a capture from before records named their code: not known, refused
    archive = raw_archive(tmp_path / "unnamed.tar.gz", [manifest_member([MEMBER]), record_member(record)])
    assert_refused(*ingest(archive)[::2], archive, MEMBER, "cells[3].code: ")


def change(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = record
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value

    return apply


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (change("seconds", "fast"), "seconds: must be a finite number, not 'fast'"),
        (change("format", 2), "format: must be 1, not 2"),
        (change("runner.device_name", 3), "runner.device_name: must be a string, not int"),
        (change("runner.hostname", "laptop"), "runner: unexpected key(s): 'hostname'"),
        (change("recorded", "yesterday"), "recorded: must be a date, YYYY-MM-DD"),
        (change("cells.1.status", "exploded"), "cells[1].status: must be one of 'ran', 'failed'"),
        (change("cells.1.code", "<b>x</b>"), "cells[1].code: must be 16 hex digits"),
        (change("cells.1.output", ["x" * 70_000]), "cells[1].output[0]: is a string of 70000 characters"),
        (change("cells.1.events", [{"kind": "magic", "line": 3}]), "cells[1].events[0].kind: must be one of"),
        (change("cells.1.events", [{"kind": "value", "line": 3}]), "cells[1].events[0]: missing key(s)"),
        (change("runner.device", "cuda"), "runner.device: is 'cuda', but its place is a cpu runner's"),
        (change("runner.torch", "0.4.1"), "records/cpu holds the pinned release's"),
    ],
)
def test_a_record_of_the_wrong_shape_is_refused(
    ingest: Ingest, tmp_path: Path, edit: Callable[[dict[str, Any]], None], reason: str
) -> None:
    record: dict[str, Any] = copy.deepcopy(dict(committed_record()))
    edit(record)
    archive = raw_archive(tmp_path / "shape.tar.gz", [manifest_member([MEMBER]), record_member(record)])
    assert_refused(*ingest(archive)[::2], archive, MEMBER, reason)


def test_a_record_that_is_not_json_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    archive = raw_archive(tmp_path / "text.tar.gz", [manifest_member([MEMBER]), (info(MEMBER, 5), b"hello")])
    assert_refused(*ingest(archive)[::2], archive, MEMBER, "not valid JSON: line 1 column 1")


def test_an_archive_without_its_manifest_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    archive = raw_archive(tmp_path / "bare.tar.gz", [good_member()])
    assert_refused(*ingest(archive)[::2], archive, None, "no manifest.json")


def test_a_manifest_that_lists_other_records_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    other = "records/cpu/02_backward/plot_other.json"
    archive = raw_archive(tmp_path / "lies.tar.gz", [manifest_member([other]), good_member()])
    assert_refused(*ingest(archive)[::2], archive, MANIFEST, "lists other records than the archive holds")


def test_a_member_twice_is_refused(ingest: Ingest, tmp_path: Path) -> None:
    archive = raw_archive(
        tmp_path / "twice.tar.gz", [manifest_member([MEMBER]), good_member(), good_member()]
    )
    assert_refused(*ingest(archive)[::2], archive, MEMBER, "in the archive twice")


def test_a_file_that_is_no_archive_is_refused(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    path = tmp_path / "notes.tar.gz"
    path.write_text("not an archive", encoding="utf-8")
    assert_refused(*ingest(path)[::2], path, None, "not a readable .tar.gz archive")
    assert_refused(
        *ingest(tmp_path / "missing.tar.gz")[::2], tmp_path / "missing.tar.gz", None, "no such file"
    )


def test_the_archive_holds_no_owner_date_or_file_name(tmp_path: Path) -> None:
    archive = good_archive(tmp_path / "autograd-notes.tar.gz")
    data = archive.read_bytes()
    assert data[3] & 0x08 == 0  # gzip FNAME flag: no file name in the header
    assert int.from_bytes(data[4:8], "little") == 0  # gzip mtime
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == [MANIFEST, MEMBER]
    assert {(m.uid, m.gid, m.uname, m.gname, m.mtime) for m in members} == {(0, 0, "", "", 0)}
    assert good_archive(tmp_path / "again.tar.gz").read_bytes() == data  # the same records, the same bytes


def test_every_committed_record_passes_the_schema() -> None:
    from autograd_notes.records.format.currency import script_code
    from autograd_notes.records.format.schema import check_record, gallery_cells

    known = gallery_cells(ROOT / "gallery")
    # records/<runner>/<section>/<example>.json and records/releases/...: not records/record.schema.json
    records = ROOT / "records"
    paths = sorted(p for p in records.rglob("*.json") if len(p.relative_to(records).parts) > 2)
    assert len(paths) > len(known)
    code = {example: script_code(ROOT / "gallery" / example) for example in known}
    for path in paths:
        folder = path.relative_to(ROOT / "records").parts
        example = "/".join(folder[-2:]).removesuffix(".json") + ".py"
        record = json.loads(path.read_text(encoding="utf-8"))
        assert all("code" in cell for cell in record["cells"]), f"{path}: a cell names no code"
        if record["runner"]["device"] == "cpu":
            # a CPU record is taken again on any machine: always of today's code
            check_record(record, example, known, code=code[example])
        else:
            # a GPU record waits for a GPU: it may be of an earlier version (records/format/currency.py)
            check_record(record, example, known, earlier=True)


# -- records are never lost -----------------------------------------------------------------


@pytest.mark.parametrize("field", ["device_name", "output"])
def test_a_string_utf8_cannot_hold_is_refused_and_the_committed_record_kept(
    project: Path, ingest: Ingest, tmp_path: Path, field: str
) -> None:
    """A lone surrogate, escaped in the JSON, passed validation and then emptied the committed file."""
    ingest(good_archive(tmp_path / "first.tar.gz"))
    before = (project / "records" / PLACE).read_bytes()
    spoilt = committed_record()
    if field == "device_name":
        spoilt["runner"]["device_name"] = "x86_\ud800"
    else:
        spoilt["cells"][1]["output"].append("\ud800")
    data = json.dumps(spoilt).encode()  # "\ud800" escaped, as an archive from outside may hold it
    archive = raw_archive(
        tmp_path / "surrogate.tar.gz", [manifest_member([MEMBER]), (info(MEMBER, len(data)), data)]
    )
    status, _out, err = ingest(archive, "--accept")
    assert_refused(status, err, archive, MEMBER, "a lone surrogate")
    assert (project / "records" / PLACE).read_bytes() == before
    assert not list((project / "records").rglob("*.tmp"))


def test_a_failed_write_leaves_every_record_as_it_was(tmp_path: Path) -> None:
    from autograd_notes.records.format.record import write_record, write_records

    first, second = tmp_path / "cpu" / "a.json", tmp_path / "cpu" / "b.json"
    write_record(first, committed_record())
    before = first.read_bytes()
    spoilt = committed_record()
    spoilt["cells"][0]["output"] = ["\udc80"]  # what no validator let through, written anyway
    with pytest.raises(UnicodeEncodeError):
        write_records([(first, committed_record()), (second, spoilt)])
    assert first.read_bytes() == before
    assert not second.exists()
    assert sorted(p.name for p in (tmp_path / "cpu").iterdir()) == ["a.json"]


def test_a_temporary_file_a_killed_run_left_goes_with_the_next_write(tmp_path: Path) -> None:
    from autograd_notes.records.format.record import write_record

    path = tmp_path / "cpu" / "a.json"
    path.parent.mkdir(parents=True)
    (path.parent / ".a.json.4242.tmp").write_text("{", encoding="utf-8")  # half written, then killed
    write_record(path, committed_record())
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.json"]
    assert load_record(path) == committed_record()


def test_json_nested_too_deep_or_a_huge_number_is_one_refusal(ingest: Ingest, tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    huge = b'{"format": ' + b"9" * 1_000_000 + b"}"
    for name, data in (("deep", deep), ("huge", huge)):
        archive = raw_archive(
            tmp_path / f"{name}.tar.gz", [manifest_member([MEMBER]), (info(MEMBER, len(data)), data)]
        )
        status, _out, err = ingest(archive)
        assert status == 2, err
        assert err.startswith(f"error: {archive.name}: member {MEMBER!r}: "), err
        assert "Traceback" not in err


def test_a_manifest_must_agree_with_its_records(project: Path, ingest: Ingest, tmp_path: Path) -> None:
    record = committed_record()
    manifest = manifest_of({PLACE: record})
    manifest["runner"] = {**manifest["runner"], "torch": "2.99.0+cu128", "device": "cuda"}
    manifest["members"] = [MEMBER]
    data = json.dumps(manifest).encode()
    archive = raw_archive(
        tmp_path / "liar.tar.gz", [(info(MANIFEST, len(data)), data), record_member(record)]
    )
    status, _out, err = ingest(archive)
    assert_refused(status, err, archive, MEMBER, "but the manifest says PyTorch 2.99.0+cu128 on cuda")
    assert written(project) == []
    elsewhere = manifest_of({PLACE: record})
    elsewhere["members"] = [f"somewhere/{PLACE}"]
    data = json.dumps(elsewhere).encode()
    archive = raw_archive(
        tmp_path / "prefix.tar.gz", [(info(MANIFEST, len(data)), data), record_member(record)]
    )
    status, _out, err = ingest(archive)
    assert_refused(status, err, archive, MANIFEST, "lists a member outside records/")


@pytest.mark.parametrize("pieces", [200_000, 1])
def test_a_sparse_map_in_an_extended_header_is_refused_before_tarfile_builds_it(
    project: Path, tmp_path: Path, pieces: int
) -> None:
    """A 58 KB archive whose pax header holds a GNU sparse map drove ingest to 3.1 GB; now it is
    refused from its raw header, in a process held under 300 MB."""
    # a pax record: "<length> <key>=<value>\n", its length counting itself
    body = f" GNU.sparse.map={','.join(['0,1'] * pieces)}\n"
    length = len(body) + len(str(len(body)))
    record = f"{length + (len(str(length)) - len(str(len(body))))}{body}".encode()
    pax = info("././@PaxHeader", len(record), tarfile.XHDTYPE)
    archive = raw_archive(tmp_path / "sparse.tar.gz", [(pax, record), record_member(committed_record())])
    probe = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))\n"
        "from autograd_notes.records.exchange.ingest import ArchiveError, read_archive\n"
        "from pathlib import Path\n"
        "try:\n"
        f"    read_archive(Path({str(archive)!r}), Path({str(project)!r}))\n"
        "except ArchiveError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "an extended header of" in result.stdout or "a sparse file" in result.stdout, result.stdout
    assert written(project) == []
