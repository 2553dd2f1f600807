"""python -m autograd_notes capture|drift: records, drift reports, --accept, runners, bad input.

Most tests use a tiny project in ``tmp_path`` whose example calls a module
this test controls (``fixture_behaviour``) and PyTorch, so that its
behaviour can change between the capture and the drift run, as when a new
PyTorch behaves differently.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from autograd_notes._device import DEVICE_VARIABLE
from autograd_notes.records.capture.reset import TIMEOUT_VARIABLE, reset_torch_state
from autograd_notes.records.cli import main
from autograd_notes.records.format.record import load_record, write_record

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "01_x/plot_fixture.py"
RECORD = "records/cpu/01_x/plot_fixture.json"
TORCH_LINES = (
    f"  recorded: torch {torch.__version__} on cpu (",
    f"  now:      torch {torch.__version__} on cpu (",
)

RAISES = "torch.ones(2, requires_grad=True).mul(2).backward()"
NO_RAISE = "torch.ones(2, requires_grad=True).sum().backward()"  # same line, nothing raised
SCRIPT = f'''"""
Fixture
=======

An expected error, a value and an expected warning.
"""

# %%
import torch

import fixture_behaviour as behaviour
from autograd_notes import check, expect_error, expect_warning

with expect_error(RuntimeError, match="only for scalar outputs"):
    {RAISES}
check(behaviour.total(), 2.0, label="total")
with expect_warning(UserWarning, match="careful"):
    behaviour.warn()

# %%
print("the end")
'''


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the only line of ``text`` containing ``needle``."""
    found = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


ERROR_LINE = line_of(SCRIPT, "with expect_error")
VALUE_LINE = line_of(SCRIPT, "check(behaviour.total()")
WARNING_LINE = line_of(SCRIPT, "with expect_warning")


def warn_careful() -> None:
    warnings.warn("careful", UserWarning, stacklevel=2)


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No runner setting from the caller's shell; PyTorch's defaults after each test."""
    for variable in (DEVICE_VARIABLE, TIMEOUT_VARIABLE, "REQUIRE_CUDA"):
        monkeypatch.delenv(variable, raising=False)
    yield
    reset_torch_state()


@pytest.fixture
def behaviour(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The module the example imports: what a test patches to change its behaviour."""
    module = types.ModuleType("fixture_behaviour")
    module.total = lambda: torch.ones(2).sum()  # type: ignore[attr-defined]
    module.warn = warn_careful  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fixture_behaviour", module)
    return module


@pytest.fixture
def project(tmp_path: Path, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "gallery" / "01_x").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "fixture"\n', encoding="utf-8")
    (root / "gallery" / EXAMPLE).write_text(SCRIPT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return root


@pytest.fixture
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as one without a CUDA device, whatever it has."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], project: Path) -> Run:
    """Run a command on the project; return its exit status, stdout and stderr."""

    def run_command(command: str, *args: str) -> tuple[int, str, str]:
        extra = ["--device", "cpu"] if command == "drift" and "--device" not in args else []
        status = main([command, "--root", str(project), *extra, *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run_command


def edit_script(project: Path, old: str, new: str) -> None:
    path = project / "gallery" / EXAMPLE
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def reword_backward(monkeypatch: pytest.MonkeyPatch, change: Callable[[RuntimeError], Exception]) -> None:
    """Make ``Tensor.backward`` raise ``change(error)`` where PyTorch raises ``error``."""
    real = torch.autograd.backward

    def backward(*args: Any, **kwargs: Any) -> None:
        try:
            real(*args, **kwargs)
        except RuntimeError as error:
            raise change(error) from None

    monkeypatch.setattr(torch.autograd, "backward", backward)


def assert_drift_report(status: int, out: str, *expected: str) -> None:
    """Exit status 1, both PyTorch versions, and each expected line (stripped) in the report."""
    assert status == 1, out
    lines = out.splitlines()
    assert lines[0] == f"{EXAMPLE} [cpu]: drift"
    assert lines[1].startswith(TORCH_LINES[0])
    assert lines[2].startswith(TORCH_LINES[1])
    # each difference's head ends with its severity, "[breaks the page]" or "[cosmetic]"
    stripped = [re.sub(r" \[(breaks the page|cosmetic)\]:$", ":", line.strip()) for line in lines]
    for line in expected:
        assert line in stripped, f"{line!r} not in:\n{out}"
    assert lines[-1].startswith("Behaviour drift in 1 example(s).")


# -- capture, then a clean drift --------------------------------------------------------


def test_capture_writes_a_record_and_drift_finds_nothing(run: Run, project: Path) -> None:
    status, out, err = run("capture")
    assert (status, err) == (0, "")
    assert out.splitlines()[-2:] == [
        "1 new record(s) written (no record to compare with).",
        f"wrote {RECORD}",
    ]
    record = load_record(project / RECORD)
    assert record is not None
    assert record["example"] == EXAMPLE
    assert [e["holds"] for c in record["cells"] for e in c["events"]] == [True, True, True]

    status, out, err = run("drift")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        f"cpu: compared 1 examples, torch {torch.__version__} on cpu ({record['runner']['device_name']}), "
        "with their records: 1 same",
        "No behaviour drift.",
    ]


def test_records_keep_a_running_time_that_drift_never_writes(run: Run, project: Path) -> None:
    assert run("capture")[0] == 0
    record = load_record(project / RECORD)
    assert record is not None
    assert isinstance(record["seconds"], float)
    assert record["seconds"] >= 0
    # a record from before running times: drift compares it and leaves it alone
    del record["seconds"]
    write_record(project / RECORD, record)
    before = (project / RECORD).read_text(encoding="utf-8")
    assert run("drift")[0] == 0
    assert (project / RECORD).read_text(encoding="utf-8") == before
    # capture adds the running time and changes nothing else
    assert run("capture")[0] == 0
    after = load_record(project / RECORD)
    assert after is not None
    assert "seconds" in after
    assert {**after, "seconds": None} == {**record, "seconds": None}


def test_the_real_gallery_captures_and_drifts_clean(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = tmp_path / "records"
    args = ["--root", str(ROOT), "--records", str(records), "plot_detach_inplace_saved", "plot_non_leaf_grad"]
    assert main(["capture", *args]) == 0
    out = capsys.readouterr().out
    assert f"wrote {(records / 'cpu/05_inplace/plot_detach_inplace_saved.json').as_posix()}" in out
    assert main(["drift", "--device", "cpu", *args]) == 0
    out = capsys.readouterr().out
    assert "cpu: compared 2 examples, " in out
    assert out.splitlines()[-2].endswith("with their records: 2 same")
    assert out.splitlines()[-1] == "No behaviour drift."


def test_drift_without_a_record_fails_and_writes_nothing(run: Run, project: Path) -> None:
    status, out, _ = run("drift")
    assert status == 1
    assert out.splitlines()[:2] == [
        f"{EXAMPLE} [cpu]: no record",
        "  no record yet: run `python -m autograd_notes capture` and commit it",
    ]
    assert not (project / "records").exists()


def test_the_runner_variable_is_restored(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")
    assert DEVICE_VARIABLE not in os.environ
    monkeypatch.setenv(DEVICE_VARIABLE, "auto")
    run("drift")
    assert os.environ[DEVICE_VARIABLE] == "auto"


# -- a changed behaviour, each kind ------------------------------------------------------


def test_no_longer_raises(run: Run, project: Path) -> None:
    run("capture")
    edit_script(project, RAISES, NO_RAISE)
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        "cell 1 (lines 8-19)",
        f"no longer raises at line {ERROR_LINE}:",
        "recorded: RuntimeError",
        "documented: RuntimeError matching 'only for scalar outputs'",
    )
    # the traceback that is no longer printed is the same news: not repeated as an output diff
    assert "output changed" not in out


def test_now_raises(run: Run, project: Path) -> None:
    edit_script(project, RAISES, NO_RAISE)
    run("capture")
    edit_script(project, NO_RAISE, RAISES)
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        f"now raises at line {ERROR_LINE}:",
        "now: RuntimeError",
        "grad can be implicitly created only for scalar outputs",
    )


def test_now_raises_another_type(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")
    reword_backward(monkeypatch, lambda error: ValueError(str(error)))
    status, out, _ = run("drift")
    assert_drift_report(
        status, out, f"now raises at line {ERROR_LINE}:", "recorded: RuntimeError", "now: ValueError"
    )


def test_message_changed(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")
    reword_backward(monkeypatch, lambda error: RuntimeError(str(error).replace("scalar", "0-dim")))
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        f"message changed at line {ERROR_LINE}:",
        "grad can be implicitly created only for [-scalar-]{+0-dim+} outputs",
    )
    assert "output changed" not in out


def test_value_changed(run: Run, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")
    monkeypatch.setattr(behaviour, "total", lambda: torch.tensor(3.0))
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        f"value changed at line {VALUE_LINE}:",
        "total: tensor(2.) -> tensor(3.)",
    )
    assert "output changed" not in out


def test_no_longer_warns(run: Run, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")
    monkeypatch.setattr(behaviour, "warn", lambda: None)
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        f"no longer warns at line {WARNING_LINE}:",
        "recorded: UserWarning: careful",
        "documented: UserWarning matching 'careful'",
    )


def test_now_warns(run: Run, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(behaviour, "warn", lambda: None)
    run("capture")
    monkeypatch.setattr(behaviour, "warn", warn_careful)
    status, out, _ = run("drift")
    assert_drift_report(status, out, f"now warns at line {WARNING_LINE}:", "now: UserWarning: careful")


def test_warning_changed(run: Run, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")

    def future() -> None:
        warnings.warn("careful", FutureWarning, stacklevel=2)

    monkeypatch.setattr(behaviour, "warn", future)
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        f"warning changed at line {WARNING_LINE}:",
        "[-UserWarning:-]{+FutureWarning:+} careful",
    )
    # the example went on: the next cell still ran
    assert "status changed" not in out


def test_status_changed(run: Run, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    run("capture")

    def broken() -> None:
        raise KeyError("gone")

    monkeypatch.setattr(behaviour, "total", broken)
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        "cell 1 (lines 8-19)",
        "status changed:",
        "the cell ran before and failed now",
        "+KeyError: 'gone'",
        "cell 2 (lines 20-21)",
        "the cell ran before and not run now",
        "-the end",
    )


def test_cells_changed(run: Run, project: Path) -> None:
    run("capture")
    edit_script(project, 'print("the end")', 'print("the end")\nprint("and more")')
    status, out, _ = run("drift")
    assert_drift_report(
        status,
        out,
        "the example",
        "cells changed:",
        "the example was edited since it was recorded",
        "+and more",
    )


def test_code_edited_to_do_the_same_is_no_drift_but_is_named_until_captured(run: Run, project: Path) -> None:
    """The record is of an earlier version of the page: drift says so; a capture that behaves alike
    stamps it."""
    run("capture")
    before = load_record(project / RECORD)
    assert before is not None
    edit_script(project, 'print("the end")', 'print("the " + "end")')
    status, out, _ = run("drift")
    assert status == 0, out
    first = before["cells"][-1]["lines"][0]
    assert out.splitlines()[-3:] == [
        "No behaviour drift.",
        "1 record(s) ran an earlier version of their page's code; each page shows its record only before "
        "the line given (where the first cell whose code changed starts), until a machine of that runner "
        "records it again "
        "(CONTRIBUTING.md, 'Record on a GPU machine'):",
        f"  cpu/01_x/plot_fixture.json: from line {first}",
    ]
    assert load_record(project / RECORD) == before, "drift writes nothing"
    status, out, _ = run("capture")
    assert status == 0, out
    after = load_record(project / RECORD)
    assert after is not None
    assert after["cells"][-1]["code"] != before["cells"][-1]["code"]
    assert after["cells"][:-1] == before["cells"][:-1]
    assert after["recorded"] == before["recorded"]
    assert run("drift")[1].splitlines()[-1] == "No behaviour drift."


def test_a_new_pytorch_that_behaves_the_same_is_no_drift(run: Run, project: Path) -> None:
    run("capture")
    record = load_record(project / RECORD)
    assert record is not None
    record["runner"]["torch"] = "2.4.0+cpu"
    record["runner"]["python"] = "3.10.0"
    write_record(project / RECORD, record)
    status, out, _ = run("drift")
    assert status == 0, out
    assert out.splitlines()[-1] == "No behaviour drift."


# -- --json --------------------------------------------------------------------------------


def test_json_report_of_a_clean_run(run: Run, tmp_path: Path) -> None:
    run("capture")
    report_path = tmp_path / "not-yet" / "drift.json"  # its folder is made, as build/ in a clean clone
    status, _, _ = run("drift", "--device", "all", "--json", str(report_path))
    assert status == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["drift"] is False
    first = report["examples"][0]
    assert (first["example"], first["runner"], first["status"]) == (EXAMPLE, "cpu", "same")
    assert report["examples"][0]["differences"] == []
    assert report["examples"][0]["now"]["torch"] == torch.__version__


def test_json_report_of_a_drift(
    run: Run, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run("capture")
    monkeypatch.setattr(behaviour, "total", lambda: torch.tensor(3.0))
    report_path = tmp_path / "drift.json"
    status, _, _ = run("drift", "--json", str(report_path))
    assert status == 1
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["drift"] is True
    (example,) = report["examples"]
    assert (example["example"], example["status"]) == (EXAMPLE, "drift")
    assert example["before"]["torch"] == example["now"]["torch"] == torch.__version__
    assert [(d["kind"], d["line"], d["old"], d["new"], d["breaks"]) for d in example["differences"]] == [
        ("value changed", VALUE_LINE, "tensor(2.)", "tensor(3.)", True),
    ]
    assert example["differences"][0]["lines"] == [8, 19]


# -- --accept ---------------------------------------------------------------------------


def test_drift_without_accept_leaves_the_record_as_it_is(
    run: Run, project: Path, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("capture")
    before = (project / RECORD).read_bytes()
    monkeypatch.setattr(behaviour, "total", lambda: torch.tensor(3.0))
    status, out, _ = run("drift")
    assert status == 1
    assert "overwrote" not in out
    assert (project / RECORD).read_bytes() == before


def test_capture_keeps_a_differing_record_unless_accepted(
    run: Run, project: Path, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("capture")
    before = (project / RECORD).read_bytes()
    monkeypatch.setattr(behaviour, "total", lambda: torch.tensor(3.0))
    status, out, err = run("capture")
    assert status == 1
    assert "value changed" in out
    assert err == "capture: records that differ were kept; pass --accept to overwrite them\n"
    assert (project / RECORD).read_bytes() == before

    status, out, err = run("capture", "--accept")
    assert (status, err) == (0, "")
    assert f"{EXAMPLE} [cpu]: accepted" in out
    assert out.splitlines()[-1] == f"overwrote {RECORD}"
    record = load_record(project / RECORD)
    assert record is not None
    assert "total: tensor(3.)" in record["cells"][1]["output"]
    assert run("drift")[0] == 0


def test_drift_accept_overwrites_the_record(
    run: Run, project: Path, behaviour: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("capture")
    monkeypatch.setattr(behaviour, "total", lambda: torch.tensor(3.0))
    status, out, _ = run("drift", "--accept")
    assert status == 0
    assert out.splitlines()[-1] == f"overwrote {RECORD}"
    assert run("drift")[0] == 0


def test_an_unchanged_capture_keeps_the_record_and_its_date(run: Run, project: Path) -> None:
    run("capture")
    record = load_record(project / RECORD)
    assert record is not None
    record["recorded"] = "2000-01-01"
    write_record(project / RECORD, record)
    before = (project / RECORD).read_bytes()
    for args in ([], ["--accept"]):
        status, out, _ = run("capture", *args)
        assert status == 0
        assert "wrote" not in out
        assert (project / RECORD).read_bytes() == before
    status, out, _ = run("drift", "--accept")
    assert (status, (project / RECORD).read_bytes()) == (0, before)


def test_drift_accept_writes_a_missing_record(run: Run, project: Path) -> None:
    status, out, _ = run("drift", "--accept")
    assert status == 0
    assert out.splitlines()[-1] == f"wrote {RECORD}"


# -- runners ------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_cuda")
@pytest.mark.parametrize("device", ["cuda", "all"])
def test_cuda_is_skipped_without_a_cuda_device(run: Run, device: str) -> None:
    run("capture")
    status, out, err = run("drift", "--device", device)
    assert (status, err) == (0, "")
    assert (
        f"cuda: skipped: no CUDA device is available to this PyTorch ({torch.__version__}) "
        "(set REQUIRE_CUDA=1 to make this an error)"
    ) in out.splitlines()
    assert out.splitlines()[-1] == "No behaviour drift."
    assert ("cpu: compared 1 examples" in out) == (device == "all")


@pytest.mark.usefixtures("no_cuda")
@pytest.mark.parametrize("device", ["cuda", "all"])
def test_require_cuda_makes_a_missing_cuda_device_an_error(
    run: Run, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUIRE_CUDA", "1")
    status, out, err = run("drift", "--device", device)
    assert (status, out) == (2, "")
    assert err == (
        f"error: cuda runner: no CUDA device is available to this PyTorch ({torch.__version__}), "
        "and REQUIRE_CUDA=1 requires it\n"
    )


@pytest.mark.usefixtures("no_cuda")
def test_capture_on_cuda_without_a_cuda_device_is_skipped(run: Run, project: Path) -> None:
    status, out, _ = run("capture", "--device", "cuda")
    assert status == 0
    assert out.splitlines()[0].startswith("cuda: skipped: no CUDA device")
    assert not (project / "records").exists()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_capture_and_drift_on_cuda(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    records = tmp_path / "records"
    args = ["--root", str(ROOT), "--records", str(records), "plot_detach_inplace_saved"]
    assert main(["capture", "--device", "cuda", *args]) == 0
    record = load_record(records / "cuda" / "05_inplace" / "plot_detach_inplace_saved.json")
    assert record is not None
    assert record["runner"]["device"] == "cuda"
    assert record["runner"]["device_name"] == torch.cuda.get_device_name()
    assert all(e["holds"] for c in record["cells"] for e in c["events"])
    outputs = "\n".join(line for c in record["cells"] for line in c["output"])
    assert "torch.cuda.FloatTensor" in outputs
    assert "device='cuda" not in outputs
    capsys.readouterr()
    assert main(["drift", "--device", "cuda", *args]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "No behaviour drift."


# -- choosing examples, finding the project -------------------------------------------------


@pytest.mark.parametrize(
    "name", ["plot_fixture", "plot_fixture.py", "01_x/plot_fixture", EXAMPLE, f"gallery/{EXAMPLE}"]
)
def test_an_example_is_named_by_stem_file_or_path(run: Run, project: Path, name: str) -> None:
    other = project / "gallery" / "02_y" / "plot_other.py"
    other.parent.mkdir()
    other.write_text('"""Other."""\n\n# %%\nprint("other")\n', encoding="utf-8")
    status, out, _ = run("capture", name)
    assert status == 0
    assert "compared 1 examples" in out
    assert out.splitlines()[-1] == f"wrote {RECORD}"


def test_an_unknown_example_is_a_usage_error(run: Run) -> None:
    status, out, err = run("drift", "plot_fixture", "plot_nope")
    assert (status, out) == (2, "")
    assert err == "error: no example 'plot_nope' in gallery/ (examples are e.g. 01_x/plot_fixture.py)\n"


def test_a_corrupt_record_names_the_file_line_and_column(run: Run, project: Path) -> None:
    run("capture")
    path = project / RECORD
    path.write_text('{\n "format": 1,\n "cells": [\n', encoding="utf-8")
    status, out, err = run("drift")
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {path}: not valid JSON: line 4 column 1: ")
    status, _, err = run("capture")
    assert status == 2
    assert str(path) in err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"[]", "not a record of format 1"),
        (
            b'{"format": 1, "cells": [{}]}',
            "not a valid record: missing key(s): 'example', 'recorded', 'runner'",
        ),
        (b"\xff\xfe", "not UTF-8 text (invalid start byte at byte 0)"),
    ],
    ids=["a-list", "a-cell-without-fields", "not-utf-8"],
)
def test_a_malformed_record_is_one_line_and_exit_2_in_drift_and_capture(
    run: Run, project: Path, content: bytes, said: str
) -> None:
    """Exit 2 (never 1, which means drift) and one line naming the file and the field, no traceback."""
    run("capture")
    path = project / RECORD
    path.write_bytes(content)
    for command in ("drift", "capture"):
        status, out, err = run(command)
        assert (status, out, err) == (2, "", f"error: {path}: {said}\n"), command


def test_an_example_that_prints_without_end_is_refused_and_not_recorded(
    run: Run, project: Path, behaviour: types.ModuleType
) -> None:
    def loud_total() -> torch.Tensor:
        print("x" * 300_000)  # over a quarter of the default 1024 KiB
        return torch.ones(2).sum()

    behaviour.total = loud_total  # type: ignore[attr-defined]
    status, out, err = run("capture")
    assert (status, out) == (2, "")
    cell = SCRIPT.splitlines().index("# %%") + 1
    assert err == (
        f"error: plot_fixture.py: the cell at line {cell} printed 293 KiB, over the limit of 256 KiB "
        "per cell (a quarter of AUTOGRAD_NOTES_OUTPUT_LIMIT_KIB, 1.0 MiB)\n"
    )
    assert not (project / RECORD).exists()


def test_the_project_is_found_from_the_current_folder(
    run: Run, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run("capture")
    monkeypatch.chdir(project / "gallery" / "01_x")
    assert main(["drift", "--device", "cpu"]) == 0
    assert "1 same" in capsys.readouterr().out


def test_no_project_above_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["drift"]) == 2
    assert capsys.readouterr().err == (
        f"error: no project with gallery/ and pyproject.toml above {tmp_path}; pass --root\n"
    )


def test_a_root_without_examples_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["drift", "--root", str(tmp_path / "typo")]) == 2
    assert capsys.readouterr().err == f"error: no examples (gallery/*/plot_*.py) in {tmp_path / 'typo'}\n"


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["drift", "--device", "tpu"], ["capture", "--device", "all"], ["drift", "--json"], []):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2, argv
    assert "invalid choice: 'tpu'" in capsys.readouterr().err


def test_python_dash_m_runs_the_command(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "gallery" / "01_x").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "fixture"\n', encoding="utf-8")
    (root / "gallery" / EXAMPLE).write_text('"""Doc."""\n\n# %%\nprint("hello")\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (DEVICE_VARIABLE, "REQUIRE_CUDA")}
    command = [sys.executable, "-m", "autograd_notes"]
    result = subprocess.run(
        [*command, "capture"], cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"wrote {RECORD}"
    result = subprocess.run(
        [*command, "drift", "--device", "cpu"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[-1] == "No behaviour drift."


# -- records belong to the pinned PyTorch ----------------------------------------------


@pytest.mark.parametrize("command", [("drift", "--accept"), ("capture",), ("capture", "--accept")])
def test_another_release_never_writes_the_runner_records(
    run: Run, project: Path, command: tuple[str, ...]
) -> None:
    (project / "constraints").mkdir()
    (project / "constraints" / "torch.txt").write_text("# the pin\ntorch==0.4.1\n", encoding="utf-8")
    status, out, err = run(*command)
    assert status == 2, out
    assert (
        f"this is PyTorch {torch.__version__}, but the records are those of the pinned PyTorch 0.4.1" in err
    )
    assert "constraints/torch.txt" in err
    assert not (project / RECORD).exists()
    # comparing is always allowed: the report says what this release does
    assert run("drift")[0] == 1  # no record yet: a failure, and nothing written
    assert not (project / RECORD).exists()


def test_the_pinned_release_writes_whatever_its_build_variant(run: Run, project: Path) -> None:
    (project / "constraints").mkdir()
    release = torch.__version__.partition("+")[0]
    (project / "constraints" / "torch.txt").write_text(f"torch=={release}\n", encoding="utf-8")
    assert run("capture")[0] == 0
    assert (project / RECORD).exists()


def test_the_project_pins_the_torch_of_its_records() -> None:
    from autograd_notes.records.cli import pinned_torch

    assert pinned_torch(ROOT) == torch.__version__.partition("+")[0]


# -- release records: the timeline ------------------------------------------------------

RELEASE = torch.__version__.partition("+")[0]
RELEASE_RECORD = f"records/releases/{RELEASE}/cpu/01_x/plot_fixture.json"


def pin(project: Path, version: str) -> None:
    (project / "constraints").mkdir(exist_ok=True)
    (project / "constraints" / "torch.txt").write_text(f"torch=={version}\n", encoding="utf-8")


def test_capture_release_writes_this_release_records_only(run: Run, project: Path) -> None:
    pin(project, "0.4.1")  # this PyTorch is another release than the pinned one
    status, out, err = run("capture", "--release")
    assert (status, err) == (0, "")
    assert out.splitlines()[-1] == f"wrote {RELEASE_RECORD}"
    assert not (project / RECORD).exists()
    record = load_record(project / RELEASE_RECORD)
    assert record is not None
    assert record["runner"]["torch"] == torch.__version__


def test_capture_release_of_the_pinned_release_writes_the_runner_records(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.version, "cuda", None)  # the pinned release's own (CPU) build
    pin(project, RELEASE)
    status, out, err = run("capture", "--release")
    assert (status, err) == (0, "")
    assert (
        f"PyTorch {RELEASE} is the pinned release: its cpu records are the runner records, records/cpu" in out
    )
    assert out.splitlines()[-1] == f"wrote {RECORD}"
    assert not (project / "records" / "releases").exists()


def test_capture_release_of_the_pinned_cuda_build_on_the_cpu_is_a_release_record(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.version, "cuda", "12.8")  # as the registry builds every release
    pin(project, RELEASE)
    status, out, err = run("capture", "--release")
    assert (status, err) == (0, "")
    assert out.splitlines()[-1] == f"wrote {RELEASE_RECORD}"
    assert not (project / RECORD).exists()


@pytest.mark.usefixtures("no_cuda")
def test_capture_release_on_a_missing_gpu_is_a_usage_error(run: Run, project: Path) -> None:
    pin(project, "0.4.1")
    status, _, err = run("capture", "--release", "--device", "cuda", "--archive", "out.tar.gz")
    assert status == 2
    assert "cuda runner: no CUDA device is available to this PyTorch" in err
    assert not (project / "records").exists()


def test_mps_and_xpu_records_are_release_records(run: Run, project: Path) -> None:
    status, _, err = run("capture", "--device", "mps")
    assert status == 2
    assert "mps records are release records: add --release" in err


def test_a_release_run_never_overwrites_its_records_without_accept(
    run: Run, project: Path, behaviour: types.ModuleType
) -> None:
    pin(project, "0.4.1")
    assert run("capture", "--release")[0] == 0
    before = (project / RELEASE_RECORD).read_text(encoding="utf-8")
    behaviour.total = lambda: torch.ones(3).sum()  # type: ignore[attr-defined]
    status, _, err = run("capture", "--release")
    assert status == 1
    assert "records that differ were kept; pass --accept to overwrite them" in err
    assert (project / RELEASE_RECORD).read_text(encoding="utf-8") == before
    assert run("capture", "--release", "--accept")[0] == 0
    record = load_record(project / RELEASE_RECORD)
    assert record is not None
    values = [e["value"] for c in record["cells"] for e in c["events"] if e["kind"] == "value"]
    assert values == ["tensor(3.)"]


def test_drift_on_another_release_compares_with_its_release_records(
    run: Run, project: Path, behaviour: types.ModuleType
) -> None:
    pin(project, RELEASE)
    assert run("capture")[0] == 0  # today's records, by the pinned release
    pin(project, "0.4.1")  # from now on this PyTorch plays an older release that sums otherwise
    behaviour.total = lambda: torch.ones(3).sum()  # type: ignore[attr-defined]
    status, out, _ = run("drift")
    assert status == 1
    assert out.splitlines()[0] == (
        f"PyTorch {RELEASE} is not the pinned 0.4.1 and has no release records, nor has any other release: "
        "compared with 0.4.1's, so every difference between the two releases is reported"
    )
    assert out.splitlines()[-1].endswith(RECORD_IT)
    assert run("capture", "--release")[0] == 0
    status, out, _ = run("drift")
    assert status == 0, out
    assert out.splitlines()[0] == (
        f"PyTorch {RELEASE} is not the pinned 0.4.1: compared with its own release records "
        f"(records/releases/{RELEASE}), what the timeline shows for it"
    )
    # the release now behaves otherwise than its records: the advice records it again for the timeline
    behaviour.total = lambda: torch.ones(4).sum()  # type: ignore[attr-defined]
    status, out, err = run("drift")
    assert status == 1
    assert out.splitlines()[-1].endswith(
        f"Then record what PyTorch {RELEASE} does now for the timeline with "
        f"`nox -s timeline -- {RELEASE} --accept`."
    )
    assert "drift --accept" not in out + err
    assert out.splitlines()[0] == (
        f"PyTorch {RELEASE} is not the pinned 0.4.1: compared with its own release records "
        f"(records/releases/{RELEASE}), what the timeline shows for it"
    )


RECORD_IT = (
    f"PyTorch {RELEASE} has no release records: record it for the timeline with "
    f"`nox -s timeline -- {RELEASE}` (`drift --accept` writes only the pinned release's records)."
)


def test_drift_on_an_unrecorded_release_compares_with_the_nearest_recorded_one(
    run: Run, project: Path, behaviour: types.ModuleType
) -> None:
    """Only what changed since the newest older recorded release is listed, and the timeline is advised."""
    pin(project, "0.4.1")
    older, oldest = older_release(), "0.3.0"
    behaviour.total = lambda: torch.ones(5).sum()  # type: ignore[attr-defined]
    assert run("capture", "--release")[0] == 0  # what the nearest older release did (a sum of 5)
    (project / "records" / "releases" / RELEASE).rename(project / "records" / "releases" / older)
    behaviour.total = lambda: torch.ones(7).sum()  # type: ignore[attr-defined]
    assert run("capture", "--release")[0] == 0  # an older one still, which did otherwise (7)
    (project / "records" / "releases" / RELEASE).rename(project / "records" / "releases" / oldest)
    behaviour.total = lambda: torch.ones(6).sum()  # type: ignore[attr-defined]
    status, out, _ = run("drift")
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == (
        f"PyTorch {RELEASE} is not the pinned 0.4.1 and has no release records: compared with {older}'s "
        f"(records/releases/{older}), the nearest recorded release, so only what differs from {older} "
        "is reported"
    )
    assert [line.strip() for line in lines if "->" in line] == ["total: tensor(5.) -> tensor(6.)"]
    assert lines[-1].endswith(RECORD_IT)
    assert "drift --accept`." not in out.replace(RECORD_IT, "")
    assert not (project / "records" / "releases" / RELEASE).exists(), "a drift check writes nothing"


def older_release() -> str:
    """A release older than this PyTorch's, newer than 0.4.1: the minor release before (2.13.0 -> 2.12.0)."""
    major, minor, _ = (int(part) for part in RELEASE.split("."))
    return f"{major}.{minor - 1}.0" if minor else f"{major - 1}.99.0"


def test_release_notes_of_the_project_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["release-notes", "--root", str(ROOT), "--check"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out == "src/autograd_notes/release_notes.json is up to date with records/\n"


def test_release_notes_out_of_date(run: Run, project: Path) -> None:
    status, _, err = run("release-notes", "--check")
    assert status == 1
    assert "src/autograd_notes/release_notes.json is out of date with records/" in err
    (project / "src" / "autograd_notes").mkdir(parents=True)
    assert run("release-notes")[0] == 0
    assert run("release-notes", "--check")[0] == 0


def test_a_drift_report_says_when_the_build_variant_differs(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("capture")
    record = load_record(project / RECORD)
    assert record is not None
    record["runner"]["variant"] = "CUDA 13.0"
    write_record(project / RECORD, record)
    reword_backward(monkeypatch, lambda error: RuntimeError(str(error) + " (reworded)"))
    status, out, _ = run("drift")
    assert status == 1
    variant = str(record["runner"]["variant"])
    lines = [line for line in out.splitlines() if line.startswith("  build:")]
    assert len(lines) == 1
    assert lines[0].startswith(f"  build:    {variant} -> ")
    assert lines[0].endswith("a build-specific message may differ for that reason alone")
