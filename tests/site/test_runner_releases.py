"""The site shows every runner that has a record, and only those, each against its own release's CPU.

Two small sites are built in English from real examples and committed
records. One adds a CUDA record of PyTorch 2.11.0 (the committed CPU record
of 2.11.0, the tensor type its message names changed as on a GPU): its
example page lists the runner with its machine and release, and shows the
cells where it printed otherwise than the CPU of 2.11.0 beside this build's,
for the reason that holds within 2.11.0 (the tensor type), though 2.11.0's
message also differs from today's; the runners page gets a column for it and
a row in its facts, the timeline page a line. A second CUDA record, of
another example, ran an earlier version of that page from its third cell on
(its cells' code digests say so): its page shows its two first cells only and
says from which line the rest waits for the runner. The other site has no GPU
record at all: no page names a GPU runner's column, tab or "no record yet".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _html import Page, read_page
from _site import ROOT, SYNTHETIC_CUDA_EDIT, SYNTHETIC_CUDA_EXAMPLE, build_site, small_site

# its module-scoped fixtures build once, in one worker
pytestmark = [pytest.mark.xdist_group("test_runner_releases")]

RELEASE = "2.11.0"
OTHER_EXAMPLE = "02_backward/plot_retain_graph.py"
EXAMPLES = [SYNTHETIC_CUDA_EXAMPLE, OTHER_EXAMPLE]
MACHINE = "NVIDIA H100 80GB HBM3"


def page_of(example: str) -> str:
    return f"examples/{Path(example).with_suffix('.html').as_posix()}"


EARLIER_FROM = 58
"""The first line of OTHER_EXAMPLE's third cell (its page's second code cell, the docstring being the
first): its CUDA record ran an earlier version from there on."""
EARLIER_CELL = 2


def gpu_release_record(project: Path, example: str, *, earlier_from: int | None = None) -> Path:
    """A CUDA record of ``RELEASE``: the committed CPU record of that release, as a GPU names its tensors.

    ``earlier_from``: the cell starting at that line ran other code (its digest differs), as a
    record of an earlier version of the page does.
    """
    source = ROOT / "records" / "releases" / RELEASE / "cpu" / Path(example).with_suffix(".json")
    text = source.read_text(encoding="utf-8")
    for old, new in SYNTHETIC_CUDA_EDIT.items():
        if old != "+cpu":  # the release's own build stays
            text = text.replace(old, new)
    record = json.loads(text)
    if earlier_from is not None:
        (cell,) = [cell for cell in record["cells"] if cell["lines"][0] == earlier_from]
        cell["code"] = "0" * 16
    target = project / "records" / "releases" / RELEASE / "cuda" / Path(example).with_suffix(".json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return target


def build(project: Path) -> Path:
    result = build_site(project, "--language", "en")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "WARNING" not in output, output[-3000:]
    return project / "build" / "html" / "en"


@pytest.fixture(scope="module")
def with_gpu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = small_site(tmp_path_factory.mktemp("gpu") / "project", EXAMPLES)
    record = json.loads(gpu_release_record(project, SYNTHETIC_CUDA_EXAMPLE).read_text(encoding="utf-8"))
    assert record["runner"]["torch"].startswith(f"{RELEASE}+")
    gpu_release_record(project, OTHER_EXAMPLE, earlier_from=EARLIER_FROM)
    return build(project)


@pytest.fixture(scope="module")
def without_gpu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = small_site(tmp_path_factory.mktemp("cpu") / "project", EXAMPLES)
    assert not list((project / "records").glob("**/cuda/**/*.json"))
    return build(project)


def summary_lines(page: Page) -> list[str]:
    return [li.text() for li in page.article.find("div", "runner-summary").find_all("li")]


def matrix_header(page: Page) -> list[str]:
    return [th.text() for th in page.article.find("table", "runner-matrix").find("thead").find_all("th")]


def test_the_runners_box_lists_the_gpu_runner_with_its_machine_and_release(with_gpu: Path) -> None:
    lines = summary_lines(read_page(with_gpu, page_of(SYNTHETIC_CUDA_EXAMPLE)))
    assert len(lines) == 2
    assert lines[0].startswith("CPU runner: recorded ")
    assert lines[1].startswith(f"CUDA runner: torch {RELEASE}+cu130, {MACHINE}, recorded ")
    assert f"It printed otherwise than the CPU with PyTorch {RELEASE} in " in lines[1]
    assert "no record yet" not in " ".join(lines)
    assert "earlier version" not in " ".join(lines)


def test_a_record_of_an_earlier_version_shows_its_cells_of_todays_code_only(with_gpu: Path) -> None:
    page = read_page(with_gpu, page_of(OTHER_EXAMPLE))
    lines = summary_lines(page)
    assert len(lines) == 2
    assert lines[1].startswith(f"CUDA runner: torch {RELEASE}+cu130, {MACHINE}, recorded ")
    # compared where it ran today's code; from there on, said and not shown
    assert f"It printed what the CPU printed with PyTorch {RELEASE}." in lines[1]
    said_here = lines[1].replace("’", "'")  # prose: typographic apostrophes
    assert said_here.endswith(
        f"From cell {EARLIER_CELL} on it ran an earlier version of this page's code: those cells show "
        "nothing of it until this runner records the page again."
    )
    # the cell is a link to it
    summary = page.article.find("div", "runner-summary")
    (link,) = [a for a in summary.find_all("a") if a.text() == str(EARLIER_CELL)]
    assert link.attrs["href"].endswith(f"#cell-{EARLIER_CELL}")
    runners = read_page(with_gpu, "runners.html").article.find("table", "runner-matrix")
    cells = [d.text() for d in runners.find_all("details", "runner-cell")]
    said = [text for text in cells if f"releases/{RELEASE}/cuda/02_backward/plot_retain_graph.json" in text]
    assert len(said) == 1
    assert f"From cell {EARLIER_CELL} of its page on it ran an earlier version" in said[0]
    # its page shows no GPU tab from that line on (the CPU's output alone), and its cells before it
    # printed what the CPU printed: no tab anywhere
    assert not page.article.find_all("div", "runner-tabs")


def test_cells_that_differ_from_the_cpu_of_the_same_release_are_shown_side_by_side(with_gpu: Path) -> None:
    page = read_page(with_gpu, page_of(SYNTHETIC_CUDA_EXAMPLE))
    tabs = page.article.find_all("div", "runner-tabs")
    assert tabs
    text = " ".join(tab.text() for tab in tabs)
    assert f"CUDA runner · torch {RELEASE}+cu130, {MACHINE}" in text
    assert "[torch.cuda.FloatTensor []], which is output 0 of AddBackward0" in text
    # the release's CPU output stands beside the GPU's where it differs from this build's ...
    assert f"CPU runner · torch {RELEASE}+cu130, x86_64" in text
    # ... and the reason is the one within the release: the tensor type, not a change of behaviour
    assert "Only the tensor type named in the message differs" in text
    assert "The runners behave differently in this cell" not in text
    assert "compared with the CPU record of that same release" in text


def test_the_runners_page_has_a_column_and_a_row_per_runner_and_release(with_gpu: Path) -> None:
    page = read_page(with_gpu, "runners.html")
    assert matrix_header(page) == ["Section", "CPU runner (this site)", f"CUDA runner · {RELEASE}"]
    facts = page.article.find("table", "runner-facts")
    rows = [[td.text() for td in tr.find_all("td")] for tr in facts.find("tbody").find_all("tr")]
    assert rows[0][0] == "CPU runner (this site)"
    assert rows[0][4] == "2 of 2"
    cuda = [row for row in rows if row[0] == "CUDA runner, each recorded release"]
    assert [[row[1], row[2], row[4]] for row in cuda] == [[f"{RELEASE}+cu130", MACHINE, "2 of 2"]]
    # the CPU's other releases, counted: neighbours alike in all but the release share a row
    cpu_releases = [row[1] for row in rows[1:] if row[0] == "CPU runner, each recorded release"]
    assert cpu_releases
    assert all(re.fullmatch(r"\S+ to \S+, \d+ releases|\S+", text) for text in cpu_releases), cpu_releases
    coverage = page.article.find("p", "runner-summary-line").text()
    assert coverage.endswith(
        f"All 2 examples have a CPU record. All 2 examples have a CUDA record of PyTorch {RELEASE}."
    )
    differs = page.article.find("table", "runner-matrix").find_all("details", "runner-differs")
    assert len(differs) == 1
    details = differs[0].text()
    assert f"Cells where the CPU printed something else with PyTorch {RELEASE}: " in details
    assert "Only the tensor type named in the message differs" in details
    assert f"records/releases/{RELEASE}/cuda/05_inplace/plot_detach_inplace_saved.json" in details


def test_the_timeline_page_says_which_gpu_releases_have_records(with_gpu: Path) -> None:
    page = read_page(with_gpu, "timeline.html")
    (runners,) = page.article.find_all("ul", "runner-releases")
    assert [li.text() for li in runners.find_all("li")] == [
        f"CUDA runner · PyTorch {RELEASE} ({MACHINE}): 2 of 2 examples recorded; 1 of them print "
        "otherwise than the CPU with the same release. 1 of them ran an earlier version of their page: "
        "each page shows it only up to the cell where its code changed."
    ]


def test_no_gpu_record_no_gpu_column_tab_or_sentence(without_gpu: Path) -> None:
    for example in EXAMPLES:
        page = read_page(without_gpu, page_of(example))
        (line,) = summary_lines(page)
        assert line.startswith("CPU runner: ")
        assert not page.article.find_all("div", "runner-tabs")
        assert "no record yet" not in page.article.text()
    runners = read_page(without_gpu, "runners.html")
    # one runner, nothing that differs: no one-column matrix of "same" (the summary line says it)
    assert not runners.article.find_all("table", "runner-matrix")
    summary = runners.article.find("p", "runner-summary-line").text()
    assert summary.endswith(" All 2 examples have a CPU record.")
    facts = runners.article.find("table", "runner-facts").text()
    assert "CUDA" not in facts
    assert not read_page(without_gpu, "timeline.html").article.find_all("ul", "runner-releases")
    sources = read_page(without_gpu, "errors.html").article.text()
    assert "CUDA runner" not in sources
