"""Whether a recorded error says that a PyTorch API is missing from the release that ran.

Capture asks it of a cell's exception; the timeline of releases asks it of
a recorded error event. Pure text: no PyTorch here.
"""

from __future__ import annotations

import re

__all__ = ["is_missing_api"]

_MISSING = re.compile(r"unexpected keyword argument|has no attribute|[Uu]nknown attribute|cannot import name")
# what a value of Python's own types lacks is the example's code meeting another value
# (``None`` where a release left no gradient), not an API missing from PyTorch
_PLAIN_OBJECT = re.compile(r"^'(NoneType|int|float|complex|bool|str|bytes|list|tuple|dict|set)' object ")


def is_missing_api(exception: str, message: str) -> bool:
    """Whether an exception says a PyTorch API does not exist (yet) in this release.

    An import from ``torch`` that fails, an attribute of a PyTorch module or
    object that is not there, a keyword argument a function does not take: on
    an older release, what an example calls may simply not exist. Every
    example runs on the pinned PyTorch, so such an error on another release
    says "not available in this release", not that the example is wrong. An
    attribute missing from ``None`` or a number, or another package failing
    to import, is a difference of behaviour or of the environment instead.
    """
    if exception in ("ImportError", "ModuleNotFoundError"):
        return "torch" in message
    if exception == "AttributeError" and _PLAIN_OBJECT.match(message):
        return False
    return exception in ("AttributeError", "TypeError") and _MISSING.search(message) is not None
