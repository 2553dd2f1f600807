"""python -m autograd_notes verify: a reader's downloads run here, judged, archived for ingest.

The downloads are made by the site's own function
(:func:`autograd_notes.site.examples.downloads.download_script`, what a build writes
under ``_downloads``) from the gallery scripts. The run tests call the command
in this process; each example runs in a child process of this Python, as on
a reader's machine.
"""

from __future__ import annotations

import copy
import gzip
import shutil
import socket
import zipfile
from pathlib import Path

import pytest
import torch

from autograd_notes.records.cli import main
from autograd_notes.records.exchange.archive import MANIFEST
from autograd_notes.records.exchange.downloaded import DownloadError, find_downloads, read_download
from autograd_notes.records.exchange.verify import Verdict, archive_name, judge, runner_place
from autograd_notes.records.format.record import load_record
from autograd_notes.records.format.record_format import Record
from autograd_notes.records.history.releases import release_of
from autograd_notes.site.examples.downloads import ReaderText, download_script
from autograd_notes.site.examples.script_translation import translate_script

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://autograd-notes.example/site/"
READER = ReaderText(
    command=f"pip install --upgrade autograd-notes --find-links {SITE}packages/",
    page="This script is a page of Autograd Notes: {address}",
    needs="It needs PyTorch and autograd-notes, the helper package it imports:",
    missing="This example imports {modules}; not installed here: {missing}. Install them with:",
    notebook="unused",
    links={
        "sources": ("Sources", f"{SITE}en/sources.html#sources"),
        "mental_model": ("The mental model", f"{SITE}en/mental_model.html#mental-model"),
    },
)
EXAMPLES = ["01_graph_basics/plot_tensor_kinds.py", "02_backward/plot_retain_graph.py"]
FAKE_USER = "jdoe-fake-user"


def address(example: str, language: str = "en") -> str:
    return f"{SITE}{language}/examples/{Path(example).with_suffix('').as_posix()}.html"


def downloaded(example: str, language: str = "en", messages: dict[str, str] | None = None) -> str:
    """The ``.py`` the site serves for ``example``: what translate_downloads writes."""
    text = translate_script((ROOT / "gallery" / example).read_text(encoding="utf-8"), messages or {})
    return download_script(text, READER, address(example, language))


def committed(example: str) -> Record:
    record = load_record(ROOT / "records" / "cpu" / Path(example).with_suffix(".json"))
    assert record is not None
    return record


GALLERY = sorted(p.relative_to(ROOT / "gallery").as_posix() for p in (ROOT / "gallery").glob("*/plot_*.py"))


@pytest.mark.parametrize("example", GALLERY)
def test_an_english_download_is_its_gallery_script_line_for_line(example: str) -> None:
    source = (ROOT / "gallery" / example).read_text(encoding="utf-8")
    text = downloaded(example)
    download = read_download("plot.py", text)
    assert (download.example, download.language, download.address) == (example, "en", address(example))
    assert download.guard_at is not None
    assert download.guard_lines == 4  # the three lines of imports, one of early stops
    ours, theirs = source.splitlines(), text.splitlines()
    assert len(download.script.splitlines()) == len(ours)
    for number, line in enumerate(ours, start=1):
        downloaded_line = theirs[download.download_line(number) - 1]
        assert download.script.splitlines()[number - 1] == downloaded_line
        # the same line, or the line with its cross-references as links
        assert downloaded_line == line or downloaded_line.count(":ref:`") < line.count(":ref:`")
    assert any(":ref:`sources`" in line for line in ours) == (f"<{SITE}en/sources.html#sources>`_" in text)


def test_a_download_of_an_earlier_site_is_read_too() -> None:
    source = (ROOT / "gallery" / EXAMPLES[1]).read_text(encoding="utf-8")
    lines = source.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("import torch"))
    earlier = [
        f"# This script is a page of Autograd Notes: {address(EXAMPLES[1])}",
        "# It needs PyTorch and autograd-notes:",
        *lines[:at],
        "try:",
        "    import autograd_notes  # noqa: F401",
        "except ModuleNotFoundError:",
        "    raise SystemExit('This example needs PyTorch. Install them:') from None",
        *lines[at:],
    ]
    download = read_download("plot.py", "\n".join(earlier) + "\n")
    assert (download.guard_at, download.guard_lines, download.header) == (at + 1, 4, 2)
    assert download.script == source
    assert download.download_line(at + 1) == at + 1 + 2 + 4


def test_a_translated_download_says_its_language() -> None:
    example = EXAMPLES[1]
    first_text = (ROOT / "gallery" / example).read_text(encoding="utf-8").splitlines()
    heading = next(line for line in first_text if line and line[0].isupper())
    download = read_download("plot.py", downloaded(example, "ru", {heading: "Заголовок"}))
    assert download.translated
    assert (download.language, download.example) == ("ru", example)


def test_a_file_that_names_no_page_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "plot_mine.py"
    script.write_text((ROOT / "gallery" / EXAMPLES[0]).read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(DownloadError, match=r"plot_mine\.py: its first line names no page"):
        find_downloads(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DownloadError, match="no examples in empty"):
        find_downloads(tmp_path / "empty")


def test_every_language_of_an_example_is_found_and_a_copy_is_left_out_with_why(tmp_path: Path) -> None:
    # a reader's folder: an English and a Russian download of one example, and a browser's second copy
    example = EXAMPLES[1]
    (tmp_path / "plot_retain_graph.py").write_text(downloaded(example), encoding="utf-8")
    (tmp_path / "ru").mkdir()
    (tmp_path / "ru" / "plot_retain_graph.py").write_text(downloaded(example, "ru"), encoding="utf-8")
    (tmp_path / "plot_retain_graph (1).py").write_text(downloaded(example), encoding="utf-8")
    found = find_downloads(tmp_path)
    assert [(d.example, d.language) for d in found.downloads] == [(example, "en"), (example, "ru")]
    assert found.left_out == [
        "plot_retain_graph.py: the same example and language as plot_retain_graph (1).py"
    ]


def test_judge_holds_differs_and_not_available() -> None:
    record = committed(EXAMPLES[1])
    script = ROOT / "gallery" / EXAMPLES[1]
    assert judge(record, script).verdict == Verdict.HOLDS

    differs = copy.deepcopy(record)
    cell = next(c for c in differs["cells"] if any(e["kind"] == "error" for e in c["events"]))
    event = next(e for e in cell["events"] if e["kind"] == "error")
    event.update(holds=False, raised=None, message=None)
    found = judge(differs, script)
    assert (found.verdict, found.line, found.documented) == (
        Verdict.DIFFERS,
        event["line"],
        event["documented"],
    )
    assert found.happened == "nothing was raised"

    missing = copy.deepcopy(record)
    last = missing["cells"][-1]
    last.update(status="unavailable", output=["AttributeError: module 'torch' has no attribute 'x'"])
    found = judge(missing, script)
    assert (found.verdict, found.line) == (Verdict.NOT_AVAILABLE, last["lines"][0])
    assert found.happened == "AttributeError: module 'torch' has no attribute 'x'"


def test_a_difference_the_site_recorded_for_this_release_is_said_so() -> None:
    """PyTorch 2.14.1 warns otherwise in forward mode, as the site records it: not an unexplained drift."""
    path = ROOT / "records" / "releases" / "2.14.1" / "cpu" / "10_higher_order" / "plot_forward_mode.json"
    record = load_record(path)
    assert record is not None
    script = ROOT / "gallery" / "10_higher_order" / "plot_forward_mode.py"
    found = judge(record, script)
    assert found.verdict == Verdict.RECORDED
    assert found.documented.startswith("DeprecationWarning matching")  # the first check that differs
    # the same observations on the release the page documents: nothing recorded explains them
    pinned = copy.deepcopy(record)
    pinned["runner"]["torch"] = "2.13.0+cpu"
    assert judge(pinned, script).verdict == Verdict.DIFFERS
    # and one more check that differs, which no release record explains
    more = copy.deepcopy(record)
    event = next(e for c in more["cells"] for e in c["events"] if e["holds"] and e["kind"] == "value")
    event.update(holds=False, value="something else")
    assert (judge(more, script).verdict, judge(more, script).line) == (Verdict.DIFFERS, event["line"])


def test_runner_place_as_capture_release_places_records() -> None:
    assert runner_place("2.13.0", "cuda", "2.13.0", cuda_build=True) == "cuda"
    assert runner_place("2.13.0", "cpu", "2.13.0", cuda_build=False) == "cpu"
    assert runner_place("2.13.0", "cpu", "2.13.0", cuda_build=True) == "releases/2.13.0/cpu"
    assert runner_place("2.11.0", "cuda", "2.13.0", cuda_build=True) == "releases/2.11.0/cuda"
    assert runner_place("2.13.0", "mps", "2.13.0", cuda_build=False) == "releases/2.13.0/mps"


@pytest.fixture
def reader_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A reader's download folder under a home folder that names a user, as the current folder."""
    home = tmp_path / "home" / FAKE_USER
    folder = home / "Downloads" / "autograd-notes"
    folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(folder)
    return folder


def test_verify_on_this_cpu_writes_an_archive_that_ingest_accepts(
    reader_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for example in EXAMPLES:
        (reader_folder / Path(example).name).write_text(downloaded(example), encoding="utf-8")

    assert main(["verify", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert f"  {Verdict.HOLDS:<37} {len(EXAMPLES)}" in out
    archive = reader_folder / archive_name(release_of(torch.__version__), "cpu")
    assert f"archive: {archive.name}" in out

    # nothing of this machine: no path, user or host name, in any member
    data = gzip.decompress(archive.read_bytes())
    for private in {FAKE_USER, str(tmp_path), str(reader_folder), socket.gethostname()}:
        assert private.encode() not in data, private
    assert MANIFEST.encode() in data

    # ingest takes it whole into a scratch copy of the project: the records are the committed ones
    scratch = tmp_path / "scratch"
    for example in EXAMPLES:
        for folder in ("gallery", "records/cpu"):
            name = Path(example) if folder == "gallery" else Path(example).with_suffix(".json")
            (scratch / folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / folder / name, scratch / folder / name)
    (scratch / "pyproject.toml").write_text('[project]\nname = "scratch"\n', encoding="utf-8")
    shutil.copytree(ROOT / "constraints", scratch / "constraints")
    assert main(["ingest", str(archive), "--root", str(scratch)]) == 0
    out = capsys.readouterr().out
    assert out.count("unchanged: records/cpu/") == len(EXAMPLES), out


def test_verify_names_the_download_line_and_page_where_a_check_differs(
    reader_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = EXAMPLES[0]
    documented = 'check(weights.requires_grad, False, label="weights.requires_grad")'
    text = downloaded(example).replace(documented, documented.replace("False", "True"))
    (reader_folder / "plot_tensor_kinds.py").write_text(text, encoding="utf-8")
    (reader_folder / "plot_retain_graph.py").write_text(downloaded(EXAMPLES[1], "ru"), encoding="utf-8")

    assert main(["verify", "--device", "cpu", "plot_tensor_kinds", "02_backward/plot_retain_graph"]) == 1
    out = capsys.readouterr().out
    line = next(
        n for n, text in enumerate(text.splitlines(), start=1) if "weights.requires_grad, True" in text
    )
    assert f"differs: plot_tensor_kinds.py:{line}\n" in out
    assert "the page documents: weights.requires_grad: True" in out
    assert "here:               weights.requires_grad: False" in out
    assert f"page: {address(example)}" in out
    # the translated download ran, but only the English one is in the archive
    assert "1 translated download(s) were run but not archived" in out
    assert "2 download(s) (1 English, 1 translated) in " in out  # the summary counts both
    archive = reader_folder / archive_name(release_of(torch.__version__), "cpu")
    data = gzip.decompress(archive.read_bytes())
    assert b"plot_tensor_kinds.json" in data
    assert b"plot_retain_graph" not in data


def _zip(path: Path, members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def test_a_zip_of_too_many_scripts_is_refused_before_any_is_read(tmp_path: Path) -> None:
    """3,000 members of 1 MiB each drove verify to 3.3 GB: the count and the total are capped."""
    many = _zip(tmp_path / "many.zip", [(f"plot_{n}.py", b"") for n in range(1001)])
    with pytest.raises(DownloadError, match=r"1001 scripts, more than 1000"):
        find_downloads(many)
    big = _zip(tmp_path / "big.zip", [(f"plot_{n}.py", b"#" * (1 << 20)) for n in range(33)])
    with pytest.raises(DownloadError, match=r"more than 32 MiB"):
        find_downloads(big)


def test_a_damaged_member_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    path = _zip(tmp_path / "crc.zip", [("plot_x.py", b"print(1)\n" * 50)], method=zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    at = data.index(b"print(1)")
    data[at] = ord("q")  # its content no longer matches its CRC
    path.write_bytes(bytes(data))
    with pytest.raises(DownloadError, match=r"crc\.zip:plot_x\.py: cannot be read"):
        find_downloads(path)


def _patched(path: Path, *, local: int, central: int, value: int) -> Path:
    """``path`` with a 2-byte field of its member's local and central headers set to ``value``."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = data.index(signature) + offset
        data[at : at + 2] = value.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ((8, 10), 98, "compression method is not supported"),  # PPMd, which zipfile cannot read
        ((6, 8), 1, "encrypted"),  # the general-purpose flag's bit 0: a password is needed
    ],
)
def test_a_member_zipfile_cannot_read_is_one_error_not_a_traceback(
    tmp_path: Path, field: tuple[int, int], value: int, said: str
) -> None:
    path = _zip(tmp_path / "odd.zip", [("plot_x.py", b"print(1)\n")], method=zipfile.ZIP_STORED)
    _patched(path, local=field[0], central=field[1], value=value)
    with pytest.raises(DownloadError, match=rf"odd\.zip:plot_x\.py: cannot be read: .*{said}"):
        find_downloads(path)
