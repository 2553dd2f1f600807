"""Printed values, checked against the documented ones."""

from __future__ import annotations

from typing import Any

import torch

from ._drift import BehaviourDrift, caller_location, expected_on_this_release
from ._events import is_recording, report
from ._normalise import normalise_message

__all__ = ["check", "format_value"]


def format_value(value: object) -> str:
    """Return how a value is printed on a page.

    Tensors print as PyTorch prints them, without the ``device=`` part (the
    page names its runner once); autograd nodes print as their name
    (``AddBackward0``) instead of ``<AddBackward0 object at 0x...>``.
    """
    if isinstance(value, torch.autograd.graph.Node):
        return value.name()
    if isinstance(value, torch.Tensor):
        text = repr(value)
        if value.device.type != "cpu":
            text = text.replace(f", device='{value.device}'", "")
        return normalise_message(text)
    return normalise_message(repr(value))


def _is_numeric(value: object) -> bool:
    """Tensors, numbers, and (nested) lists or tuples of them."""
    if isinstance(value, (list, tuple)):
        return all(_is_numeric(item) for item in value)
    return isinstance(value, (torch.Tensor, int, float)) and not isinstance(value, bool)


def _compare(actual: object, expected: object, rtol: float | None, atol: float | None) -> str | None:
    """Return why ``actual`` differs from ``expected``, or ``None`` if it does not."""
    if expected is None or isinstance(expected, bool):
        return None if actual is expected else "not the same object"
    if isinstance(expected, str):
        shown = actual.name() if isinstance(actual, torch.autograd.graph.Node) else actual
        return None if shown == expected else "not equal"
    if isinstance(expected, (list, tuple)) and not expected and isinstance(actual, (list, tuple)):
        return None if not actual else "not equal"  # an empty list of names, say: nothing numeric
    if not _is_numeric(expected):
        return None if actual == expected else "not equal"
    if not _is_numeric(actual) or (isinstance(actual, (list, tuple)) and not actual):
        return f"expected a tensor, a number or a list of numbers, got {type(actual).__name__}"
    actual_t = torch.as_tensor(actual)
    if isinstance(expected, torch.Tensor):
        expected_t = expected
    else:
        expected_t = torch.as_tensor(expected)
        if actual_t.is_floating_point() or actual_t.is_complex() or not expected_t.is_floating_point():
            expected_t = torch.as_tensor(expected, dtype=actual_t.dtype)
        else:  # an integer value against a fractional expectation: never truncate 3.5 to 3
            actual_t = actual_t.to(expected_t.dtype)
    try:
        torch.testing.assert_close(
            actual_t.detach(), expected_t.detach(), rtol=rtol, atol=atol, check_device=False
        )
    except AssertionError as error:
        return " ".join(str(error).split())
    return None


def check(
    value: object,
    expected: Any,
    *,
    label: str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Print ``value`` and check it is the documented ``expected``.

    * ``None`` and booleans must be the very same object (``x.grad is None``);
    * a string is compared with the value, or with an autograd node's name;
    * other non-numeric values (lists of names, say) are compared with ``==``;
    * anything else is compared with :func:`torch.testing.assert_close`
      (its default tolerances unless ``rtol``/``atol`` are given), ``expected``
      being turned into a tensor of the value's dtype, on any device (an
      integer value met by a fractional ``expected`` is compared as a float,
      so that ``3`` never passes for ``3.5``).

    The line printed is ``label: value`` (just the value without a label).
    A mismatch raises :class:`~autograd_notes.BehaviourDrift` with both
    values (during a capture, the outcome is reported instead). Nothing is
    returned, so that a notebook cell ending with a check does not display
    the value a second time.
    """
    location = caller_location()
    shown = format_value(value)
    print(f"{label}: {shown}" if label else shown)
    reason = _compare(value, expected, rtol, atol)
    report(
        {
            "kind": "value",
            "line": location.line,
            "label": label,
            "value": shown,
            "documented": format_value(expected),
            "holds": reason is None,
        }
    )
    if reason is not None and not is_recording():
        documented = f"{label + ': ' if label else ''}{format_value(expected)}"
        observed = f"{shown} ({reason})"
        if not expected_on_this_release(location, documented, observed):
            raise BehaviourDrift(location=location, documented=documented, observed=observed)
