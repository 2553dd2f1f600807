"""Text from outside (an archive's names, a download's address) as a terminal may show it."""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: str) -> str:
    """``text`` with its control characters (escape sequences, new lines, bidi marks) escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
