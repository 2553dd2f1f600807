"""The record format: what a record holds, its files, its checks, and the words and diffs made of it.

:mod:`.record_format` holds the types (no PyTorch), :mod:`.record` reads and
writes the files, :mod:`.schema` checks data from outside against the types,
:mod:`.script_cells` splits a gallery script into its cells, :mod:`.status`
holds the words a comparison ends in and :mod:`.word_diffs` the words of two
messages kept, removed and added. The bottom layer of :mod:`autograd_notes.records`.
"""
