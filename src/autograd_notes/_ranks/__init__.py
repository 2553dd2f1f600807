"""A page's function on several processes of one process group: :func:`run_ranks`.

``run.py`` starts the ranks and brings back what they did; ``shipping.py``
sends the function to them as its source.
"""

from __future__ import annotations

from .run import DEFAULT_TIMEOUT, run_ranks

__all__ = ["DEFAULT_TIMEOUT", "run_ranks"]
