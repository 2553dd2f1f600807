"""Every documented check of an example, across PyTorch releases, computed from the records.

The pinned release's records (``records/cpu``) are *today*: what the pages
document. Each release's records (``records/releases/<version>/cpu``, see
:mod:`.releases`) say what that release did with the same checks. A check is
matched across records by what it documents (its kind and documented
pattern or value, and which occurrence of those it is), not by its line, so
that an edit of an example's prose does not orphan the older records.

For one check on one release the mark (:class:`~.status.Mark`) is one of:

* ``SAME``: it holds and says exactly what it says today;
* ``WORDS``: the same outcome in other words: the same exception type or
  warning category with a reworded message (a node renamed), even where the
  page's pattern no longer matches it, or a value that holds printed
  otherwise (other digits);
* ``OUTCOME``: another outcome: no error, another exception type, a warning
  of another category or none, another value; or its cell failed with an
  undocumented exception;
* ``MISSING``: its cell, or one before it, calls an API this release
  does not have (:func:`~..format.missing_api.is_missing_api`);
* ``BUILD``: it differs from today, but exactly as the pinned release
  does in the build this release ran as (the registry's CUDA build, where
  today's records are the CPU build's): a difference of the build, not of
  the release (pin_memory's message). It needs the pinned release's registry
  build recorded with the releases (``records/releases/<pinned>``);
* ``NO_RECORD``: this release has no record of the example, or its
  record has no such check (the example gained it later).

What changed from one release to the next is :mod:`.timeline_changes`, an
example's one-sentence summary :mod:`.timeline_summary`. Nothing here
imports Sphinx: the site layer renders these, and the helper's drift
messages (:mod:`autograd_notes._release_notes`) read a summary of them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..._events import Event, EventKind
from ..format.missing_api import is_missing_api, is_missing_network
from ..format.record import load_all_records
from ..format.record_format import CellStatus, Record
from ..format.status import Mark
from ..format.word_diffs import WordDiff, word_diff
from .releases import load_releases, release_of, version_key

__all__ = [
    "CheckTimeline",
    "ExampleTimeline",
    "Observation",
    "RowTimeline",
    "check_text",
    "example_timeline",
    "load_timelines",
    "observation_runs",
    "timelines_of",
    "worst",
]

_RANK = {Mark.SAME: 0, Mark.NO_RECORD: 1, Mark.BUILD: 2, Mark.WORDS: 3, Mark.OUTCOME: 4, Mark.MISSING: 5}
"""A row's mark is the worst of its checks' (:func:`worst`)."""

_Keyed = dict[tuple[str, str, int], tuple[int, Event]]
"""A record's events by (kind, documented, occurrence), with their cell's index."""
_Found = tuple[int, Event]
"""An event of a record with its cell's index."""


def worst(marks: list[Mark]) -> Mark:
    """The mark that says most: not available > different outcome > message differs > ... > same.

    Checks a release has no record of (added to the example since) do not hide
    what the others did there; only when none was recorded is it "no record".
    """
    recorded = [mark for mark in marks if mark != Mark.NO_RECORD]
    return max(recorded, key=_RANK.__getitem__) if recorded else Mark.NO_RECORD


NO_ERROR, NO_WARNING = "no error", "no warning"
"""What a check observed where nothing was raised, or nothing warned (words: the site translates them)."""


def check_text(event: Event) -> str:
    """What a check observed, as one line: ``RuntimeError: ...``, the value, or the warnings."""
    if event["kind"] == "error":
        return f"{event['raised']}: {event['message']}" if event["raised"] else NO_ERROR
    if event["kind"] == "warning":
        # the same warning many times (once per call of a loop) is said once, with its count
        counts: Counter[str] = Counter(f"{w['category']}: {w['message']}" for w in event["warnings"])
        warned = "; ".join(text if n == 1 else f"{text} (×{n})" for text, n in counts.items())
        return warned or NO_WARNING
    return str(event["value"])


def _key(event: Event) -> tuple[str, str]:
    return event["kind"], str(event["documented"])


def _raised(event: Event) -> str | None:
    """The exception an error check saw (``None`` for none, and for other checks)."""
    return event["raised"] if event["kind"] == "error" else None


def _outcome(event: Event) -> str:
    """What happened, words aside: the exception type, the warnings' categories ("" for none; values: "")."""
    if event["kind"] == "error":
        return event["raised"] or ""
    return ", ".join(sorted(_categories(event)))


def _same_outcome(event: Event, today: Event) -> bool:
    """Whether a check ended as today's did, whatever the words.

    An error or a warning: the same exception type, or the same categories as
    many times each (a reworded message that the page's pattern no longer
    matches is still the same outcome). A value: it holds as today's does.
    """
    if event["kind"] == "error":
        return _raised(event) == _raised(today)
    if event["kind"] == "warning":
        return _categories(event) == _categories(today)
    return bool(event["holds"] == today["holds"])


def _categories(event: Event) -> Counter[str]:
    """How many warnings of each category a warning check caught (none for other checks)."""
    return Counter(w["category"] for w in event["warnings"]) if event["kind"] == "warning" else Counter()


def _label(event: Event) -> str | None:
    """A value check's label (``None`` for other checks)."""
    return event["label"] if event["kind"] == "value" else None


def _keyed(record: Record) -> _Keyed:
    """Every event of a record by (kind, documented, occurrence), with its cell index."""
    seen: Counter[tuple[str, str]] = Counter()
    found: _Keyed = {}
    for index, cell in enumerate(record["cells"]):
        for event in cell["events"]:
            kind, documented = _key(event)
            found[(kind, documented, seen[(kind, documented)])] = (index, event)
            seen[(kind, documented)] += 1
    return found


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)(?::|$)")
"""A traceback's last line that names the exception (``ValueError: ...``): a message of several lines
follows it."""


def _stopped(record: Record) -> tuple[CellStatus, str] | None:
    """Why a record's run stopped early: (``unavailable`` or ``failed``, the line naming the exception).

    The last line that starts with an exception's name, where the message runs on over more lines
    (DDP's), else the last line.
    """
    for cell in record["cells"]:
        if cell["status"] in ("unavailable", "failed"):
            lines = [line.strip() for line in cell["output"] if line.strip()]
            named = [line for line in lines if _EXCEPTION_LINE.match(line)]
            return cell["status"], (named or lines or [""])[-1]
    return None


def _endings(stopped: dict[str, tuple[CellStatus, str] | None], recorded: set[str]) -> dict[str, str]:
    """How each recorded release's run ended ("" to its end, else why it stopped: :func:`_stopped`)."""
    endings = {}
    for release in recorded:
        reason = stop[1] if (stop := stopped.get(release)) else ""
        error, _, message = reason.partition(": ")
        if not is_missing_network(error, message):
            endings[release] = reason
    return endings


@dataclass(frozen=True)
class Observation:
    """One check on one release: its mark, what it observed, and a word diff with today."""

    mark: Mark
    text: str | None = None
    """What the release observed (``None`` when it has no observation)."""
    holds: bool | None = None
    diff: WordDiff = ()
    """The words that differ between this release's text and today's, for ``WORDS`` and ``OUTCOME`` (and
    ``BUILD``), in the order of the releases: the older release's words removed, the newer's added."""
    reason: str = ""
    """For ``MISSING`` and a failed cell: the exception that stopped the example."""
    outcome: str = ""
    """What happened, words aside: the exception type or the warnings' categories ("" for none)."""


@dataclass
class CheckTimeline:
    """One documented check: where it is today, and what every release did."""

    line: int
    kind: EventKind
    label: str
    documented: str
    today: str
    releases: dict[str, Observation] = field(default_factory=dict)


def observation_runs(check: CheckTimeline) -> list[tuple[list[str], Observation]]:
    """Runs of consecutive recorded releases that observed the same, oldest first, each with its releases."""
    runs: list[tuple[list[str], Observation]] = []
    for release, seen in check.releases.items():
        if seen.mark == Mark.NO_RECORD:
            continue
        last = runs[-1][1] if runs else None
        if last is not None and (last.mark, last.text, last.reason) == (seen.mark, seen.text, seen.reason):
            runs[-1][0].append(release)
        else:
            runs.append(([release], seen))
    return runs


@dataclass
class RowTimeline:
    """The checks of one code cell (a row of the page's table)."""

    first_line: int
    checks: list[CheckTimeline] = field(default_factory=list)

    def mark(self, release: str) -> Mark:
        """The worst mark of this cell's checks on ``release``."""
        return worst([check.releases[release].mark for check in self.checks])


@dataclass
class ExampleTimeline:
    """An example's checks across releases (oldest first; the pinned one is today)."""

    example: str
    releases: list[str]
    pinned: str
    rows: list[RowTimeline] = field(default_factory=list)
    recorded: set[str] = field(default_factory=set)
    """The releases with a record of the example (the pinned one always)."""
    endings: dict[str, str] = field(default_factory=dict)
    """How each release's record of the example ended: "" where it ran to its end, else the last line
    of the error that stopped it (a record of a machine that could not start a process group is left
    out: no behaviour of PyTorch's)."""

    def mark(self, release: str) -> Mark:
        """The worst mark of every check on ``release``; ``NO_RECORD`` where it has no record."""
        if release not in self.recorded:
            return Mark.NO_RECORD
        return worst([row.mark(release) for row in self.rows]) if self.rows else Mark.SAME

    def recorded_releases(self) -> list[str]:
        """The releases, oldest first, whose record has some of today's checks (the pinned one too)."""
        return [release for release in self.releases if self.mark(release) != Mark.NO_RECORD]

    def holds_in(self, release: str) -> bool:
        """Whether every check held as documented there (the same words, other ones, or the build's)."""
        return self.mark(release) in (Mark.SAME, Mark.WORDS, Mark.BUILD)

    def holds_since(self) -> str | None:
        """The oldest release from which every later recorded release holds as documented."""
        since = None
        for release in reversed(self.releases):
            if self.mark(release) == Mark.NO_RECORD:
                continue
            if not self.holds_in(release):
                break
            since = release
        return since


def _observe(
    event: Event | None, today: Event, stopped: tuple[CellStatus, str] | None, *, newer: bool = False
) -> Observation:
    """One release's check against today's.

    ``newer``: the release is newer than today's (the order of the diff).
    """
    if event is None:
        if stopped is None:
            return Observation(Mark.NO_RECORD)
        status, reason = stopped
        return Observation(Mark.MISSING if status == "unavailable" else Mark.OUTCOME, reason=reason)
    text, now = check_text(event), check_text(today)
    raised, outcome = _raised(event), _outcome(event)
    missing = event["kind"] == "error" and not event["holds"] and raised != _raised(today)
    if missing and raised and event["kind"] == "error" and is_missing_api(raised, event["message"] or ""):
        # the documented error did not happen: an API this release lacks raised instead
        return Observation(Mark.MISSING, text, event["holds"], reason=text, outcome=outcome)
    # the older release's words first, whichever of the two is today
    diff = word_diff(now, text) if newer else word_diff(text, now)
    if not _same_outcome(event, today):
        return Observation(Mark.OUTCOME, text, event["holds"], diff, outcome=outcome)
    if text != now:
        return Observation(Mark.WORDS, text, event["holds"], diff, outcome=outcome)
    return Observation(Mark.SAME, text, event["holds"], outcome=outcome)


def _other_branch(old: _Found | None, build: _Found | None, other_build: bool) -> _Found | None:
    """The release's check at today's place, where the example documents it otherwise on that build.

    An example may document another pattern on a CUDA build (``if torch.version.cuda``):
    its check then has another key there. It is the same check only if the pinned
    release's registry build documents exactly that pattern at that place; any other
    check found at the place is one the example has since moved or removed.
    """
    if not other_build or old is None or build is None:
        return None
    return (
        old if (old[1]["documented"], _label(old[1])) == (build[1]["documented"], _label(build[1])) else None
    )


def _by_build(seen: Observation, build: _Found | None, other_build: bool) -> Observation:
    """``seen``, or ``BUILD`` when the pinned release's registry build did exactly the same."""
    if not other_build or build is None or seen.mark not in (Mark.WORDS, Mark.OUTCOME) or seen.text is None:
        return seen
    event = build[1]
    if check_text(event) != seen.text or event["holds"] != seen.holds:
        return seen
    return Observation(Mark.BUILD, seen.text, seen.holds, seen.diff, seen.reason, seen.outcome)


def example_timeline(
    example: str, today: Record, pinned: str, releases: dict[str, Record | None]
) -> ExampleTimeline:
    """The timeline of one example: today's record against each release's (``None``: no record)."""
    order = sorted({*releases, pinned}, key=version_key)
    recorded = {pinned, *(release for release, record in releases.items() if record is not None)}
    timeline = ExampleTimeline(example, order, pinned, recorded=recorded)
    # the pinned release as the registry builds it: what a difference of the build looks like
    build = releases.get(pinned)
    baseline = _keyed(build) if build else {}
    keyed = {release: _keyed(record) if record else {} for release, record in releases.items()}
    # where an example documents another pattern for another build (``if torch.version.cuda``),
    # the check is found by its place instead
    placed = {
        release: {(event["kind"], event["line"]): (index, event) for index, event in found.values()}
        for release, found in {**keyed, "": baseline}.items()
    }
    stopped = {release: _stopped(record) if record else None for release, record in releases.items()}
    timeline.endings = _endings({**stopped, pinned: _stopped(today)}, recorded)
    for key, (index, event) in _keyed(today).items():
        first = today["cells"][index]["lines"][0]
        if not timeline.rows or timeline.rows[-1].first_line != first:
            timeline.rows.append(RowTimeline(first))
        check = CheckTimeline(
            line=event["line"],
            kind=event["kind"],
            label=str(_label(event) or ""),
            documented=str(event["documented"]),
            today=check_text(event),
        )
        for release in order:
            if release == pinned:
                check.releases[release] = Observation(
                    Mark.SAME, check.today, event["holds"], outcome=_outcome(event)
                )
            elif releases.get(release) is None:
                check.releases[release] = Observation(Mark.NO_RECORD)
            else:
                record = releases[release]
                other_build = record is not None and record["runner"].get("variant") != today["runner"].get(
                    "variant"
                )
                place = (event["kind"], event["line"])
                found = keyed[release].get(key) or _other_branch(
                    placed[release].get(place), placed[""].get(place), other_build
                )
                newer = version_key(release) > version_key(pinned)
                seen = _observe(found[1] if found else None, event, stopped[release], newer=newer)
                built = baseline.get(key) or placed[""].get(place)
                check.releases[release] = _by_build(seen, built, other_build)
        timeline.rows[-1].checks.append(check)
    return timeline


def load_timelines(records: Path, runner: str = "cpu") -> dict[str, ExampleTimeline]:
    """Every example's timeline: today's records on ``runner`` against every release's."""
    return timelines_of(load_all_records(records).get(runner, {}), load_releases(records, runner))


def timelines_of(
    today: dict[str, Record], releases: dict[str, dict[str, Record]]
) -> dict[str, ExampleTimeline]:
    """The timelines of records already read: today's (example -> record) against each release's."""
    timelines = {}
    for example, record in sorted(today.items()):
        pinned = release_of(record["runner"]["torch"])
        timelines[example] = example_timeline(
            example, record, pinned, {release: found.get(example) for release, found in releases.items()}
        )
    return timelines
