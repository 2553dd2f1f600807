"""The words a comparison ends in: one enum per question, each member its word.

* :class:`DriftStatus`: an example captured again against its record (the drift report);
* :class:`Mark`: one documented check on one PyTorch release against today (the timeline);
* :class:`RecordMatch`: a runner's record of an example against what this build printed
  (the runners page);
* :class:`Merge`: a record of an archive against the committed one (``ingest``).

Each member *is* its word (a ``str``): it compares equal to it, and formats and
serialises as it (``f"{Mark.SAME}"`` and ``json.dumps`` give ``same``), so that
reports, pages and the files written from them read as before.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["DriftStatus", "Mark", "Merge", "RecordMatch", "Word"]


class Word(str, Enum):
    """An enum whose members are words: ``str()`` and f-strings give the word, not ``Class.MEMBER``.

    (:class:`enum.StrEnum` does the same from Python 3.11; the package supports 3.10.)
    """

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, format_spec: str) -> str:
        return format(str(self.value), format_spec)


class DriftStatus(Word):
    """What comparing an example's new capture with its record ended as, in report order."""

    SAME = "same"
    DRIFT = "drift"
    NO_RECORD = "no record"
    RECORDED = "recorded"
    """There was no record, and the capture wrote one."""
    ACCEPTED = "accepted"
    """It differed, and ``--accept`` overwrote the record."""
    TIMED_OUT = "timed out"
    """Its process ran past the per-example timeout and was ended: no record was made."""
    NO_RESULT = "no result"
    """Its process ended without a record (it crashed, or could not start the example)."""
    FAILED = "failed"
    """There was no record, and a cell of the capture failed with an exception the page does not
    document: nothing was written, as that is no behaviour to keep (``--accept`` writes it)."""


class Mark(Word):
    """One check on one release (:mod:`.timeline`), in the order of the legend."""

    SAME = "same"
    """It holds and says exactly what it says today."""
    BUILD = "differs by build"
    """It differs from today exactly as the pinned release does in the build this release ran as."""
    WORDS = "message differs"
    """It holds, but the message or printed value differs."""
    OUTCOME = "different outcome"
    """It does not hold, or its cell failed with an undocumented exception."""
    MISSING = "not available"
    """Its cell, or one before it, calls an API this release does not have."""
    NO_RECORD = "no record"
    """This release has no record of the example, or its record has no such check."""


class RecordMatch(Word):
    """A runner's record of an example against this build's outputs (the runners page's marks)."""

    SAME = "same"
    DIFFERS = "differs"
    NONE = "none"
    """The runner has no record of the example."""


class Merge(Word):
    """What ``ingest`` did with one record of an archive."""

    ADDED = "added"
    """There was no record: the archive's was written."""
    UNCHANGED = "unchanged"
    """The committed record says the same (its date, running time and runner aside): it is kept."""
    KEPT = "kept"
    """The committed record differs, and is kept: ``--accept`` replaces it."""
    REPLACED = "replaced"
    """The committed record differed, and ``--accept`` replaced it."""
