"""Records that travel: archives made on another machine, checked and merged, and a reader's own run.

:mod:`.archive` writes and reads a capture's archive, :mod:`.ingest` checks
one whole before it merges it into ``records/``, :mod:`.verify` runs the
examples a reader downloaded (:mod:`.downloaded`) and :mod:`.pip_caps` finds a
pip constraint that would cap PyTorch before an install.
"""
