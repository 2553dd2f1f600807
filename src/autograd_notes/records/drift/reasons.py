"""Why two runners printed otherwise in a cell, as a code the site puts in words.

A GPU record beside a CPU record of the same release differs in ways that
say nothing about autograd: the tensor type a message names
(``torch.cuda.FloatTensor``), the device a tensor prints (``device='cuda:0'``),
the last digits of a float, or other values altogether (a GPU draws other
random numbers from one seed). :func:`output_difference_reason` tells these
apart from a difference in behaviour; :mod:`autograd_notes.site.pages.runner_words`
says each in the page's language.
"""

from __future__ import annotations

import re

from ..format.status import Word

__all__ = ["OutputReason", "output_difference_reason"]


class OutputReason(Word):
    """Why two runners printed otherwise in a cell (the site says it in the page's language)."""

    TENSOR_TYPE = "tensor type"
    """Only the tensor type named differs: ``torch.cuda.FloatTensor`` against ``torch.FloatTensor``."""
    DEVICE = "device"
    """Only the device printed differs: ``device='cuda:0'`` in a tensor, ``cuda`` for ``cpu``."""
    NUMBERS = "numbers"
    """Only numbers differ: CPU and GPU kernels round floating-point operations otherwise."""
    DEVICE_AND_NUMBERS = "device and numbers"
    """The device printed, and numbers in their last digits, differ; nothing else."""
    VALUES = "values"
    """Only numbers differ, by more than rounding: a GPU draws other random numbers from one seed."""
    BEHAVIOUR = "behaviour"
    """The runners behave differently: the page's own text says why."""


_NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")
# a number and the spaces before it: a tensor pads its values to one width, so a sign moves the padding
_PADDED_NUMBER = re.compile(r"\s*" + _NUMBER.pattern)
# a tensor's repr names a GPU device (", device='cuda:0'"), which may wrap its line otherwise
_DEVICE_KEYWORD = re.compile(r",\s*device='(cuda|mps|xpu)(:\d+)?'")
_DEVICE_NAME = re.compile(r"\b(cuda|mps|xpu)(:\d+)?\b")


def _without_device(lines: list[str]) -> str:
    """The printed text with every GPU device named as the CPU, and whitespace as single spaces."""
    text = _DEVICE_KEYWORD.sub("", "\n".join(lines)).replace("torch.cuda.", "torch.")
    return " ".join(_DEVICE_NAME.sub("cpu", text).split())


def _rounding_apart(first: str, second: str) -> bool:
    """Whether the numbers of two texts that differ only in numbers are a rounding apart (1e-3)."""
    pairs = zip(_NUMBER.finditer(first), _NUMBER.finditer(second), strict=False)
    return all(
        abs(float(a[0]) - float(b[0])) <= max(1e-3 * max(abs(float(a[0])), abs(float(b[0]))), 2e-4)
        for a, b in pairs
    )


def _numbers_only(first: list[str], second: list[str], close: OutputReason) -> OutputReason | None:
    """``close`` where the lines differ only in numbers a rounding apart, VALUES where further, else None."""
    if [_PADDED_NUMBER.sub("#", line) for line in first] != [
        _PADDED_NUMBER.sub("#", line) for line in second
    ]:
        return None
    return close if _rounding_apart("\n".join(first), "\n".join(second)) else OutputReason.VALUES


def output_difference_reason(first: list[str], second: list[str]) -> OutputReason:
    """Why two runners printed ``first`` and ``second``."""

    def strip_cuda(lines: list[str]) -> list[str]:
        return [line.replace("torch.cuda.", "torch.") for line in lines]

    if strip_cuda(first) == strip_cuda(second):
        return OutputReason.TENSOR_TYPE
    numbers = _numbers_only(first, second, OutputReason.NUMBERS)
    if numbers is not None:
        return numbers
    first_text, second_text = _without_device(first), _without_device(second)
    if first_text == second_text:
        return OutputReason.DEVICE
    return (
        _numbers_only([first_text], [second_text], OutputReason.DEVICE_AND_NUMBERS) or OutputReason.BEHAVIOUR
    )
