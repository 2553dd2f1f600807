"""Bad examples fail the build, naming the file and line: each way, on a tiny fixture site."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest
from _site import Build, copy_project, executions, sphinx_build

from autograd_notes.records.capture.reset import memory_limit_applies

INDEX = """\
# Fixture

```{toctree}
examples/index
```
"""


def fixture_site(tmp_path: Path, example: str, *more: tuple[str, str]) -> Path:
    """The real conf.py, a one-page index and a gallery of ``plot_bad.py`` (and ``more``)."""
    project = copy_project(tmp_path, gallery=False)
    docs = project / "docs"
    for page in docs.glob("*.md"):
        page.unlink()
    for folder in [p for p in docs.iterdir() if p.is_dir() and not p.name.startswith("_")]:
        for page in folder.rglob("*.md"):
            page.unlink()
    (docs / "index.md").write_text(INDEX, encoding="utf-8")
    gallery = project / "gallery"
    gallery.mkdir()
    (gallery / "GALLERY_HEADER.rst").write_text("Fixture gallery\n===============\n", encoding="utf-8")
    for name, code in [("plot_bad.py", example), *more]:
        (gallery / name).write_text(textwrap.dedent(code), encoding="utf-8")
    return project


def line_of(example: str, needle: str) -> int:
    return next(n for n, line in enumerate(textwrap.dedent(example).splitlines(), 1) if needle in line)


# The fixture examples have no records: each test here is about one other failure.
NO_RECORDS = ("-D", "autograd_notes_require_records=0")


def build(tmp_path: Path, example: str, **env: str) -> Build:
    return sphinx_build(fixture_site(tmp_path, example), *NO_RECORDS, env=env, timeout=300)


GOOD = '''\
"""
A good example
==============

It documents one error, and the error happens.
"""

# %%
import torch

from autograd_notes import expect_error

with expect_error(RuntimeError, match="only for scalar outputs"):
    torch.ones(2, requires_grad=True).mul(2).backward()
'''


def test_fixture_site_builds_when_the_example_is_good(tmp_path: Path) -> None:
    """The control: the failures below come from the examples, not from the fixture."""
    result = build(tmp_path, GOOD)
    assert result.returncode == 0, result.output[-3000:]
    assert "grad can be implicitly created only for scalar outputs" in result.page("examples/plot_bad.html")


UNDOCUMENTED = '''\
"""
Undocumented error
==================

A cell raises an error that no ``expect_error`` documents.
"""

# %%
import torch

x = torch.ones(2, requires_grad=True)
x.mul(2).backward()
'''


def test_undocumented_error_fails_with_file_and_line(tmp_path: Path) -> None:
    result = build(tmp_path, UNDOCUMENTED)
    assert result.returncode != 0
    assert "plot_bad.py unexpectedly failed to execute correctly" in result.output
    assert f'plot_bad.py", line {line_of(UNDOCUMENTED, "backward()")}' in result.output
    assert "grad can be implicitly created only for scalar outputs" in result.output


DRIFT = '''\
"""
A documented error that no longer happens
=========================================

The text says this raises; today's PyTorch does not.
"""

# %%
import torch

from autograd_notes import expect_error

x = torch.ones(2, requires_grad=True)
with expect_error(RuntimeError, match="only for scalar outputs"):
    x.sum().backward()
'''


def test_documented_error_that_stops_happening_fails_with_drift(tmp_path: Path) -> None:
    result = build(tmp_path, DRIFT)
    assert result.returncode != 0
    line = line_of(DRIFT, "with expect_error")
    assert f"BehaviourDrift: behaviour drift at gallery/plot_bad.py:{line}" in result.output
    assert "documented: RuntimeError matching 'only for scalar outputs'" in result.output
    assert "observed:   no exception was raised" in result.output


HANG = '''\
"""
A hanging example
=================

It never finishes.
"""

# %%
import time

while True:
    time.sleep(0.05)
'''


def test_hanging_example_fails_after_its_timeout_naming_the_file(tmp_path: Path) -> None:
    result = build(tmp_path, HANG, AUTOGRAD_NOTES_EXAMPLE_TIMEOUT="3")
    assert result.returncode != 0
    assert "ExampleTimeout: plot_bad.py did not finish within 3 s" in result.output
    assert "plot_bad.py unexpectedly failed to execute correctly" in result.output


SWALLOWS_EVERYTHING = '''\
"""
An example that swallows its timeout
====================================

It catches every exception, the timeout's too, and goes on.
"""

# %%
import time

while True:
    try:
        time.sleep(1)
    except Exception:
        pass
'''

LOOPS_IN_C = '''\
"""
An example that loops inside C
==============================

It never comes back to Python, where the timeout would be raised.
"""

# %%
import collections
import itertools

collections.deque(itertools.repeat(0), maxlen=0)
'''


@pytest.mark.parametrize("example", [SWALLOWS_EVERYTHING, LOOPS_IN_C], ids=["except-exception", "c-loop"])
def test_an_example_that_cannot_be_interrupted_is_stopped_in_bounded_time(
    tmp_path: Path, example: str
) -> None:
    """The timeout's exception cannot stop these: the watchdog process ends the build, naming the file."""
    start = time.monotonic()
    result = build(tmp_path, example, AUTOGRAD_NOTES_EXAMPLE_TIMEOUT="2")
    assert result.returncode != 0
    assert "plot_bad.py did not stop within 7 s, its timeout and a grace period" in result.output
    assert time.monotonic() - start < 120


LOUD = '''\
"""
A loud example
==============

It prints far more than any page should hold.
"""

# %%
print("x" * 40_000)
'''


def test_an_example_that_prints_over_the_limit_fails_naming_it(tmp_path: Path) -> None:
    result = build(tmp_path, LOUD, AUTOGRAD_NOTES_OUTPUT_LIMIT_KIB="64")
    assert result.returncode != 0
    said = "examples/plot_bad: the cell at line 9 printed 39 KiB, over the limit of 16 KiB per cell"
    assert said in result.output
    assert "AUTOGRAD_NOTES_OUTPUT_LIMIT_KIB" in result.output


STRAY_WARNING = '''\
"""
An undocumented warning
=======================

A cell warns, and no ``expect_warning`` documents it.
"""

# %%
import torch

a = torch.ones(1, requires_grad=True)
b = a * 2
b.grad
'''


def test_undocumented_warning_fails_the_build(tmp_path: Path) -> None:
    result = build(tmp_path, STRAY_WARNING)
    assert result.returncode != 0
    assert f'plot_bad.py", line {line_of(STRAY_WARNING, "b.grad")}' in result.output
    assert "UserWarning: The .grad attribute of a Tensor that is not a leaf" in result.output


LEAKER = '''\
"""
State that must not leak
========================

Changes global PyTorch state and does not restore it.
"""

# %%
import torch

torch.set_grad_enabled(False)
torch.autograd.set_detect_anomaly(True)
torch.set_default_dtype(torch.float64)
torch.use_deterministic_algorithms(True)
torch.backends.cudnn.deterministic = True
torch.backends.cuda.matmul.allow_tf32 = True
torch.set_float32_matmul_precision("medium")
torch.set_printoptions(precision=1)
torch.rand(5)
'''

CHECKER = '''\
"""
The next example
================

Finds PyTorch's defaults again, whatever the example before it did.
"""

# %%
import torch

from autograd_notes import check

check(torch.is_grad_enabled(), True, label="grad mode")
check(torch.is_anomaly_enabled(), False, label="anomaly mode")
check(torch.get_default_dtype(), torch.float32, label="default dtype")
check(torch.are_deterministic_algorithms_enabled(), False, label="deterministic")
check(torch.backends.cudnn.deterministic, False, label="cuDNN deterministic")
check(torch.backends.cuda.matmul.allow_tf32, False, label="TF32 matmul")
check(torch.get_float32_matmul_precision(), "highest", label="float32 matmul precision")
check(str(torch.tensor([0.123456])), "tensor([0.1235])", label="print options")
check(torch.rand(2), torch.tensor([0.4963, 0.7682]), atol=1e-4, rtol=0, label="seeded rand")
'''


def test_one_example_cannot_leak_state_into_the_next(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    project = fixture_site(tmp_path, LEAKER, ("plot_checker.py", CHECKER))
    result = sphinx_build(project, *NO_RECORDS, env={"AUTOGRAD_NOTES_EXECUTION_LOG": str(log)}, timeout=300)
    assert result.returncode == 0, result.output[-3000:]
    assert executions(log) == ["plot_bad.py", "plot_checker.py"]
    assert "seeded rand: tensor([0.4963, 0.7682])" in result.page("examples/plot_checker.html")


BROKEN_NOTEBOOK = """\
---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---

# A notebook whose documented error stopped happening

```{code-cell} ipython3
import torch

from autograd_notes import expect_error

with expect_error(RuntimeError, match="only for scalar outputs"):
    torch.ones(2, requires_grad=True).sum().backward()
```
"""


def test_notebook_page_with_drift_fails_naming_the_page(tmp_path: Path) -> None:
    project = fixture_site(tmp_path, GOOD)
    (project / "docs" / "broken.md").write_text(BROKEN_NOTEBOOK, encoding="utf-8")
    index = project / "docs" / "index.md"
    index.write_text(INDEX.replace("examples/index", "examples/index\nbroken"), encoding="utf-8")
    result = sphinx_build(project, *NO_RECORDS, timeout=300)
    assert result.returncode != 0
    assert "broken.md" in result.output
    assert "Executing notebook failed: CellExecutionError" in result.output
    assert "behaviour drift at <cell>:5" in result.output


GREEDY = '''\
"""
A greedy example
================

Allocates far more memory than an example may.
"""

# %%
import torch

big = torch.empty(2**31, dtype=torch.uint8)
big.fill_(1)
'''


@pytest.mark.skipif(not memory_limit_applies(), reason="the memory limit applies on Linux without CUDA only")
def test_an_example_over_its_memory_limit_fails_naming_the_file(tmp_path: Path) -> None:
    result = build(tmp_path, GREEDY, AUTOGRAD_NOTES_EXAMPLE_MEMORY="512")
    assert result.returncode != 0
    assert "plot_bad.py unexpectedly failed to execute correctly" in result.output
    assert f'plot_bad.py", line {line_of(GREEDY, "torch.empty")}' in result.output
    assert "DefaultCPUAllocator: can't allocate memory" in result.output


def test_an_example_without_a_record_fails_the_build_with_the_command_to_record_it(tmp_path: Path) -> None:
    project = fixture_site(tmp_path, GOOD)
    section = project / "gallery" / "01_fixture"
    section.mkdir()
    (section / "GALLERY_HEADER.rst").write_text("A section\n=========\n", encoding="utf-8")
    (project / "gallery" / "plot_bad.py").rename(section / "plot_bad.py")
    result = sphinx_build(project, timeout=300)
    assert result.returncode != 0
    assert (
        "01_fixture/plot_bad.py has no record on the cpu runner, this build's "
        "(records/cpu/01_fixture/plot_bad.json is missing): "
        "record it with `python -m autograd_notes capture --device cpu plot_bad`"
    ) in result.output
    # the same site with its record builds
    from autograd_notes.records.cli import main as cli

    assert cli(["capture", "--device", "cpu", "--root", str(project), "plot_bad"]) == 0
    assert sphinx_build(project, timeout=300).returncode == 0
