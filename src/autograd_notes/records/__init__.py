"""Records: what every example did on each runner, and drift against it.

The second layer of the flow *script → helper checks → record → page*, in
layers of its own, each importing only those below it:

- :mod:`.cli` is ``python -m autograd_notes capture|drift|ingest|verify|changes``;
  :mod:`.capture_run` is one capture run, every example in a fresh process;
- :mod:`.exchange`: record archives, checked whole before ``ingest`` merges
  them, and ``verify``, a reader's run of the downloaded examples;
- :mod:`.drift`: how two records differ, what a drift check compares with,
  and the report;
- :mod:`.history`: the records of every release, the timeline and changelog
  across them, and the release notes the helpers ship;
- :mod:`.capture`: a gallery script run cell by cell as sphinx-gallery does,
  with the per-example reset, timeout and limits;
- :mod:`.format`: the record format (``records/<runner>/<section>/<example>.json``),
  its files and its checks.

Imports: the helpers (:mod:`autograd_notes`) and PyTorch, never Sphinx or
:mod:`autograd_notes.site`, so records are captured on a bare GPU machine
that has only PyTorch and this package (checked by import-linter in
``nox -s lint``).
"""
