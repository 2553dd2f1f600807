"""An output as a page shows it: a warning printed again and again is shown once, with its count.

``forward_mode`` calls a scripted function in a loop, and PyTorch warns on
every call: 18 identical ``DeprecationWarning`` lines would push the line the
page talks about out of view. Only the page folds them; the record keeps every
line (drift, the timeline and the runners box compare what was printed).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

__all__ = ["fold_repeated_warnings"]

# ``path:line: Category: message``, as :func:`warnings.formatwarning` starts a warning
_WARNING = re.compile(r"^\s*\S.*:\d+: \w*Warning: ")


def fold_repeated_warnings(lines: list[str], count_line: Callable[[int], str]) -> list[str]:
    """``lines`` with each run of identical warning lines given once, followed by ``count_line(n)``.

    Any other line, repeated or not, stays as printed.

    >>> fold_repeated_warnings(["a.py:1: UserWarning: x"] * 3 + ["done"], lambda n: f"[{n} times]")
    ['a.py:1: UserWarning: x', '[3 times]', 'done']
    >>> fold_repeated_warnings(["0", "0", "a.py:1: UserWarning: x"], lambda n: f"[{n} times]")
    ['0', '0', 'a.py:1: UserWarning: x']
    """
    folded: list[str] = []
    for line, run in itertools.groupby(lines):
        times = len(list(run))
        if times > 1 and _WARNING.match(line):
            folded += [line, count_line(times)]
        else:
            folded += [line] * times
    return folded
