"""Every gallery script, run as a reader runs a download: its checks pass.

The scripts run in one process that imported PyTorch once and forks a child
per script (``_run_examples.py``): each child is ``python -W error <script>``
in a folder of its own, outside the project.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from autograd_notes.site.build.leaks import find_leaks, leak_patterns

# its module-scoped fixtures build once, in one worker
pytestmark = pytest.mark.xdist_group("test_gallery_scripts")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))


RUNNER = Path(__file__).with_name("_run_examples.py")


@dataclass(frozen=True)
class Run:
    """What one script did when run as a download: exit status, output, the folder it ran in."""

    returncode: int
    stdout: str
    stderr: str
    folder: Path


def run_as_downloads(
    examples: list[Path], folder: Path, gallery: Path = ROOT / "gallery", **env: str
) -> dict[Path, Run]:
    """Copy each script of ``gallery`` to a folder of its own under ``folder`` and run them there."""
    runs = []
    for example in examples:
        own = folder / example.parent.name / example.stem
        own.mkdir(parents=True)
        runs.append([str(shutil.copy(gallery / example, own / example.name)), str(own)])
    spec = folder / "runs.json"
    spec.write_text(
        json.dumps({"runs": runs, "env": env, "jobs": os.cpu_count() or 1, "timeout": 300}), encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(spec)], capture_output=True, text=True, timeout=1800, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    statuses = json.loads(result.stdout.splitlines()[-1])
    return {
        example: Run(
            statuses[script],
            (Path(own) / "stdout.txt").read_text(encoding="utf-8"),
            (Path(own) / "stderr.txt").read_text(encoding="utf-8"),
            Path(own),
        )
        for example, (script, own) in zip(examples, runs, strict=True)
    }


@pytest.fixture(scope="module")
def cuda_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Run]:
    return run_as_downloads(EXAMPLES, tmp_path_factory.mktemp("cuda"), AUTOGRAD_NOTES_DEVICE="cuda")


@pytest.fixture(scope="module")
def cpu_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Run]:
    return run_as_downloads(EXAMPLES, tmp_path_factory.mktemp("cpu"), AUTOGRAD_NOTES_DEVICE="cpu")


def test_gallery_has_every_section() -> None:
    sections = {p.parent.name for p in (ROOT / "gallery").glob("*/GALLERY_HEADER.rst")}
    assert sections == {
        "01_graph_basics",
        "02_backward",
        "03_vector_jacobian",
        "04_detach_vs_data",
        "05_inplace",
        "06_views",
        "07_cpu_vs_gpu",
        "08_grad_modes",
        "09_hooks",
        "10_higher_order",
        "11_saved_tensors",
        "12_views_inplace",
        "13_training_loops",
        "14_training_state",
        "15_silent_gradients",
        "16_extending_autograd",
        "17_precision_and_memory",
        "18_distributed",
        "19_parameters_and_optimizers",
        "20_function_transforms",
    }
    for section in sections:
        assert list((ROOT / "gallery" / section).glob("plot_*.py")), section


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_runs_and_its_checks_pass_on_cpu(example: Path, cpu_runs: dict[Path, Run]) -> None:
    result = cpu_runs[example]
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "BehaviourDrift" not in result.stdout + result.stderr
    assert find_leaks(result.stdout, leak_patterns([ROOT, result.folder])) == []


def test_a_failing_script_is_reported_with_its_status_and_traceback(tmp_path: Path) -> None:
    """The runner itself: a script that fails, one that warns and one that exits are told apart."""
    scripts = {
        "plot_fails.py": "print('before')\n1 / 0\n",
        "plot_warns.py": "import warnings\nwarnings.warn('undocumented')\n",
        "plot_exits.py": "import sys\nsys.exit(3)\n",
    }
    gallery = tmp_path / "gallery" / "00_fixture"
    gallery.mkdir(parents=True)
    for name, code in scripts.items():
        (gallery / name).write_text(code, encoding="utf-8")
    runs = run_as_downloads(
        [Path("00_fixture") / name for name in scripts], tmp_path / "runs", tmp_path / "gallery"
    )
    failed = runs[Path("00_fixture/plot_fails.py")]
    assert failed.returncode == 1
    assert failed.stdout == "before\n"
    assert "ZeroDivisionError: division by zero" in failed.stderr
    warned = runs[Path("00_fixture/plot_warns.py")]
    assert warned.returncode == 1
    assert "UserWarning: undocumented" in warned.stderr
    assert runs[Path("00_fixture/plot_exits.py")].returncode == 3


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_declares_label_title_and_sources(example: Path) -> None:
    source = (ROOT / "gallery" / example).read_text(encoding="utf-8")
    docstring = source.split('"""')[1].strip().splitlines()
    assert docstring[0].startswith(".. _"), "label first"
    assert docstring[0].endswith(":"), "label first"
    title, underline = docstring[2], docstring[3]
    assert set(underline) == {"="}
    assert len(underline) >= len(title)
    assert 1 <= len(title.split()) <= 6, title
    # the source documents it rebuilds, or the sources page when it rebuilds none
    assert ":ref:`source_00" in source or ":ref:`sources`" in source, "has a Sources section"
    assert "runner_device(" in source, "puts its tensors on the runner's device"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_runs_and_its_checks_pass_on_cuda(example: Path, cuda_runs: dict[Path, Run]) -> None:
    result = cuda_runs[example]
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]


def test_sources_page_lists_every_example_that_cites_a_source() -> None:
    """docs/sources.md's "Rebuilt in" lines and the examples' Sources sections agree."""
    page = (ROOT / "docs" / "sources.md").read_text(encoding="utf-8")
    listed: dict[str, set[str]] = {}
    parts = re.split(r"\n\((source_\d{3})\)=\n", page)
    for source, body in zip(parts[1::2], parts[2::2], strict=True):
        rebuilt = body.split("**Rebuilt in**:")[1]
        listed[source] = set(re.findall(r"\{ref\}`(\w+)`", rebuilt))
    cited: dict[str, set[str]] = {source: set() for source in listed}
    for example in EXAMPLES:
        text = (ROOT / "gallery" / example).read_text(encoding="utf-8")
        label = re.search(r"\.\. _(\w+):", text)
        assert label is not None, example
        for source in set(re.findall(r":ref:`(source_\d{3})`", text)):
            cited[source].add(label.group(1))
    assert cited == listed
