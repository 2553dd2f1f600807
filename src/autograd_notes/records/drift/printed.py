"""What printed text drift counts as the same: where PyTorch's code sits, and a float's last digit, left out.

A release moves PyTorch's own code (the line of a warning's location, the
frames a traceback folds); two machines of one release may round a float's
last printed digit otherwise. Neither is a change of behaviour.
"""

from __future__ import annotations

import re

__all__ = ["comparable_output", "same_output", "same_printed"]


# Where PyTorch's own code sits moves with every release: the line of a warning's
# location ("torch/utils/checkpoint.py:238: UserWarning: ...") and the frames a
# traceback folds ("  [3 frames inside PyTorch: a > b > c]", a line of its own
# that a release may add or take away) say nothing about the behaviour a page
# documents, so they never count as drift.
_INTERNAL_LINE = re.compile(r"\b(torch/[\w./-]+\.py):\d+\b")
_FOLDED_FRAMES = re.compile(r"\s*\[\d+ frames? inside PyTorch: [^\]]*\]\s*")


def comparable_output(lines: list[str]) -> list[str]:
    """Printed output as drift compares it: PyTorch-internal line numbers and folded frames left out.

    >>> comparable_output(["torch/autograd/graph.py:979: UserWarning: x", "  [2 frames inside PyTorch: f]"])
    ['torch/autograd/graph.py:…: UserWarning: x']
    """
    return [_INTERNAL_LINE.sub(r"\1:…", line) for line in lines if not _FOLDED_FRAMES.fullmatch(line)]


# A float printed to d decimals can come out one unit of its last place apart on two
# machines of the same release: the order of a reduction (a matrix product's sums)
# follows the CPU's vector width, and the last bit decides the rounding. That is
# not a change of behaviour, so drift leaves it out; any larger step counts.
_DECIMAL = re.compile(r"-?\d+\.(\d+)(e[-+]?\d+)?")


def _one_unit_apart(old: re.Match[str], new: re.Match[str]) -> bool:
    places, exponent = len(old.group(1)), old.group(2)
    if places != len(new.group(1)) or exponent != new.group(2):
        return False
    mantissas = (float(old.group(0).partition("e")[0]), float(new.group(0).partition("e")[0]))
    return abs(mantissas[0] - mantissas[1]) <= 1.000001 * 10.0**-places


def same_printed(old: str, new: str) -> bool:
    """Whether two printed texts agree, but for floats one unit of their last printed place apart.

    The spaces a tensor pads its columns with are not compared (a digit more in
    one entry moves them).

    >>> same_printed("tensor([[ 2.7340, 15.6379]])", "tensor([[ 2.7340, 15.6378]])")
    True
    >>> same_printed("tensor([15.6379])", "tensor([15.6377])")
    False
    >>> same_printed("1.5e-03", "1.6e-03"), same_printed("2.0", "2.00")
    (True, False)
    """
    if old == new:
        return True
    old_numbers, new_numbers = list(_DECIMAL.finditer(old)), list(_DECIMAL.finditer(new))
    if len(old_numbers) != len(new_numbers):
        return False
    old_words, new_words = _DECIMAL.sub("#", old).split(), _DECIMAL.sub("#", new).split()
    return old_words == new_words and all(
        a.group(0) == b.group(0) or _one_unit_apart(a, b)
        for a, b in zip(old_numbers, new_numbers, strict=True)
    )


def same_output(old: list[str], new: list[str]) -> bool:
    """Whether two cells printed the same, as drift compares them.

    :func:`comparable_output` leaves out where PyTorch's own code sits;
    :func:`same_printed` lets a float's last printed digit round otherwise.
    """
    before, after = comparable_output(old), comparable_output(new)
    return len(before) == len(after) and all(same_printed(a, b) for a, b in zip(before, after, strict=True))
