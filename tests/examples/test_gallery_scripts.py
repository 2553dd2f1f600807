"""Every gallery script, run as a reader runs a download: its checks pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from autograd_notes.site.leaks import find_leaks, leak_patterns

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))


def run_as_download(example: Path, folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Copy the script to a folder outside the project and run it there."""
    script = shutil.copy(ROOT / "gallery" / example, folder / example.name)
    return subprocess.run(
        # -W error: as in the site build, an undocumented warning is a failure
        [sys.executable, "-W", "error", script],
        cwd=folder,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


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
    }
    for section in sections:
        assert list((ROOT / "gallery" / section).glob("plot_*.py")), section


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_runs_and_its_checks_pass_on_cpu(example: Path, tmp_path: Path) -> None:
    result = run_as_download(example, tmp_path, AUTOGRAD_NOTES_DEVICE="cpu")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "BehaviourDrift" not in result.stdout + result.stderr
    assert find_leaks(result.stdout, leak_patterns([ROOT, tmp_path])) == []


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
    assert "runner_device()" in source, "puts its tensors on the runner's device"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_runs_and_its_checks_pass_on_cuda(example: Path, tmp_path: Path) -> None:
    result = run_as_download(example, tmp_path, AUTOGRAD_NOTES_DEVICE="cuda")
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
