"""The runners page: runners said once, one mark per example × runner, counts taken from the records.

Unit tests compare records with this build's outputs; the built pages are
those of the whole site, in every language, with two synthetic CUDA records:
one that differs from this build (``_site.SYNTHETIC_CUDA_EXAMPLE``) and one
that printed the same (``_site.SYNTHETIC_SAME_CUDA_EXAMPLE``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _html import Element, Page, read_page
from _site import (
    LANGUAGES,
    ROOT,
    SYNTHETIC_CUDA_EDIT,
    SYNTHETIC_CUDA_EXAMPLE,
    SYNTHETIC_SAME_CUDA_EDIT,
    SYNTHETIC_SAME_CUDA_EXAMPLE,
    Site,
)

from autograd_notes.records.drift.reasons import OutputReason, output_difference_reason
from autograd_notes.records.format.status import RecordMatch
from autograd_notes.records.history.runners import load_runner_records, record_outputs
from autograd_notes.site.pages.runner_matrix import MARKS
from autograd_notes.site.pages.runner_outputs import localise_output
from autograd_notes.site.pages.runner_releases import gpu_runner_counts
from autograd_notes.site.pages.runner_status import record_status
from autograd_notes.site.pages.runner_words import coverage_sentence, release_coverage_sentence, runner_name

EXAMPLES = sorted(p.relative_to(ROOT / "gallery").as_posix() for p in (ROOT / "gallery").glob("*/plot_*.py"))
SAME_EXAMPLE = SYNTHETIC_SAME_CUDA_EXAMPLE
SAME_EDIT = SYNTHETIC_SAME_CUDA_EDIT


def cpu_record(example: str) -> dict[str, Any]:
    path = ROOT / "records" / "cpu" / Path(example).with_suffix(".json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def edited(record: dict[str, Any], edit: dict[str, str]) -> dict[str, Any]:
    text = json.dumps(record)
    for old, new in edit.items():
        text = text.replace(old, new)
    return dict(json.loads(text))


def live_outputs(record: dict[str, Any]) -> list[tuple[int, list[str]]]:
    """What a build that printed exactly this record shows: (first line, output) per cell."""
    return [(cell["lines"][0], list(cell["output"])) for cell in record["cells"]]


# -- comparing records with this build ------------------------------------------------------------


def test_only_the_helpers_traceback_lines_are_rewritten() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "gallery/05_inplace/plot_x.py", line 41, in <module>',
        "  [3 frames inside PyTorch: torch._tensor.backward > torch.autograd.backward]",
        "  [1 frame inside PyTorch: torch._tensor.backward]",
        "  [rank 0 of 2]",
        "RuntimeError: one of the variables needed for gradient computation has been modified",
    ]
    # without a translation (English), the text comes back as it was
    assert localise_output(lines) == lines


def test_a_record_of_what_this_build_printed_is_the_same() -> None:
    record = cpu_record(SYNTHETIC_CUDA_EXAMPLE)
    status = record_status(live_outputs(record), edited(record, SAME_EDIT))
    assert status.status is RecordMatch.SAME
    assert status.differences == ()
    assert status.cells == []


def test_a_cuda_record_that_names_its_tensor_type_differs_in_those_cells_only() -> None:
    record = cpu_record(SYNTHETIC_CUDA_EXAMPLE)
    cuda = edited(record, SYNTHETIC_CUDA_EDIT)
    status = record_status(live_outputs(record), cuda)
    assert status.status is RecordMatch.DIFFERS
    cells_naming_the_type = [
        n
        for n, cell in enumerate(record["cells"], start=1)
        if "torch.FloatTensor" in "\n".join(cell["output"])
    ]
    assert cells_naming_the_type
    assert status.cells == cells_naming_the_type
    for live, recorded in status.outputs:
        assert [line.replace("torch.cuda.", "torch.") for line in recorded] == live


def test_no_record_is_its_own_status() -> None:
    assert record_status(live_outputs(cpu_record(SAME_EXAMPLE)), None).status is RecordMatch.NONE
    assert set(MARKS) == set(RecordMatch)
    assert len(set(MARKS.values())) == len(RecordMatch)


def test_coverage_is_said_from_the_counts() -> None:
    assert coverage_sentence("cuda", 0, 32) == "No example has a CUDA record yet."
    assert coverage_sentence("cuda", 3, 32) == "3 of 32 examples have a CUDA record."
    assert coverage_sentence("cpu", 32, 32) == "All 32 examples have a CPU record."


# -- runners × releases: a GPU record is compared with the CPU of its own release ---------------------

RELEASE = "2.11.0"


def release_record(example: str, release: str = RELEASE) -> dict[str, Any]:
    path = ROOT / "records" / "releases" / release / "cpu" / Path(example).with_suffix(".json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def gpu_of(record: dict[str, Any]) -> dict[str, Any]:
    """A CUDA record of ``record``'s release that printed what its CPU printed but for the tensor type."""
    cuda = edited(record, {k: v for k, v in SYNTHETIC_CUDA_EDIT.items() if k != "+cpu"})
    cuda["runner"]["torch"] = record["runner"]["torch"]
    return cuda


def write_record(records: Path, folder: str, example: str, record: dict[str, Any]) -> None:
    path = records / folder / Path(example).with_suffix(".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record), encoding="utf-8")


def test_a_gpu_record_of_another_release_differs_from_its_cpu_by_the_tensor_type_only() -> None:
    cpu = release_record(SYNTHETIC_CUDA_EXAMPLE)
    today = cpu_record(SYNTHETIC_CUDA_EXAMPLE)
    assert record_outputs(cpu) != live_outputs(today)  # the release printed otherwise than today's
    cuda = gpu_of(cpu)
    within = record_status(record_outputs(cpu), cuda)
    assert within.status is RecordMatch.DIFFERS
    reasons = {output_difference_reason(first, second) for first, second in within.outputs}
    assert reasons == {OutputReason.TENSOR_TYPE}
    # across releases, the same record would read as a change of behaviour: never compared so
    across = record_status(live_outputs(today), cuda)
    assert OutputReason.BEHAVIOUR in {output_difference_reason(a, b) for a, b in across.outputs}


def test_the_timeline_lists_each_gpu_release_with_its_count_against_the_same_releases_cpu(
    tmp_path: Path,
) -> None:
    same_cpu = release_record(SAME_EXAMPLE)
    write_record(tmp_path, f"releases/{RELEASE}/cpu", SAME_EXAMPLE, same_cpu)
    write_record(
        tmp_path, f"releases/{RELEASE}/cuda", SAME_EXAMPLE, gpu_of(same_cpu) | {"cells": same_cpu["cells"]}
    )
    cpu = release_record(SYNTHETIC_CUDA_EXAMPLE)
    write_record(tmp_path, f"releases/{RELEASE}/cpu", SYNTHETIC_CUDA_EXAMPLE, cpu)
    write_record(tmp_path, f"releases/{RELEASE}/cuda", SYNTHETIC_CUDA_EXAMPLE, gpu_of(cpu))
    # a CUDA record of a release no CPU recorded: counted, not compared
    write_record(
        tmp_path, "releases/2.10.0/cuda", SAME_EXAMPLE, edited(gpu_of(same_cpu), {RELEASE: "2.10.0"})
    )
    write_record(tmp_path, "cpu", SAME_EXAMPLE, cpu_record(SAME_EXAMPLE))
    counts = gpu_runner_counts(load_runner_records(tmp_path))
    assert [(c.runner.device, c.runner.release, c.recorded, c.differing) for c in counts] == [
        ("cuda", "2.10.0", 1, None),
        ("cuda", RELEASE, 2, 1),
    ]
    assert counts[1].machines == ("NVIDIA H100 80GB HBM3",)


def test_no_gpu_record_no_gpu_runner(tmp_path: Path) -> None:
    write_record(tmp_path, "cpu", SAME_EXAMPLE, cpu_record(SAME_EXAMPLE))
    write_record(tmp_path, f"releases/{RELEASE}/cpu", SAME_EXAMPLE, release_record(SAME_EXAMPLE))
    (tmp_path / "cuda").mkdir()
    assert gpu_runner_counts(load_runner_records(tmp_path)) == []


def test_a_runner_and_release_is_counted_in_a_sentence() -> None:
    assert release_coverage_sentence("cuda", "2.11.0", 2, 49) == (
        "2 of 49 examples have a CUDA record of PyTorch 2.11.0."
    )
    assert release_coverage_sentence("mps", "2.12.1", 49, 49) == (
        "All 49 examples have a MPS record of PyTorch 2.12.1."
    )
    assert runner_name("xpu") == "XPU runner"
    assert runner_name("npu") == "NPU"


# -- the page, in English, with a CUDA record that differs and one that does not -------------------


@pytest.fixture(scope="module")
def two_cuda_records(whole_site: Site) -> Path:
    """The English pages: the whole site has the two synthetic CUDA records."""
    return whole_site.html / "en"


def matrix(page: Page) -> tuple[list[str], list[list[Element]]]:
    """The header and the rows (cells) of the runners matrix: one row per gallery section."""
    table = page.article.find("table", "runner-matrix")
    header = [th.text() for th in table.find("thead").find_all("th")]
    return header, [row.find_all("td") for row in table.find("tbody").find_all("tr")]


def marks(page: Page) -> dict[str, list[Element]]:
    """Each example's marks, one per runner column, from the section cells' lists of examples.

    Also checks that each example is named by its title (the page's ``h1``)
    in every cell it appears in.
    """
    _header, rows = matrix(page)
    found: dict[str, list[Element]] = {}
    for row in rows:
        for cell in row[1:]:
            for item in cell.find("ul", "runner-examples").find_all("li"):
                link = item.find("a")
                target = page.resolve(link.attrs["href"])[0]
                example = target.removeprefix("examples/").removesuffix(".html") + ".py"
                found.setdefault(example, []).append(item)
    return found


def tally(cell: Element) -> dict[str, int]:
    """What a section cell shows before it is opened: how many marks of each status."""
    return {
        next(c for c in span.classes if c.startswith("runner-") and c != "runner-tally").removeprefix(
            "runner-"
        ): int(span.text().split()[-1])
        for span in cell.find("summary").find_all("span", "runner-tally")
    }


def mark_of(cell: Element) -> tuple[str, str]:
    """(status, mark) of a matrix cell: the class of its mark's holder and the mark itself."""
    holder = cell.find(class_="runner-cell")
    (status,) = holder.classes & {"runner-same", "runner-differs", "runner-none"}
    return status.removeprefix("runner-"), holder.find("span", "runner-mark").text()


def details_of(cell: Element) -> str:
    return cell.find("span", "runner-cell-details").text()


def visible_text(element: Element) -> str:
    """The text shown before a cell is opened: no examples, no details, no words for screen readers only."""
    return element.text(hidden={"runner-examples", "runner-cell-details", "runner-mark-label"})


def test_one_row_per_section_and_one_mark_per_example_and_runner(two_cuda_records: Path) -> None:
    page = read_page(two_cuda_records, "runners.html")
    header, rows = matrix(page)
    assert header == ["Section", "CPU runner (this site)", "CUDA runner · 2.13.0"]
    sections = sorted({Path(example).parent.as_posix() for example in EXAMPLES})
    assert len(rows) == len(sections)
    for row, section in zip(rows, sections, strict=True):
        link = row[0].find("a")
        target = page.resolve(link.attrs["href"])[0]
        assert target == f"examples/{section}/index.html"
        assert link.text() == read_page(two_cuda_records, target).h1  # the section's title, not its folder
        in_section = [e for e in EXAMPLES if e.startswith(f"{section}/")]
        assert tally(row[1]) == {"same": len(in_section)}, section
        assert sum(tally(row[2]).values()) == len(in_section), section
    by_example = marks(page)
    assert sorted(by_example) == EXAMPLES
    cuda: dict[str, tuple[str, str]] = {}
    for example, (cpu_item, cuda_item) in by_example.items():
        assert cpu_item.find("a").text() == read_page(two_cuda_records, f"examples/{example[:-3]}.html").h1
        assert mark_of(cpu_item) == ("same", MARKS["same"]), example
        cuda[example] = mark_of(cuda_item)
    assert cuda.pop(SYNTHETIC_CUDA_EXAMPLE) == ("differs", MARKS["differs"])
    assert cuda.pop(SAME_EXAMPLE) == ("same", MARKS["same"])
    assert set(cuda.values()) == {("none", MARKS["none"])}


def test_a_marks_details_say_what_the_record_is_and_what_differs(two_cuda_records: Path) -> None:
    page = read_page(two_cuda_records, "runners.html")
    by_example = {example: [None, *items] for example, items in marks(page).items()}
    differing = details_of(by_example[SYNTHETIC_CUDA_EXAMPLE][2])
    assert differing.startswith("torch 2.13.0+cu130, NVIDIA H100 80GB HBM3, recorded ")
    assert re.search(
        r"Cells where its page shows something else: \d+( and \d+|(, \d+)+,? and \d+)?\.", differing
    )
    assert "Only the tensor type named in the message differs" in differing
    assert f"records/cuda/{Path(SYNTHETIC_CUDA_EXAMPLE).with_suffix('.json').as_posix()}" in differing
    same = details_of(by_example[SAME_EXAMPLE][2])
    assert "Its page shows the same output." in same
    assert f"records/cuda/{Path(SAME_EXAMPLE).with_suffix('.json').as_posix()}" in same
    cpu = details_of(by_example[SAME_EXAMPLE][1])
    assert cpu.startswith("torch 2.13.0+cpu, x86_64, recorded ")
    assert re.search(r"ran in (< 0\.1|\d+\.\d) s", cpu)
    assert "Its page shows the same output." in cpu
    # nothing to open where there is no record
    assert by_example[EXAMPLES[0]][2].find_all("details") == []


def test_each_runner_is_described_once_above_the_matrix(two_cuda_records: Path) -> None:
    page = read_page(two_cuda_records, "runners.html")
    facts = page.article.find("table", "runner-facts")
    rows = [[td.text() for td in tr.find_all("td")] for tr in facts.find("tbody").find_all("tr")]
    # one row per runner and release that has records: this build's first, the CPU's other releases,
    # then the CUDA runner's
    assert rows[0][:3] == ["CPU runner (this site)", "2.13.0+cpu", "x86_64"]
    assert rows[0][4] == f"{len(EXAMPLES)} of {len(EXAMPLES)}"
    assert [row[:3] + row[4:] for row in rows if row[0] == "CUDA runner"] == [
        ["CUDA runner", "2.13.0+cu130", "NVIDIA H100 80GB HBM3", f"2 of {len(EXAMPLES)}"]
    ]
    # neighbouring releases alike in all but the release share a row ("2.4.1+cu121 to 2.12.1+cu130,
    # 9 releases"), so that the rows differ in what they say
    cpu = [row for row in rows if row[0] == "CPU runner, each recorded release"]
    grouped = [re.search(r", (\d+) releases$", row[1]) for row in cpu]
    counted = [int(found.group(1)) if found else 1 for found in grouped]
    assert sum(counted) == len(list((ROOT / "records" / "releases").iterdir())) + 1  # and the synthetic one
    assert len(cpu) < sum(counted)
    assert all(", each release" in row[4] for row, count in zip(cpu, counted, strict=True) if count > 1)
    # the CPU runner ran the index's CUDA builds: said once, under the table, not in the rows' labels
    note = page.article.find("p", "runner-builds-note").text()
    assert "is a CUDA build (2.4.1+cu121 … " in note
    assert "the examples still run on the CPU" in note
    assert re.fullmatch(r"\d{4}-\d\d-\d\d( to \d{4}-\d\d-\d\d)?", rows[0][3])
    # one sentence above everything: the verdict and what each runner has recorded
    assert page.article.find("p", "runner-summary-line").text() == (
        "Every example printed here the same output as its earlier recorded run on the same runner. "
        f"All {len(EXAMPLES)} examples have a CPU record. "
        f"2 of {len(EXAMPLES)} examples have a CUDA record of PyTorch 2.13.0."
    )
    # what the cells held 32 times over is said once per runner and release
    assert visible_text(facts).count("NVIDIA H100 80GB HBM3") == 1
    shown = visible_text(page.article.find("table", "runner-matrix"))
    assert "x86_64" not in shown
    assert "recorded" not in shown
    assert "no record yet" not in shown


def test_the_legend_names_every_mark(two_cuda_records: Path) -> None:
    page = read_page(two_cuda_records, "runners.html")
    legend = [li.text() for li in page.article.find("ul", "runner-legend").find_all("li")]
    assert legend == [
        f"{MARKS['same']} same: the page shows what the record holds",
        f"{MARKS['differs']} differs: the page shows something else in some cells",
        f"{MARKS['none']} no record yet",
    ]
    # the marks' words are there for screen readers
    labels = {items[1].find("span", "runner-mark-label").text() for items in marks(page).values()}
    assert labels == {"same", "differs", "no record yet"}


# -- every language ---------------------------------------------------------------------------------

COVERAGE = {
    "en": [
        "All {total} examples have a CPU record.",
        "2 of {total} examples have a CUDA record of PyTorch 2.13.0.",
    ],
    "ru": [
        "Записи для CPU есть у всех примеров ({total}).",
        "Примеров с записью для CUDA с PyTorch 2.13.0: 2 из {total}.",
    ],
    "zh_CN": [
        "全部 {total} 个示例都有 CPU 记录。",
        "{total} 个示例中有 2 个有 CUDA 在 PyTorch 2.13.0 上的记录。",
    ],
    "pt_BR": [
        "Todos os {total} exemplos têm registro de CPU.",
        "Exemplos com registro de CUDA com o PyTorch 2.13.0: 2 de {total}.",
    ],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_counts_are_true_in_every_language(whole_site: Site, language: str) -> None:
    folder = whole_site.html / language
    page = read_page(folder, "runners.html")
    summary = page.article.find("p", "runner-summary-line").text()
    for line in COVERAGE[language]:
        assert line.format(total=len(EXAMPLES)) in summary
    by_example = marks(page)
    assert sorted(by_example) == EXAMPLES
    cuda = {example: mark_of(items[1])[0] for example, items in by_example.items()}
    assert cuda.pop(SYNTHETIC_CUDA_EXAMPLE) == "differs"
    assert cuda.pop(SAME_EXAMPLE) == "same"
    assert set(cuda.values()) == {"none"}
    for items in by_example.values():
        link = items[0].find("a")
        assert link.text() == read_page(folder, page.resolve(link.attrs["href"])[0]).h1


def test_the_page_no_longer_claims_cuda_records_it_does_not_have(whole_site: Site) -> None:
    text = read_page(whole_site.html / "en", "runners.html").article.text()
    assert "Each example has also been recorded on each kind of runner" not in text
    assert "on whatever GPU has recorded it" not in text
    # what each runner has recorded is the summary line's, counted from the records
    assert "examples have a CPU record" in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_reference_pages_speak_to_readers_not_maintainers(whole_site: Site, language: str) -> None:
    # how to record and check is the maintainer guide's (CONTRIBUTING.md), not a reader's page
    for name in ("runners.html", "timeline.html", "index.html"):
        text = read_page(whole_site.html / language, name).article.text()
        for command in ("python -m autograd_notes", "nox -s", "records/releases/", "records/<runner>"):
            assert command not in text, (language, name, command)


EXAMPLE_PAGE = f"examples/{Path(SYNTHETIC_CUDA_EXAMPLE).with_suffix('.html').as_posix()}"
CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"


def test_chinese_runner_lines_use_chinese_punctuation(whole_site: Site) -> None:
    page = read_page(whole_site.html / "zh_CN", EXAMPLE_PAGE)
    summary = page.article.find("div", "runner-summary")
    lines = [p.text() for p in summary.find_all("p")[1:]]
    assert lines[0].startswith("本页的输出是在构建站点时由站点的 CPU 运行器（运行所有示例的机器）打印的：")
    assert lines[1].startswith("CPU 运行器：记录于 ")  # its PyTorch and machine: the line before
    assert lines[1].endswith("。本页的输出与之相同。")
    assert lines[2].startswith("CUDA 运行器：torch 2.13.0+cu130")
    for line in lines:
        # no ASCII colon or full stop at a Chinese word, no space between two Chinese words
        assert not re.search(rf"[{CJK}][:.]|[:.] ?[{CJK}]|[{CJK}] [{CJK}]", line), line
    footer = page.root.find("div", "built-with").text()
    assert "运行器 上" not in footer
    assert footer.startswith("在 CPU 运行器上使用 PyTorch ")  # the runner named once


def test_russian_runner_sentences_decline_the_runner(whole_site: Site) -> None:
    page = read_page(whole_site.html / "ru", EXAMPLE_PAGE)
    summary = page.article.find("div", "runner-summary").text()
    assert "при сборке сайта его CPU-раннером — машиной, которая запускает все примеры: torch " in summary
    assert "на CPU-раннер:" not in summary
    same = [p.text() for p in page.article.find_all("p", "runner-same")]
    assert same
    assert all(line.startswith("✓ Тот же вывод на CUDA-раннере (torch 2.13.0+cu130") for line in same)
