"""Records: what every example did on each runner, and drift against it.

The second layer of the flow *script → helper checks → record → page*.
:mod:`.cells` runs a gallery script cell by cell as sphinx-gallery does,
:mod:`.record` turns one run into a record file
(``records/<runner>/<section>/<example>.json``), :mod:`.compare` says in
words how two records differ, :mod:`.baseline` chooses which records a drift
check compares with, :mod:`.report` renders the drift report and
:mod:`.cli` is ``python -m autograd_notes capture|drift|ingest|verify``. A run on a
machine of its own (:mod:`.capture_run`) captures each example in a fresh
process (:mod:`.isolated`) and writes an archive (:mod:`.archive`), which
:mod:`.ingest` checks whole (:mod:`.schema`) before merging it. On a
reader's machine, :mod:`.verify` runs the examples downloaded from the site
(:mod:`.downloaded`) and writes such an archive.

Imports: the helpers (:mod:`autograd_notes`) and PyTorch, never Sphinx or
:mod:`autograd_notes.site`, so records are captured on a bare GPU machine
that has only PyTorch and this package (checked by import-linter in
``nox -s lint``).
"""
