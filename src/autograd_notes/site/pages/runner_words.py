"""The words of the runner directives: runners' names and the sentences said of their records.

Each in this build's language (the ``sphinx`` catalog), but a runner's kind
(``CPU``, ``CUDA``), the same in every language.
"""

from __future__ import annotations

from sphinx.locale import _

from ...records.drift.reasons import OutputReason
from ..web.nodes import RUNNER_NAMES

__all__ = [
    "coverage_sentence",
    "reason_sentence",
    "release_coverage_sentence",
    "runner_kind",
    "runner_name",
    "running_time",
    "within_release_note",
]


def runner_name(device: str) -> str:
    """A device's runner as a label: ``CUDA runner``; a device the site has no name for, ``XYZ``."""
    return str(RUNNER_NAMES[device]) if device in RUNNER_NAMES else runner_kind(device)


def release_coverage_sentence(device: str, release: str, count: int, total: int) -> str:
    """How many examples a runner has recorded with one PyTorch release, in this build's language."""
    kind = runner_kind(device)
    if count == total:
        return _("All {total} examples have a {kind} record of PyTorch {release}.").format(
            total=total, kind=kind, release=release
        )
    return _("{count} of {total} examples have a {kind} record of PyTorch {release}.").format(
        count=count, total=total, kind=kind, release=release
    )


def reason_sentence(reason: OutputReason) -> str:
    """Why two runners printed otherwise, in a sentence of this build's language.

    The records layer says why as a code
    (:func:`~autograd_notes.records.drift.compare.output_difference_reason`); the words
    are here, in the ``sphinx`` catalog, one message per code.
    """
    sentences = {
        OutputReason.TENSOR_TYPE: _(
            "Only the tensor type named in the message differs: PyTorch calls a CUDA tensor "
            "torch.cuda.FloatTensor and a CPU tensor torch.FloatTensor."
        ),
        OutputReason.DEVICE: _(
            "Only the device printed differs: the GPU runner prints cuda where the CPU prints cpu "
            "(device='cuda:0' in a tensor's values)."
        ),
        OutputReason.DEVICE_AND_NUMBERS: _(
            "Only the device printed and the last digits of some numbers differ: the GPU runner prints "
            "cuda where the CPU prints cpu, and GPU kernels round floating-point operations in another order."
        ),
        OutputReason.VALUES: _(
            "Only the values differ, by more than rounding: on a GPU the same seed draws other random "
            "numbers, and kernels may compute in another precision or order, so the same code gives "
            "other values there."
        ),
        OutputReason.NUMBERS: _(
            "Only numbers differ: CPU and GPU kernels order and round floating-point operations "
            "differently, so results agree to a tolerance, not to the last digit."
        ),
        OutputReason.BEHAVIOUR: _(
            "The runners behave differently in this cell; the text around it explains why."
        ),
    }
    return sentences[reason]


def runner_kind(runner: str) -> str:
    """The kind of a runner as sentences name it, the same in every language: ``CPU``, ``CUDA``."""
    return runner.upper()


def coverage_sentence(runner: str, count: int, total: int) -> str:
    """How many examples ``runner`` has recorded, in a sentence of this build's language."""
    kind = runner_kind(runner)
    if count == 0:
        return _("No example has a {kind} record yet.").format(kind=kind)
    if count == total:
        return _("All {total} examples have a {kind} record.").format(total=total, kind=kind)
    return _("{count} of {total} examples have a {kind} record.").format(count=count, total=total, kind=kind)


def running_time(seconds: float, language: str = "en") -> str:
    """A recorded running time as a page in ``language`` shows it: ``1.5 s``, ``< 0.1 s``, ``1,5 с``.

    Its spaces are no-break spaces, so that the unit stays with its number.
    """
    from babel.numbers import format_decimal

    if seconds < 0.1:
        said = _("< {value} s").format(value=format_decimal(0.1, format="0.0", locale=language))
    else:
        said = _("{value} s").format(value=format_decimal(seconds, format="0.0", locale=language))
    return said.replace(" ", "\u00a0")  # one unit: a narrow screen never breaks it from its number


def within_release_note() -> str:
    """The note under a GPU record of another release: it is compared within that release."""
    return _(
        "A GPU record of another PyTorch release is compared with the CPU record of that same release, "
        "never with the outputs on this site."
    )
