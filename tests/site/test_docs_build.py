"""A real build of the whole site, as ``nox -s docs`` makes it, and what its pages show."""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import torch
from _site import ROOT, SYNTHETIC_CUDA_EDIT, Build, copy_project, executions, patched_record, sphinx_build

from autograd_notes.site.install import install_command
from autograd_notes.site.leaks import find_leaks, leak_patterns
from autograd_notes.site.sitebuild import site_url_of

pytestmark = pytest.mark.build

EXAMPLES = sorted(p.relative_to(ROOT / "gallery") for p in (ROOT / "gallery").glob("*/plot_*.py"))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def site(project: Path) -> Build:
    log = project / "executions.log"
    build = sphinx_build(project, env={"AUTOGRAD_NOTES_EXECUTION_LOG": str(log)})
    assert build.returncode == 0, build.output[-5000:]
    return build


def text_of(page: str) -> str:
    """The visible text of a page, tags removed and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def example_page(site: Build, example: Path) -> str:
    return site.page(f"examples/{example.with_suffix('.html').as_posix()}")


def test_build_has_no_warnings(site: Build) -> None:
    assert "WARNING" not in site.output
    assert "build succeeded" in site.output


def test_every_example_executed_exactly_once(site: Build, project: Path) -> None:
    ran = executions(project / "executions.log")
    assert sorted(ran) == sorted(e.name for e in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_example_page_shows_outputs_and_sources(site: Build, example: Path) -> None:
    page = text_of(example_page(site, example))
    source = (ROOT / "gallery" / example).read_text(encoding="utf-8")
    # each check() with a label prints "label: value" into the page
    for label in re.findall(r'\blabel="([^"]+)"', source):
        assert f"{label}: " in page, f"{example}: output of check(label={label!r}) missing"
    if "expect_error(" in source:
        assert "Traceback (most recent call last):" in page
        assert "inside PyTorch" in page or "File " in page
    assert "Sources" in page
    assert "Download Python source code" in page
    assert "Download Jupyter notebook" in page


def test_tracebacks_point_at_the_right_lines(site: Build) -> None:
    """Every frame printed on a page names a repo-relative file and its real line."""
    frames = 0
    for page in (site.html / "examples").rglob("*.html"):
        for path, line, code in re.findall(
            r'File "([^"]+)", line (\d+), in \S+\n\s+(.+)', text_of(page.read_text(encoding="utf-8"))
        ):
            assert not path.startswith("/"), path
            lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
            assert lines[int(line) - 1].strip() == code.strip(), (page.name, path, line)
            frames += 1
    assert frames >= 5


def test_concept_notebook_was_executed(site: Build) -> None:
    page = text_of(site.page("concepts/mental_model.html"))
    assert "ExpBackward0 saves: ['_saved_result']" in page
    assert "AccumulateGrad" in page
    assert "which is output 0 of Exp, is at version 1" in page


def test_runner_page_names_this_runner(site: Build) -> None:
    page = text_of(site.page("runners.html"))
    assert torch.__version__ in page
    assert "CPU" in page
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in page


def test_downloads_exist_for_every_example(site: Build) -> None:
    downloads = site.html / "_downloads"
    for example in EXAMPLES:
        assert list(downloads.rglob(example.name)), example
        assert list(downloads.rglob(example.with_suffix(".ipynb").name)), example
    zips = {p.name for p in downloads.rglob("*.zip")}
    assert {"examples_python.zip", "examples_jupyter.zip"} <= zips


def test_no_page_leaks_the_build_machine(site: Build, project: Path) -> None:
    patterns = leak_patterns([ROOT, project])
    for page in site.html.rglob("*.html"):
        assert find_leaks(page.read_text(encoding="utf-8"), patterns) == [], page


def test_downloaded_notebook_runs_as_is(site: Build, tmp_path: Path) -> None:
    """A reader's notebook, run in a folder of their own, executes without error."""
    import nbclient
    import nbformat

    notebook = next((site.html / "_downloads").rglob("plot_detach_inplace_saved.ipynb"))
    copy = shutil.copy(notebook, tmp_path / notebook.name)
    nb = nbformat.read(copy, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = json.dumps([cell.get("outputs", []) for cell in nb.cells])
    assert "which is output 0 of Add, is at version 1" in outputs


def test_rebuild_without_changes_executes_nothing(site: Build, project: Path) -> None:
    log = project / "rebuild.log"
    again = sphinx_build(project, env={"AUTOGRAD_NOTES_EXECUTION_LOG": str(log)})
    assert again.returncode == 0, again.output[-3000:]
    assert executions(log) == []
    assert "ExpBackward0 saves" in again.page("concepts/mental_model.html")


def test_changed_runner_reexecutes_every_example(site: Build, project: Path) -> None:
    """A different torch version or device in the stored key runs everything again."""
    key_file = project / "docs" / "examples" / ".runner-key"
    key_file.write_text("torch=0.0.0;variant=CPU;device=cpu;python=3\n", encoding="utf-8")
    log = project / "changed.log"
    again = sphinx_build(project, env={"AUTOGRAD_NOTES_EXECUTION_LOG": str(log)})
    assert again.returncode == 0, again.output[-3000:]
    assert sorted(executions(log)) == sorted(e.name for e in EXAMPLES)
    assert key_file.read_text(encoding="utf-8").startswith(f"torch={torch.__version__};")


def test_downloaded_script_identical_code(site: Build) -> None:
    """The .py a reader downloads is the example itself, so it runs as the page did.

    Only added: three comment lines naming its page and the install command,
    and the guard of its first import.
    """
    for example in EXAMPLES:
        download = next((site.html / "_downloads").rglob(example.name)).read_text(encoding="utf-8")
        original = (ROOT / "gallery" / example).read_text(encoding="utf-8").splitlines()
        lines = download.splitlines()
        assert lines[0].startswith("# This script is a page of Autograd Notes: https://"), lines[0]
        assert lines[0].endswith(f"/en/examples/{example.with_suffix('.html').as_posix()}")
        assert lines[2] == f"#     {install_command(site_url_of(ROOT / 'docs'))}"
        body = lines[3:]
        guard = body.index("try:")
        assert body[guard + 1 : guard + 3] == [
            "    import autograd_notes  # noqa: F401",
            "except ModuleNotFoundError:",
        ]
        assert body[:guard] + body[guard + 4 :] == original


def test_example_pages_say_where_their_outputs_come_from(site: Build) -> None:
    for example in EXAMPLES:
        page = text_of(example_page(site, example))
        assert f"on the CPU runner: torch {torch.__version__}" in page, example
        assert "CPU runner: torch " in page, example
        assert "This build printed the same." in page, example
        assert "CUDA runner: no record yet" in page, example


def test_runner_matrix_lists_every_example_and_runner(site: Build) -> None:
    raw = site.page("runners.html")
    page = text_of(raw)
    for example in EXAMPLES:
        assert f'href="examples/{example.with_suffix(".html").as_posix()}"' in raw
        assert f"records/cpu/{example.with_suffix('.json').as_posix()}" in page
    assert raw.count('<details class="runner-cell runner-same">') == len(EXAMPLES)
    assert raw.count('<span class="runner-cell runner-none"') == len(EXAMPLES)
    assert f"All {len(EXAMPLES)} examples have a CPU record." in page
    assert "No example has a CUDA record yet." in page
    assert "No drift: every example printed on this build what its record for this runner holds." in page


def test_a_differing_gpu_record_shows_as_tabs_with_the_reason(site: Build, project: Path) -> None:
    example = "05_inplace/plot_detach_inplace_saved.py"
    record = patched_record(
        project,
        example,
        "cuda",
        SYNTHETIC_CUDA_EDIT,
    )
    try:
        again = sphinx_build(project)
        assert again.returncode == 0, again.output[-3000:]
        raw = again.page(f"examples/{Path(example).with_suffix('.html').as_posix()}")
        page = text_of(raw)
        assert 'class="runner-tabs' in raw
        assert "CUDA runner · torch 2.13.0+cu130, NVIDIA H100 80GB HBM3, recorded" in page
        assert "[torch.cuda.FloatTensor []], which is output 0 of Add" in page
        assert "Only the tensor type named in the message differs" in page
        # cells whose outputs agree show one output and a mark
        assert "✓ Same output on the CUDA runner" in page
        assert "CUDA runner: torch 2.13.0+cu130, NVIDIA H100 80GB HBM3, recorded" in page
    finally:
        record.unlink()


def test_drift_between_a_record_and_this_build_is_shown(site: Build, project: Path) -> None:
    example = "02_backward/plot_retain_graph.py"
    record = project / "records" / "cpu" / Path(example).with_suffix(".json")
    original = record.read_text(encoding="utf-8")
    patched_record(project, example, "cpu", {"tensor(": "tensor(0.0 + "})
    try:
        again = sphinx_build(project)
        assert again.returncode == 0, again.output[-3000:]
        matrix = text_of(again.page("runners.html"))
        assert f"Drift: {example}" in matrix
        assert "Cells where this build printed something else: " in matrix
        assert "No drift" not in matrix
        page = text_of(again.page(f"examples/{Path(example).with_suffix('.html').as_posix()}"))
        assert "This build differs from it in" in page
    finally:
        record.write_text(original, encoding="utf-8")


def test_error_index_lists_every_documented_message_with_links(site: Build) -> None:
    raw = site.page("errors.html")
    page = text_of(raw)
    records = [json.loads(p.read_text("utf-8")) for p in (ROOT / "records" / "cpu").rglob("*.json")]
    messages = {
        f"{e['raised']}: {e['message']}"
        for r in records
        for c in r["cells"]
        for e in c["events"]
        if e["kind"] == "error" and e["raised"]
    }
    assert len(messages) >= 10
    for message in messages:
        assert message in page, message
    assert 'href="examples/05_inplace/plot_detach_inplace_saved.html#cell-' in raw
    assert not re.search(r"\.py, line \d", page)
    anchors = set(re.findall(r'id="((?:error|warning)-[0-9a-f]{12})"', raw))
    assert len(anchors) >= len(messages)


def test_tracebacks_on_example_pages_link_to_their_index_entry(site: Build) -> None:
    anchors = set(re.findall(r'id="((?:error|warning)-[0-9a-f]{12})"', site.page("errors.html")))
    linked = 0
    for example in EXAMPLES:
        raw = example_page(site, example)
        for anchor in re.findall(r'href="(?:\.\./)+errors\.html#((?:error|warning)-[0-9a-f]{12})"', raw):
            assert anchor in anchors, (example, anchor)
            linked += 1
        if "Traceback (most recent call last):" in raw:
            assert "Explained in the error-message index" in raw, example
    assert linked >= 10


def test_sources_page_says_whether_claims_hold_per_runner(site: Build) -> None:
    page = text_of(site.page("sources.html"))
    assert page.count("checks hold (torch") >= 5
    assert "checks do not hold" not in page
    assert "no record yet" in page


def test_a_moved_example_leaves_no_stale_page(site: Build, project: Path) -> None:
    old = project / "gallery" / "01_graph_basics" / "plot_tensor_kinds.py"
    new = project / "gallery" / "02_backward" / "plot_tensor_kinds.py"
    old.rename(new)
    # its record moves with it (without it, the build fails: see test_bad_input)
    old_record = project / "records" / "cpu" / "01_graph_basics" / "plot_tensor_kinds.json"
    new_record = project / "records" / "cpu" / "02_backward" / "plot_tensor_kinds.json"
    old_record.rename(new_record)
    try:
        again = sphinx_build(project)
        assert again.returncode == 0, again.output[-3000:]
        assert "01_graph_basics/plot_tensor_kinds.py no longer exists" in again.output
        assert not (project / "docs" / "examples" / "01_graph_basics" / "plot_tensor_kinds.rst").exists()
        assert (again.html / "examples" / "02_backward" / "plot_tensor_kinds.html").exists()
    finally:
        new.rename(old)
        new_record.rename(old_record)
