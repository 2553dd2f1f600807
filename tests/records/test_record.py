"""Record files: a capture of a real example is stable, holds no path or address, and reads back."""

from __future__ import annotations

import datetime
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from autograd_notes._device import DEVICE_VARIABLE
from autograd_notes.records.capture.cells import capture_example
from autograd_notes.records.capture.device_details import runner_metadata
from autograd_notes.records.drift.compare import same_behaviour
from autograd_notes.records.format.record import load_record, record_path, write_record
from autograd_notes.records.format.record_format import FORMAT, RecordError

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "gallery"
EXAMPLES = ["05_inplace/plot_detach_inplace_saved.py", "02_backward/plot_non_leaf_grad.py"]

# what a published record must never hold
ABSOLUTE_PATH = re.compile(r'(^|[\s"\'(=])/(home|tmp|usr|opt|root|work|var|pytorch)\b')
ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


@pytest.fixture(scope="module")
def captures() -> Iterator[dict[str, tuple[dict, dict]]]:
    """Each example captured twice on the CPU runner."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DEVICE_VARIABLE, "cpu")
        yield {
            example: (capture_example(GALLERY, example, ROOT), capture_example(GALLERY, example, ROOT))
            for example in EXAMPLES
        }


def record_text(tmp_path: Path, record: dict) -> str:
    path = tmp_path / "record.json"
    write_record(path, record)
    return path.read_text(encoding="utf-8")


# -- a capture of a real example ----------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES)
def test_two_captures_are_identical_but_for_the_date(
    captures: dict[str, tuple[dict, dict]], example: str
) -> None:
    first, second = captures[example]
    # The running time is a measurement (to a tenth of a second); a capture
    # keeps the recorded one when nothing else changed (tested in test_cli).
    assert {**first, "recorded": "-", "seconds": 0} == {**second, "recorded": "-", "seconds": 0}
    assert first["seconds"] >= 0
    assert second["seconds"] >= 0
    assert same_behaviour(first, second)


@pytest.mark.parametrize("example", EXAMPLES)
def test_a_capture_holds_no_path_address_or_build_detail(
    captures: dict[str, tuple[dict, dict]], example: str, tmp_path: Path
) -> None:
    text = record_text(tmp_path, captures[example][0])
    assert str(ROOT) not in text
    assert str(Path.home()) not in text
    assert "site-packages" not in text
    assert ABSOLUTE_PATH.search(text) is None
    assert ADDRESS.search(text) is None
    assert " object at " not in text
    assert "Triggered internally" not in text


@pytest.mark.parametrize("example", EXAMPLES)
def test_a_capture_describes_the_example_and_its_runner(
    captures: dict[str, tuple[dict, dict]], example: str
) -> None:
    record = captures[example][0]
    assert record["format"] == FORMAT
    assert record["example"] == example
    assert record["runner"] == runner_metadata()
    assert record["runner"]["device"] == "cpu"
    recorded = datetime.date.fromisoformat(record["recorded"])
    assert datetime.date.today() - recorded <= datetime.timedelta(days=1), "today (or just before midnight)"
    source_lines = (GALLERY / example).read_text(encoding="utf-8").splitlines()
    cells = record["cells"]
    assert cells[0]["lines"][0] == 1
    assert cells[-1]["lines"][1] == len(source_lines)
    for before, after in itertools.pairwise(cells):
        assert after["lines"][0] == before["lines"][1] + 1
    assert {cell["status"] for cell in cells} == {"ran"}
    events = [event for cell in cells for event in cell["events"]]
    assert events
    assert all(event["holds"] for event in events), "the example passes on this runner"
    for cell in cells:
        first, last = cell["lines"]
        assert all(first <= event["line"] <= last for event in cell["events"])


def test_a_capture_records_errors_values_and_warnings(captures: dict[str, tuple[dict, dict]]) -> None:
    inplace = [e for c in captures[EXAMPLES[0]][0]["cells"] for e in c["events"]]
    errors = [e for e in inplace if e["kind"] == "error"]
    assert [e["raised"] for e in errors] == ["RuntimeError", "RuntimeError"]
    assert "which is output 0 of Add, is at version 1" in errors[0]["message"]
    assert any(e["kind"] == "value" and e["label"] == "x.grad" for e in inplace)
    warned = [e for c in captures[EXAMPLES[1]][0]["cells"] for e in c["events"] if e["kind"] == "warning"]
    assert warned
    assert warned[0]["warnings"][0]["category"] == "UserWarning"
    assert "non-leaf Tensor" in warned[0]["warnings"][0]["message"]


def test_runner_metadata_names_torch_build_device_and_python() -> None:
    metadata = runner_metadata()
    assert set(metadata) == {"device", "device_name", "torch", "variant", "cuda", "python"}
    assert metadata["torch"] == torch.__version__
    assert metadata["cuda"] == torch.version.cuda


# -- same_behaviour ------------------------------------------------------------------


def small_record(**changes: object) -> dict:
    record = {
        "format": FORMAT,
        "example": "01_x/plot_fixture.py",
        "runner": {
            "device": "cpu",
            "device_name": "x86_64",
            "torch": "2.13.0+cpu",
            "variant": "CPU",
            "cuda": None,
            "python": "3.11.7",
        },
        "recorded": "2026-01-01",
        "cells": [{"lines": [1, 3], "status": "ran", "output": ["1"], "events": []}],
    }
    record.update(changes)
    return record


def test_same_behaviour_ignores_the_date_and_the_runners_versions() -> None:
    old = small_record()
    assert same_behaviour(old, small_record(recorded="2027-05-05"))
    newer = small_record(runner={"device": "cpu", "device_name": "arm64", "torch": "2.14.0+cpu"})
    assert same_behaviour(old, newer)


def test_same_behaviour_sees_any_change_in_the_cells() -> None:
    old = small_record()
    changed = small_record(cells=[{"lines": [1, 3], "status": "ran", "output": ["2"], "events": []}])
    assert not same_behaviour(old, changed)
    assert old["cells"][0]["output"] == ["1"], "the records compared are not changed"


# -- files -----------------------------------------------------------------------------


def test_record_path_is_runner_section_example() -> None:
    assert record_path(Path("records"), "cuda", "05_inplace/plot_detach_inplace_saved.py") == Path(
        "records/cuda/05_inplace/plot_detach_inplace_saved.json"
    )


def test_write_then_load_gives_the_record_back(tmp_path: Path) -> None:
    record = small_record(cells=[{"lines": [1, 3], "status": "ran", "output": ["0x… → …"], "events": []}])
    path = tmp_path / "records" / "cpu" / "01_x" / "plot_fixture.json"
    write_record(path, record)
    assert load_record(path) == record
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert '"0x… → …"' in text, "not escaped to ASCII"
    assert '\n "format": 1,\n' in text, "one item per line, indented by one space"
    assert '\n   "lines": [\n    1,\n    3\n   ],\n' in text, "list items too"


def test_write_is_stable(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    write_record(first, small_record())
    write_record(second, json.loads(first.read_text(encoding="utf-8")))
    assert first.read_bytes() == second.read_bytes()


def test_load_of_a_missing_record_is_none(tmp_path: Path) -> None:
    assert load_record(tmp_path / "none.json") is None


def test_load_of_invalid_json_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n "format": 1,\n "cells": [,]\n}\n', encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        load_record(path)
    assert caught.value.path == path
    assert str(caught.value) == f"{path}: not valid JSON: line 3 column 12: Expecting value"


def test_a_record_error_keeps_its_reason_through_a_context_manager(tmp_path: Path) -> None:
    """contextlib sets ``__traceback__`` on what passes through it: the error must allow that."""
    import contextlib

    @contextlib.contextmanager
    def stage() -> Iterator[None]:
        yield

    path = tmp_path / "truncated.json"
    path.write_text('{"format": 1, "cells": [', encoding="utf-8")
    with pytest.raises(RecordError) as caught, stage():
        load_record(path)
    assert str(caught.value).startswith(f"{path}: not valid JSON: line 1 column ")


@pytest.mark.parametrize(
    "content",
    ["[]", '{"format": 2, "cells": []}', '{"format": 1}', '"text"'],
    ids=["list", "other-format", "no-cells", "string"],
)
def test_load_of_something_else_than_a_record_fails(tmp_path: Path, content: str) -> None:
    path = tmp_path / "other.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RecordError, match=r"other\.json: not a record of format 1$"):
        load_record(path)
