"""Capture: run a gallery script cell by cell as sphinx-gallery does, and record what its checks observed.

:mod:`.cells` runs one example in this process, :mod:`.isolated` in a fresh
one with a timeout, :mod:`.reset` resets state and bounds time and memory
around each example, :mod:`.limits` bounds what an example may print and
:mod:`.device_details` reads a GPU runner's facts.
"""
