"""The GPU runners × releases that have records, said compactly for the timeline page.

The timeline's matrix is the CPU's, one column per release. Every other
runner that recorded a release (``records/cuda``,
``records/releases/<release>/cuda``, mps, xpu) gets one line under it: its
device and release, how many examples it recorded, and in how many it printed
otherwise than the CPU with the same release (never another release's). A list
of sentences reads on a phone as well as on a desk; where no GPU record
exists, there is no line and no heading.
"""

from __future__ import annotations

from dataclasses import dataclass

from docutils import nodes
from sphinx.environment import BuildEnvironment
from sphinx.locale import _

from ...records.format.status import RecordMatch
from ...records.history.runners import (
    RunnerRecord,
    RunnerRelease,
    cpu_of,
    page_runners,
    record_outputs,
)
from ..i18n.zh_punctuation import join_sentences
from ..web.links import title_link
from ..web.nodes import RUNNER_NAMES, compose
from .record_store import note_records, site_records
from .runner_status import record_status

__all__ = [
    "RUNNERS_DOC",
    "RunnerReleaseCount",
    "gpu_runner_counts",
    "gpu_runner_notes",
]

RUNNERS_DOC = "runners"


@dataclass(frozen=True)
class RunnerReleaseCount:
    """One runner and release beyond the CPU: its machines, examples recorded, and those that differ."""

    runner: RunnerRelease
    machines: tuple[str, ...]
    recorded: int
    differing: int | None
    """Examples whose outputs differ from the CPU record of the same release; ``None``: no CPU record."""
    earlier: int = 0
    """Examples whose record ran an earlier version of their page (compared up to where it changed)."""


def gpu_runner_counts(runs: dict[str, list[RunnerRecord]]) -> list[RunnerReleaseCount]:
    """Each non-CPU runner and release with records, compared example by example with its release's CPU."""
    recorded: dict[RunnerRelease, list[str]] = {}
    machines: dict[RunnerRelease, set[str]] = {}
    differing: dict[RunnerRelease, int | None] = {}
    earlier: dict[RunnerRelease, int] = {}
    for example_runs in runs.values():
        for run in page_runners(example_runs):
            if run.runner.device == "cpu":
                continue
            recorded.setdefault(run.runner, []).append(run.record["example"])
            machines.setdefault(run.runner, set()).add(run.record["runner"]["device_name"])
            earlier[run.runner] = earlier.get(run.runner, 0) + (run.earlier_from is not None)
            cpu = cpu_of(example_runs, run.runner.release)
            if cpu is None:
                differing.setdefault(run.runner, None)
                continue
            compared = record_status(record_outputs(cpu.record), run.record, run.earlier_from)
            differs = compared.status == RecordMatch.DIFFERS
            differing[run.runner] = (differing.get(run.runner) or 0) + differs
    return [
        RunnerReleaseCount(
            runner, tuple(sorted(machines[runner])), len(recorded[runner]), differing[runner], earlier[runner]
        )
        for runner in sorted(recorded)
    ]


def gpu_runner_notes(env: BuildEnvironment) -> list[nodes.Node]:
    """A heading-less list of the GPU runners and releases with records; nothing where there is none."""
    note_records(env)
    runs = site_records(env).runs
    counts = gpu_runner_counts(runs)
    if not counts:
        return []
    items = nodes.bullet_list(classes=["runner-releases"])
    for count in counts:
        name = RUNNER_NAMES.get(count.runner.device, count.runner.device.upper())
        fields = {
            "runner": f"{name} · PyTorch {count.runner.release}",
            "machine": ", ".join(count.machines),
            "count": count.recorded,
            "differing": count.differing,
            "total": len(runs),
        }
        text = (
            _(
                "{runner} ({machine}): {count} of {total} examples recorded; "
                "no CPU record of that release to compare with."
            )
            if count.differing is None
            else _(
                "{runner} ({machine}): {count} of {total} examples recorded; {differing} of them print "
                "otherwise than the CPU with the same release."
            )
        )
        said = [text.format(**fields)]
        if count.earlier:
            said.append(
                _(
                    "{earlier} of them ran an earlier version of their page: each page shows it only up to "
                    "the cell where its code changed."
                ).format(earlier=count.earlier)
            )
        items += nodes.list_item("", nodes.paragraph("", join_sentences(said, env.config.language or "en")))
    intro = _("Other runners have recorded these releases; each is compared with the CPU of its own release:")
    result: list[nodes.Node] = [nodes.paragraph("", intro, classes=["runner-releases-intro"]), items]
    if RUNNERS_DOC in env.found_docs:  # a site may leave the runners page out
        result.append(
            nodes.paragraph(
                "", "", *compose(_("Every example on every runner: {page}."), page=title_link(RUNNERS_DOC))
            )
        )
    return result
