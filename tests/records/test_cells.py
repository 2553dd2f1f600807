"""split_cells and run_cells: run a gallery script cell by cell, as sphinx-gallery does."""

from __future__ import annotations

import re
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from autograd_notes.records.capture.cells import Cell, CellResult, run_cells, split_cells
from autograd_notes.records.capture.reset import TIMEOUT_VARIABLE, reset_torch_state
from autograd_notes.records.format.missing_api import is_missing_api

EXAMPLE = "gallery/01_x/plot_fixture.py"

SCRIPT = '''"""
Fixture
=======

What the cells do.
"""

# %%
import sys
from pathlib import Path

import torch

print("cwd:", Path.cwd().name)
print("grad enabled:", torch.is_grad_enabled())
print("to stderr", file=sys.stderr)
kept = 41

# %%
print("kept:", kept + 1)
torch.ones(2, requires_grad=True).mul(2).backward()

# %%
print("never")
'''


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the only line of ``text`` containing ``needle``."""
    found = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


def write_project(root: Path, script: str) -> Path:
    """A tiny project: pyproject.toml and one example; return the example's path."""
    (root / "pyproject.toml").write_text('[project]\nname = "fixture"\n', encoding="utf-8")
    path = root / EXAMPLE
    path.parent.mkdir(parents=True)
    path.write_text(script, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def torch_defaults() -> Iterator[None]:
    """PyTorch's defaults after each test, whatever a script or a test changed."""
    yield
    reset_torch_state()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(TIMEOUT_VARIABLE, raising=False)
    return root


# -- split_cells ---------------------------------------------------------------------


def test_split_cells_gives_every_line_to_one_cell() -> None:
    cells = split_cells(SCRIPT)
    assert [(c.first, c.last) for c in cells] == [
        (1, 7),
        (8, 18),
        (19, 22),
        (23, 24),
    ]
    assert cells[0].code.startswith('"""\nFixture')
    assert cells[1].code.startswith("# %%\nimport sys")
    assert cells[3] == Cell(23, 24, '# %%\nprint("never")')
    assert cells[-1].last == len(SCRIPT.splitlines())


def test_split_cells_markers() -> None:
    source = "# %%\na = 1\n#%%\nb = 2\n    # %%\nc = 3\n# %% [markdown]\n# text\n"
    cells = split_cells(source)
    # a marker on the first line starts no second cell; an indented one is no marker
    assert [(c.first, c.last) for c in cells] == [(1, 2), (3, 6), (7, 8)]
    assert cells[1].code == "#%%\nb = 2\n    # %%\nc = 3"


def test_split_cells_without_markers_is_one_cell() -> None:
    assert split_cells('"""Doc."""\nx = 1\n') == [Cell(1, 2, '"""Doc."""\nx = 1')]


# -- run_cells -----------------------------------------------------------------------


def test_cells_run_in_order_in_one_namespace_and_capture_each_output(project: Path) -> None:
    results = run_cells(write_project(project, SCRIPT), project)
    assert [(r.first, r.last, r.status) for r in results] == [
        (1, 7, "ran"),
        (8, 18, "ran"),
        (19, 22, "failed"),
        (23, 24, "not run"),
    ]
    assert results[0].output == []
    # stdout and stderr of the cell, in the script's own folder
    assert results[1].output == ["cwd: 01_x", "grad enabled: True", "to stderr"]
    assert results[2].output[0] == "kept: 42"
    assert results[3].output == []


def test_a_traceback_names_the_scripts_own_line(project: Path) -> None:
    results = run_cells(write_project(project, SCRIPT), project)
    line = line_of(SCRIPT, ".mul(2).backward()")
    output = results[2].output
    assert output[1:4] == [
        "Traceback (most recent call last):",
        f'  File "{EXAMPLE}", line {line}, in <module>',
        "    torch.ones(2, requires_grad=True).mul(2).backward()",
    ]
    assert re.fullmatch(r"  \[\d+ frames inside PyTorch: torch\._tensor\.backward( > [\w.]+)+\]", output[4])
    assert output[5] == "RuntimeError: grad can be implicitly created only for scalar outputs"
    assert len(output) == 6


def test_documented_errors_do_not_stop_the_run_and_are_reported(project: Path) -> None:
    backward = "torch.ones(2, requires_grad=True).mul(2).backward()"
    script = SCRIPT.replace(backward, f"with expect_error(RuntimeError, match='scalar'):\n    {backward}")
    script = script.replace("import torch\n", "import torch\n\nfrom autograd_notes import expect_error\n")
    results = run_cells(write_project(project, script), project)
    line = line_of(script, "with expect_error")
    assert [r.status for r in results] == ["ran", "ran", "ran", "ran"]
    assert results[2].events == [
        {
            "kind": "error",
            "line": line,
            "documented": "RuntimeError matching 'scalar'",
            "raised": "RuntimeError",
            "message": "grad can be implicitly created only for scalar outputs",
            "holds": True,
        }
    ]
    assert f'  File "{EXAMPLE}", line {line + 1}, in <module>' in results[2].output
    assert results[3].output == ["never"]
    assert results[1].events == []


def test_a_check_that_fails_is_reported_and_the_run_goes_on(project: Path) -> None:
    script = (
        '"""Doc."""\n\n# %%\nfrom autograd_notes import check\ncheck(2 + 2, 5, label="sum")\nprint("on")\n'
    )
    results = run_cells(write_project(project, script), project)
    assert results[1].status == "ran"
    assert results[1].output == ["sum: 4", "on"]
    assert results[1].events[0]["holds"] is False
    assert results[1].events[0]["line"] == 5


def test_an_undocumented_warning_is_recorded_and_the_example_goes_on(project: Path) -> None:
    """A capture records a warning no expect_warning catches, and every later line still runs.

    (A site build fails on it: tests/records/test_reset.py.)
    """
    script = (
        '"""Doc."""\n\n# %%\nimport warnings\nwarnings.warn("careful", FutureWarning, stacklevel=1)\n'
        'print("after")\n\n# %%\nprint("next cell")\n'
    )
    warned, later = run_cells(write_project(project, script), project)[1:]
    assert (warned.status, warned.output) == ("ran", ["after"])
    assert warned.unexpected == [
        {"line": line_of(script, "warnings.warn"), "category": "FutureWarning", "message": "careful"}
    ]
    assert warned.as_record()["unexpected"] == warned.unexpected
    assert (later.status, later.output, later.unexpected) == ("ran", ["next cell"], [])
    assert "unexpected" not in later.as_record(), "a record holds the key only where a cell warned so"


def test_an_unexpected_warning_from_inside_pytorch_names_the_example_line_once(project: Path) -> None:
    """Where PyTorch warns, the example's line that called it is recorded; a loop's repeats once."""
    script = (
        '"""Doc."""\n\n# %%\nimport torch\nx = torch.ones(2, requires_grad=True).mul(2)\n'
        "for _ in range(3):\n    x.grad\n"
    )
    (warned,) = run_cells(write_project(project, script), project)[1].unexpected
    assert warned["line"] == line_of(script, "    x.grad")
    assert warned["category"] == "UserWarning"
    assert "not a leaf Tensor is being accessed" in warned["message"]


def test_expect_warning_keeps_its_own_and_the_others_are_unexpected(project: Path) -> None:
    script = (
        '"""Doc."""\n\n# %%\nimport warnings\nfrom autograd_notes import expect_warning\n'
        'with expect_warning(UserWarning, match="documented"):\n'
        '    warnings.warn("documented", UserWarning, stacklevel=1)\n'
        '    warnings.warn("other", DeprecationWarning, stacklevel=1)\n'
    )
    cell = run_cells(write_project(project, script), project)[1]
    assert cell.status == "ran"
    assert [(e["kind"], e["holds"]) for e in cell.events] == [("warning", True)]
    assert [(w["category"], w["message"]) for w in cell.unexpected] == [("DeprecationWarning", "other")]


def test_plt_show_on_a_non_interactive_backend_is_no_unexpected_warning(project: Path) -> None:
    script = (
        '"""Doc."""\n\n# %%\nimport matplotlib\nmatplotlib.use("agg")\n'
        "import matplotlib.pyplot as plt\nplt.show()\n"
    )
    assert run_cells(write_project(project, script), project)[1].unexpected == []


def test_output_holds_no_absolute_path_or_address(project: Path) -> None:
    script = '"""Doc."""\n\n# %%\nprint(__file__)\nprint(object())\nprint(__name__)\n'
    results = run_cells(write_project(project, script), project)
    assert results[1].output == [EXAMPLE, "<object>", "__main__"]


def test_cwd_warning_filters_and_alarm_are_restored(project: Path, tmp_path: Path) -> None:
    handler = signal.getsignal(signal.SIGALRM)
    filters = list(warnings.filters)
    run_cells(write_project(project, SCRIPT), project)
    assert Path.cwd() == tmp_path
    assert warnings.filters == filters
    assert signal.getsignal(signal.SIGALRM) == handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_cwd_is_restored_when_the_reset_fails(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIMEOUT_VARIABLE, "soon")
    filters = list(warnings.filters)
    with pytest.raises(ValueError, match="is not a number of seconds"):
        run_cells(write_project(project, SCRIPT), project)
    assert Path.cwd() == tmp_path
    assert warnings.filters == filters


def test_the_reset_hook_runs_before_and_after(project: Path) -> None:
    script = (
        '"""Doc."""\n\n# %%\nimport torch\n'
        "print(torch.is_grad_enabled(), torch.get_default_dtype(), torch.rand(1).item())\n"
        "torch.set_grad_enabled(False)\n"
        "torch.set_default_dtype(torch.float64)\n"
        "torch.autograd.set_detect_anomaly(True)\n"
    )
    path = write_project(project, script)
    torch.set_grad_enabled(False)
    torch.set_default_dtype(torch.float16)
    first = run_cells(path, project)
    assert torch.is_grad_enabled()
    assert torch.get_default_dtype() == torch.float32
    assert not torch.is_anomaly_enabled()
    # seeded: the same draw on every run
    assert first[1].output[0].startswith("True torch.float32 ")
    assert run_cells(path, project)[1].output == first[1].output


def test_as_record_is_the_stored_form() -> None:
    result = CellResult(3, 9, output=["a"], events=[{"kind": "value"}], status="failed")
    assert result.as_record() == {
        "lines": [3, 9],
        "status": "failed",
        "output": ["a"],
        "events": [{"kind": "value"}],
    }
    assert CellResult(1, 2).status == "ran"


@pytest.mark.parametrize(
    ("code", "last"),
    [
        ("torch.no_such_api_yet(1)", "AttributeError: module 'torch' has no attribute 'no_such_api_yet'"),
        (
            "from torch import no_such_api_yet",
            "ImportError: cannot import name 'no_such_api_yet' from 'torch'",
        ),
        ("torch.ones(2, new_keyword=True)", "TypeError: ones() got an unexpected keyword argument"),
        (
            "torch.nn.functional.relu(torch.ones(2), new_keyword=True)",
            "TypeError: relu() got an unexpected keyword",
        ),
    ],
)
def test_a_cell_calling_an_api_the_release_lacks_is_unavailable(project: Path, code: str, last: str) -> None:
    script = f'"""Doc."""\n\n# %%\nimport torch\n\n# %%\n{code}\n\n# %%\nprint("after")\n'
    results = run_cells(write_project(project, script), project)
    statuses = [result.status for result in results]
    assert statuses == ["ran", "ran", "unavailable", "not run"]
    assert results[2].output[-1].startswith(last)


@pytest.mark.parametrize(
    ("exception", "message", "missing"),
    [
        ("ImportError", "cannot import name 'x' from 'torch.func'", True),
        ("ModuleNotFoundError", "No module named 'torch.x'", True),
        ("ModuleNotFoundError", "No module named 'scipy'", False),
        ("AttributeError", "'NoneType' object has no attribute 'zero_'", False),
        ("AttributeError", "'Tensor' object has no attribute 'new_api'", True),
        ("AttributeError", "module 'torch' has no attribute 'x'", True),
        ("AttributeError", "Unknown attribute fp32_precision", True),
        ("TypeError", "f() got an unexpected keyword argument 'x'", True),
        ("TypeError", "unsupported operand type(s)", False),
        ("RuntimeError", "has no attribute", False),
        ("NameError", "name 'x' is not defined", False),
    ],
)
def test_is_missing_api(exception: str, message: str, missing: bool) -> None:
    assert is_missing_api(exception, message) is missing
