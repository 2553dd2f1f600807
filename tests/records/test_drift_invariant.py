"""A drift status always comes with a listed difference: checked over every committed record.

``compare_captured`` (what ``capture`` and ``drift`` run) says ``drift`` only
with at least one difference to list, and ``same`` for two records that say
the same once what the maintainer guide says does not count is left out: where PyTorch's
own code moved (a line number inside ``torch/``) and the frames a traceback
folds (a folded-frames line that a release adds, takes away or words
otherwise), and a float printed one unit of its last place apart. The
normalisation here is the test's own, written from the CONTRIBUTING.md, not
:func:`~autograd_notes.records.drift.printed.same_output`.
"""

from __future__ import annotations

import copy
import itertools
import re
from decimal import Decimal
from pathlib import Path

import pytest

from autograd_notes.records.capture_run import compare_captured
from autograd_notes.records.format.record import load_all_records, record_path, write_record
from autograd_notes.records.format.record_format import Record
from autograd_notes.records.format.status import DriftStatus
from autograd_notes.records.history.releases import load_releases

ROOT = Path(__file__).resolve().parents[2]
TORCH_LINE = re.compile(r"(torch/[\w./-]+\.py):(\d+)")
FOLDED = re.compile(r"\s*\[\d+ frames? inside PyTorch: [^\]]*\]")


def committed() -> dict[str, list[Record]]:
    """Every committed CPU record of each example, oldest release first, today's (records/cpu) last."""
    found: dict[str, list[Record]] = {}
    for records in load_releases(ROOT / "records").values():
        for example, record in records.items():
            found.setdefault(example, []).append(record)
    for example, record in load_all_records(ROOT / "records").get("cpu", {}).items():
        found.setdefault(example, []).append(record)
    return found


RECORDS = committed()


def moved(record: Record, shift: int) -> Record:
    """``record`` as a release whose PyTorch code moved: other torch/ lines, one more folded frame each."""
    other = copy.deepcopy(record)
    for cell in other["cells"]:
        output = []
        for line in cell["output"]:
            line = TORCH_LINE.sub(lambda m: f"{m[1]}:{int(m[2]) + shift}", line)
            if FOLDED.fullmatch(line):
                continue  # this release folds nothing there...
            output.append(line)
            if line.lstrip().startswith("File "):
                # ...and one frame after each of the example's
                output.append("  [1 frame inside PyTorch: torch.autograd.function.apply]")
        cell["output"] = output
    other["runner"] = {**other["runner"], "torch": "9.9.9+cpu"}
    other["recorded"] = "2099-01-01"
    return other


FLOAT = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def rounded_apart(old: str, new: str) -> bool:
    """Whether two strings differ only in floats one unit of their last printed place apart."""
    if FLOAT.sub("#", old).split() != FLOAT.sub("#", new).split():
        return False
    for a, b in zip(FLOAT.findall(old), FLOAT.findall(new), strict=True):
        first, second = Decimal(a), Decimal(b)
        if first.as_tuple().exponent != second.as_tuple().exponent:
            return False
        if abs(first - second) > Decimal(1).scaleb(first.as_tuple().exponent):  # type: ignore[arg-type]
            return False
    return True


def same_but_rounding(old: object, new: object) -> bool:
    """Two records' cells equal, leaf by leaf, but for floats printed one unit apart."""
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(same_but_rounding(old[k], new[k]) for k in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(same_but_rounding(a, b) for a, b in zip(old, new, strict=True))
    if isinstance(old, str) and isinstance(new, str):
        return old == new or rounded_apart(old, new)
    return old == new


def what_counts(record: Record) -> list[object]:
    """A record's cells without what the maintainer guide says does not count."""
    cells = copy.deepcopy(record["cells"])
    for cell in cells:
        cell.pop("code", None)  # which version of the page ran is no behaviour (records/format/currency.py)
        cell["output"] = [
            TORCH_LINE.sub(r"\1:…", line) for line in cell["output"] if not FOLDED.fullmatch(line)
        ]
    return list(cells)


def compared(tmp_path: Path, old: Record, new: Record) -> tuple[DriftStatus, int]:
    """What drift says of ``new`` against ``old``: its status and how many differences it lists."""
    write_record(record_path(tmp_path, "cpu", old["example"]), old)
    result = compare_captured(tmp_path, "cpu", old["example"], new, write_missing=False, accept=False)
    return result.status, len(result.differences)


def test_the_committed_records_are_many() -> None:
    assert len(RECORDS) >= 40
    assert sum(map(len, RECORDS.values())) >= 10 * len(RECORDS)


@pytest.mark.parametrize("example", sorted(RECORDS))
def test_pytorch_code_that_moved_is_no_drift(example: str, tmp_path: Path) -> None:
    """Each committed record against itself with every torch/ line moved and the folded frames changed."""
    for index, record in enumerate(RECORDS[example]):
        other = moved(record, shift=7 + index)
        folder = tmp_path / str(index)
        assert compared(folder, record, other) == (DriftStatus.SAME, 0), record["runner"]["torch"]
        assert compared(folder / "back", other, record) == (DriftStatus.SAME, 0)


@pytest.mark.parametrize("example", sorted(RECORDS))
def test_drift_always_lists_a_difference(example: str, tmp_path: Path) -> None:
    """Consecutive records of an example, both ways: drift lists a difference exactly when one counts."""
    pairs = list(itertools.pairwise(RECORDS[example]))
    for number, (old, new) in enumerate([*pairs, *((new, old) for old, new in pairs)]):
        status, listed = compared(tmp_path / str(number), old, new)
        assert status in (DriftStatus.SAME, DriftStatus.DRIFT)
        pair = f"{old['runner']['torch']} -> {new['runner']['torch']}"
        assert (status == DriftStatus.DRIFT) == (listed > 0), f"{pair}: {status} with {listed} listed"
        counts = not same_but_rounding(what_counts(old), what_counts(new))
        assert (status == DriftStatus.DRIFT) == counts, f"{pair}: {status}, yet the records differ: {counts}"
