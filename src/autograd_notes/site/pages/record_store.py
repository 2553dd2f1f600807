"""The build's records: the records folder read once per build, and what each page that shows them depends on.

Every directive that shows records takes them from :func:`site_records`
(a :class:`~autograd_notes.records.history.store.RecordStore`, read once per
set of records in a build process) and notes the record files it showed
(:func:`note_records`): Sphinx reads a page again when one of them changes,
and leaves every other page as it was. An example's page depends on its own
records; the pages that aggregate every example (runners, timeline, errors,
sources) on all of them; each also on the gallery scripts the records are
read against. A record file that appears or goes changes which runners and
releases every page shows: that rebuilds the environment
(``autograd_notes_records_digest``, :mod:`..build.runner_key`).
"""

from __future__ import annotations

import functools
from pathlib import Path

from sphinx.environment import BuildEnvironment

from ...records.history.store import RecordStore

__all__ = ["note_records", "site_records"]


# Module-level, yet safe for parallel reads: keyed on immutable strings (the records folder and
# the digest of its files' contents), a pure function of them, and its result is only read.
@functools.lru_cache(maxsize=4)
def _store(folder: str, digest: str) -> RecordStore:
    del digest  # part of the cache key only: other records, another store
    return RecordStore.read(Path(folder))


def site_records(env: BuildEnvironment) -> RecordStore:
    """The records of this build (``autograd_notes_records``), read once per set of records."""
    config = env.config
    return _store(config.autograd_notes_records, config.autograd_notes_records_content)


def note_records(env: BuildEnvironment, example: str | None = None) -> None:
    """The page being read shows the records of ``example`` (``section/plot_x.py``), or of every example.

    It depends on their files, and on the gallery scripts they are read against: a script whose
    code changes changes how much of a record is of today's page (:mod:`...records.format.currency`).
    """
    store = site_records(env)
    for path in store.files(example):
        env.note_dependency(str(path))
    gallery = store.folder.parent / "gallery"
    for name in [example] if example is not None else list(store.runs):
        if (gallery / name).is_file():
            env.note_dependency(str(gallery / name))
