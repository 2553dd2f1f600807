"""The runners page's facts: what each runner has recorded, and which PyTorch builds its CPU runner ran.

:func:`facts_table` says each runner's PyTorch, machine, dates and count
of examples once (neighbouring releases alike in all else share a row);
:func:`builds_note` says, once, that a CPU runner ran the CUDA builds the
package index serves.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.locale import _

from ...records.format.record_format import Record
from ...records.history.releases import version_key
from ...records.history.runners import RunnerRecord, RunnerRelease
from ..web.nodes import Cell, list_of, make_table
from .runner_words import runner_name

__all__ = ["builds_note", "facts_table"]

_ByRunner = dict[RunnerRelease, list[Record]]
"""Each runner and release's records."""


def _torch_key(torch: str) -> tuple[int, ...]:
    """A PyTorch build (``2.4.1+cu121``) ordered by its release."""
    return version_key(torch.split("+")[0])


def _row_name(runner: RunnerRelease, own: list[RunnerRelease], own_name: str) -> str:
    """A row's runner: this site's, the runner of the release the pages document, or of each release."""
    if runner in own:
        return own_name
    if not runner.pinned:
        return _("{runner}, each recorded release").format(runner=runner_name(runner.device))
    return runner_name(runner.device)


def facts_table(
    runs: list[RunnerRecord], total: int, this_runner: str, own_name: str, language: str
) -> nodes.Node:
    """What each runner has recorded, said once: PyTorch, machine, dates and count.

    This build's runner (``this_runner``, a device, named ``own_name``)
    comes first. The other rows are one per runner and release, except that
    neighbouring releases of one runner, recorded on the same machine for as
    many examples, share a row ("2.4.1+cu121 to
    2.12.1+cu130, 9 releases"): the facts that differ are the releases.
    """
    by_runner: _ByRunner = {}
    for run in runs:
        by_runner.setdefault(run.runner, []).append(run.record)
    own = [runner for runner in by_runner if runner.pinned and runner.device == this_runner]
    groups: list[list[RunnerRelease]] = [[runner] for runner in own]
    for runner in sorted(runner for runner in by_runner if runner not in own):
        last = groups[-1][-1] if groups and groups[-1][0] not in own else None
        if last is not None and _alike(last, runner, by_runner):
            groups[-1].append(runner)
        else:
            groups.append([runner])
    rows: list[list[Cell]] = []
    for group in groups:
        records = [record for runner in group for record in by_runner[runner]]
        torches = sorted({record["runner"]["torch"] for record in records}, key=_torch_key)
        machines = sorted({record["runner"]["device_name"] for record in records})
        dates = sorted({record["recorded"] for record in records})
        when = dates[0] if len(dates) == 1 else _("{first} to {last}").format(first=dates[0], last=dates[-1])
        count = len(by_runner[group[0]])
        pytorch = (
            list_of(torches, language)
            if len(group) == 1
            else [
                nodes.Text(
                    _("{first} to {last}, {count} releases").format(
                        first=torches[0], last=torches[-1], count=len(group)
                    )
                )
            ]
        )
        examples = _("{count} of {total}").format(count=count, total=total)
        rows.append(
            [
                _row_name(group[0], own, own_name),
                nodes.paragraph("", "", *pytorch),
                nodes.paragraph("", "", *list_of(machines, language)),
                when,
                examples if len(group) == 1 else _("{count}, each release").format(count=examples),
            ]
        )
    if not own:
        rows.insert(0, [own_name, "—", "—", "—", "—"])
    header = [_("Runner"), "PyTorch", _("Machine"), _("Recorded"), _("Examples")]
    return make_table(rows, header=header, widths=[3, 2, 3, 3, 2], classes=["runner-facts"])


def _alike(first: RunnerRelease, second: RunnerRelease, by_runner: _ByRunner) -> bool:
    """Whether two runners' releases share a row: one runner, one machine, as many examples."""
    before, after = by_runner[first], by_runner[second]
    machines = {record["runner"]["device_name"] for record in [*before, *after]}
    return first.device == second.device and len(before) == len(after) and len(machines) == 1


def builds_note(runs: list[RunnerRecord]) -> list[nodes.Node]:
    """One sentence where a CPU runner ran a CUDA build of PyTorch: what the index serves, on the CPU."""
    on_cpu = {run.record["runner"]["torch"] for run in runs if run.runner.device == "cpu"}
    cuda_builds = sorted((t for t in on_cpu if "+cu" in t), key=_torch_key)
    if not cuda_builds:
        return []
    text = _(
        "A CPU runner installs each release as the package index serves it, which for most releases "
        "is a CUDA build ({builds}): the examples still run on the CPU, and a CUDA build's own "
        "messages may word a few things otherwise."
    ).format(builds=f"{cuda_builds[0]} … {cuda_builds[-1]}" if len(cuda_builds) > 1 else cuda_builds[0])
    return [nodes.paragraph("", text, classes=["runner-builds-note"])]
