"""Whether a recorded error says that a PyTorch API is missing from the release that ran.

Capture asks it of a cell's exception; the timeline of releases asks it of
a recorded error event. Pure text: no PyTorch here.
"""

from __future__ import annotations

import re

__all__ = ["is_missing_api", "is_missing_network"]

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


# what init_process_group raises on a machine whose loopback or sockets cannot serve a process group
_NETWORK = re.compile(
    r"Unable to find interface|connectFullMesh failed|Connection refused|[Aa]ddress already in use|"
    r"client socket has failed to connect|Network is unreachable"
)


def is_missing_network(exception: str, message: str) -> bool:
    """Whether an exception says the machine cannot start a process group (no usable loopback, sockets).

    The distributed examples start one on the machine's loopback (``gloo``);
    a machine without a network interface for it (a sandbox with the
    loopback down) cannot run them at all: that is no behaviour of PyTorch's
    to record as a failure.
    """
    return exception in ("DistNetworkError", "DistStoreError", "RuntimeError", "DistBackendError") and (
        _NETWORK.search(message) is not None
    )
