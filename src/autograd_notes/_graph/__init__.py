"""Autograd graphs, in the helpers' own model.

:mod:`.model` holds the nodes and their text, :mod:`.reading` reads them from
PyTorch's nodes, :mod:`.layout` places them in rows and :mod:`.drawing` draws
them with matplotlib.
"""
