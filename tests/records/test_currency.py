"""A record names the code each of its cells ran: what of it is today's page, and what is of an earlier one.

The digest of a cell's code keeps still under prose edits and moves with
code edits (:func:`code_digest`); a record is cut where it stops being of
today's script (:func:`current_part`), when read for the site
(:func:`load_runner_records`); a capture that behaved the same stamps the
record with today's digests, and only when it may write.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from _venvs import python_of

from autograd_notes.records.capture_run import compare_captured
from autograd_notes.records.format.currency import current_part, in_todays_cells, script_code
from autograd_notes.records.format.record import load_record, record_path, write_record
from autograd_notes.records.format.record_format import Record
from autograd_notes.records.format.schema import SchemaError, check_record
from autograd_notes.records.format.script_cells import code_digests, split_cells
from autograd_notes.records.format.status import DriftStatus
from autograd_notes.records.history.runners import load_runner_records

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "02_backward/plot_retain_graph.py"
GALLERY = sorted((ROOT / "gallery").glob("*/plot_*.py"))

SCRIPT = '''"""
Title
=====

What the page is about.
"""

# %%
# A first text.
import math

x = math.sqrt(4.0)  # two

# %%
# A second text.
print(x + 1)

# %%
print(x * 3)
'''


def edited(old: str, new: str) -> list[str]:
    assert old in SCRIPT
    return code_digests(SCRIPT.replace(old, new))


def test_prose_docstring_comments_and_blank_lines_keep_every_digest() -> None:
    today = code_digests(SCRIPT)
    assert len(today) == 4
    assert edited("What the page is about.", "What the page is about, said better.") == today
    assert edited("# A second text.", "# Another second text, longer.") == today
    # a comment at the end of a line of code is part of that line
    assert edited("x = math.sqrt(4.0)  # two", "x = math.sqrt(4.0)  # two, exactly") != today


def test_a_code_edit_changes_its_cell_only_and_a_moved_line_its_own() -> None:
    today = code_digests(SCRIPT)
    changed = edited("print(x + 1)", "print(x + 2)")
    assert [a == b for a, b in zip(today, changed, strict=True)] == [True, True, False, True]
    # one more line of text in cell 2 moves the code after it: cell 2's and 3's digests
    moved = edited("# A second text.", "# A second text,\n# on two lines.")
    assert [a == b for a, b in zip(today, moved, strict=True)] == [True, True, False, False]


@pytest.mark.parametrize("version", ["3.10", "3.12", "3.13"])
def test_every_python_stamps_every_gallery_script_alike(version: str) -> None:
    """Lines and their numbers, no tokenizer: a GPU machine's Python 3.12 stamps as this one does."""
    here = {p.relative_to(ROOT).as_posix(): code_digests(p.read_text(encoding="utf-8")) for p in GALLERY}
    # script_cells imports only the standard library: loaded alone, without the package's dependencies
    program = (
        "import importlib.util, json, pathlib, sys\n"
        "spec = importlib.util.spec_from_file_location('cells', sys.argv[1])\n"
        "cells = sys.modules['cells'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(cells)\n"
        "print(json.dumps({p: cells.code_digests(pathlib.Path(p).read_text(encoding='utf-8'))"
        " for p in sys.argv[2:]}))\n"
    )
    module = ROOT / "src" / "autograd_notes" / "records" / "format" / "script_cells.py"
    there = subprocess.run(
        [python_of(version), "-c", program, str(module), *here],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(there.stdout) == here


def a_record() -> Record:
    record = load_record(ROOT / "records" / "cpu" / Path(EXAMPLE).with_suffix(".json"))
    assert record is not None
    return record


def test_a_record_of_todays_code_is_whole() -> None:
    record = a_record()
    current = current_part(record, script_code(ROOT / "gallery" / EXAMPLE))
    assert current.earlier_from is None
    assert current.record == record


def test_a_record_is_cut_before_its_first_cell_of_other_code() -> None:
    record = a_record()
    script = script_code(ROOT / "gallery" / EXAMPLE)
    stale = copy.deepcopy(record)
    stale["cells"][3]["code"] = "0" * 16
    current = current_part(stale, script)
    assert current.earlier_from == script[3].lines[0]
    # the cells after it too, though their code is today's: they ran after the other code
    assert current.record["cells"] == record["cells"][:3]
    assert stale["cells"][3]["code"] == "0" * 16, "the record read is not changed"


def test_a_cell_that_moved_ends_the_current_part_and_a_cell_without_code_is_taken_as_it_is() -> None:
    record = a_record()
    script = script_code(ROOT / "gallery" / EXAMPLE)
    moved = copy.deepcopy(record)
    moved["cells"][5]["lines"] = [moved["cells"][5]["lines"][0], moved["cells"][5]["lines"][1] + 1]
    assert current_part(moved, script).earlier_from == script[5].lines[0]
    unnamed = copy.deepcopy(record)
    for cell in unnamed["cells"]:
        del cell["code"]
    assert current_part(unnamed, script).earlier_from is None
    shorter = copy.deepcopy(record)
    shorter["cells"] = shorter["cells"][:-2]
    assert current_part(shorter, script).earlier_from == script[-2].lines[0]


def test_records_are_read_against_the_gallery_beside_them(tmp_path: Path) -> None:
    (tmp_path / "gallery" / "02_backward").mkdir(parents=True)
    script = tmp_path / "gallery" / EXAMPLE
    shutil.copy(ROOT / "gallery" / EXAMPLE, script)
    write_record(record_path(tmp_path / "records", "cpu", EXAMPLE), a_record())
    gpu = a_record()
    gpu["runner"]["device"] = "cuda"
    write_record(record_path(tmp_path / "records", "cuda", EXAMPLE), gpu)
    (run_cpu, run_gpu) = load_runner_records(tmp_path / "records")[EXAMPLE]
    assert (run_cpu.earlier_from, run_gpu.earlier_from) == (None, None)
    # the page's fourth cell changes its code: both records are of an earlier version from there on
    lines = script.read_text(encoding="utf-8").splitlines(keepends=True)
    fourth = split_cells("".join(lines))[3]
    code_line = next(
        index
        for index in range(fourth.first - 1, fourth.last)
        if lines[index].strip() and not lines[index].startswith("#")
    )
    lines[code_line] = lines[code_line].replace("(", "( ", 1)  # other code, the same lines
    script.write_text("".join(lines), encoding="utf-8")
    runs = load_runner_records(tmp_path / "records")[EXAMPLE]
    assert [run.earlier_from for run in runs] == [fourth.first, fourth.first]
    assert [len(run.record["cells"]) for run in runs] == [3, 3]
    # what does not hang on the code around it (the messages raised) still has every cell
    assert [len(run.all_cells) for run in runs] == [len(split_cells("".join(lines)))] * 2
    # without a gallery beside them (or given), records are taken as they are
    alone = tmp_path / "alone"
    shutil.copytree(tmp_path / "records", alone / "records")
    assert [run.earlier_from for run in load_runner_records(alone / "records")[EXAMPLE]] == [None, None]


def test_every_cell_placed_on_todays_cells_keeps_its_checks_inside_them() -> None:
    """A page whose first cell grew by two lines: the cells after it sit two lines lower today."""
    record = a_record()
    script = script_code(ROOT / "gallery" / EXAMPLE)
    earlier = copy.deepcopy(record)
    earlier["cells"][1]["lines"][1] -= 2  # the earlier version: cell 1 two lines shorter...
    for cell in earlier["cells"][2:]:  # ... and every later cell two lines higher
        cell["lines"] = [cell["lines"][0] - 2, cell["lines"][1] - 2]
        for event in cell["events"]:
            event["line"] -= 2
    earlier["cells"].append({"lines": [900, 910], "status": "ran", "output": [], "events": []})
    placed = in_todays_cells(earlier, script)
    assert [cell["lines"] for cell in placed] == [cell.lines for cell in script]  # the extra cell left out
    assert [[e["line"] for e in c["events"]] for c in placed] == [
        [e["line"] for e in c["events"]] for c in record["cells"]
    ]
    assert current_part(earlier, script).earlier_from == script[1].lines[0]


def test_a_capture_that_behaved_the_same_stamps_todays_code_only_where_it_may_write(tmp_path: Path) -> None:
    old = a_record()
    for cell in old["cells"]:
        cell["code"] = "0" * 16
    new = a_record()
    new["recorded"], new["seconds"] = "2099-01-01", 99.0
    path = record_path(tmp_path, "cpu", EXAMPLE)
    write_record(path, old)
    looked = compare_captured(tmp_path, "cpu", EXAMPLE, new, write_missing=False, accept=False)
    assert looked.status is DriftStatus.SAME
    assert load_record(path) == old, "a comparison alone writes nothing"
    stamped = compare_captured(tmp_path, "cpu", EXAMPLE, new, write_missing=True, accept=False)
    assert stamped.status is DriftStatus.SAME
    written = load_record(path)
    assert written is not None
    assert [cell["code"] for cell in written["cells"]] == [cell["code"] for cell in new["cells"]]
    # nothing else: the date and running time stay the record's, and the digest sits after the lines
    assert (written["recorded"], written["seconds"]) == (old["recorded"], old["seconds"])
    assert {**written, "cells": [{k: v for k, v in c.items() if k != "code"} for c in written["cells"]]} == {
        **old,
        "cells": [{k: v for k, v in c.items() if k != "code"} for c in old["cells"]],
    }
    assert list(json.loads(path.read_text(encoding="utf-8"))["cells"][1])[:2] == ["lines", "code"]


def test_a_capture_that_behaved_otherwise_is_drift_and_stamps_nothing(tmp_path: Path) -> None:
    old = a_record()
    for cell in old["cells"]:
        cell["code"] = "0" * 16
    new = a_record()
    new["cells"][1]["output"] = ["something else"]
    path = record_path(tmp_path, "cpu", EXAMPLE)
    write_record(path, old)
    result = compare_captured(tmp_path, "cpu", EXAMPLE, new, write_missing=True, accept=False)
    assert result.status is DriftStatus.DRIFT
    assert load_record(path) == old


def test_the_schema_holds_a_record_to_todays_code_only_when_asked() -> None:
    record = a_record()
    script = script_code(ROOT / "gallery" / EXAMPLE)
    spans = {EXAMPLE: [cell.lines for cell in script]}
    check_record(record, EXAMPLE, spans, code=script)
    stale = copy.deepcopy(record)
    stale["cells"][2]["code"] = "f" * 16
    check_record(stale, EXAMPLE, spans)  # its lines are the script's: a plain check passes
    with pytest.raises(SchemaError, match=r"cells\[2\]\.code: the cell at lines \d+-\d+ ran other code"):
        check_record(stale, EXAMPLE, spans, code=script)
    moved = copy.deepcopy(record)
    moved["cells"] = moved["cells"][:-1]
    with pytest.raises(SchemaError, match="the record's cells"):
        check_record(moved, EXAMPLE, spans)
    check_record(moved, EXAMPLE, spans, earlier=True)  # a GPU record of an earlier version is kept


def test_every_committed_cpu_record_ran_todays_code() -> None:
    """A CPU record is taken again on any machine: none may lag behind its page."""
    for example, runs in load_runner_records(ROOT / "records").items():
        for run in runs:
            if run.runner.device == "cpu":
                assert run.earlier_from is None, f"{run.runner.folder}/{example}: capture it again"
