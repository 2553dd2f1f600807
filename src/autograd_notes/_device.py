"""The device an example puts its tensors on: the runner's, or the CPU where it lacks a dtype."""

from __future__ import annotations

import os

import torch

from ._download_page import running_page
from ._reader_words import words

__all__ = ["DEVICE_VARIABLE", "device_available", "holds_dtype", "runner_device"]

DEVICE_VARIABLE = "AUTOGRAD_NOTES_DEVICE"
_CHOICES = ("cpu", "cuda", "mps", "xpu", "auto")
_NAMES = {"cuda": "CUDA", "mps": "MPS", "xpu": "XPU"}


def device_available(device: str) -> bool:
    """Whether this PyTorch can use the device type ``device`` (``cpu``, ``cuda``, ``mps``, ``xpu``).

    A build that lacks a backend altogether (no ``torch.xpu`` in an older
    release, no ``torch.backends.mps``) simply does not have it.
    """
    if device == "cpu":
        return True
    if device == "cuda":
        return torch.cuda.is_available()
    if device == "mps":
        mps = getattr(torch.backends, "mps", None)
        return mps is not None and bool(mps.is_available())
    if device == "xpu":
        xpu = getattr(torch, "xpu", None)
        return xpu is not None and bool(xpu.is_available())
    return False


def holds_dtype(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether tensors of ``dtype`` can live on ``device``: PyTorch is asked, with an empty one.

    MPS has no ``float64`` (nor ``complex128``): PyTorch refuses them with a
    ``TypeError`` ("Cannot convert a MPS Tensor to float64 dtype as the MPS
    framework doesn't support float64"). Any other error is the device's
    own, and raised.
    """
    try:
        torch.empty(0, dtype=dtype, device=device)
    except TypeError:
        return False
    return True


def runner_device(*needs: torch.dtype) -> torch.device:
    """Return the device named by ``AUTOGRAD_NOTES_DEVICE``.

    ``cpu`` (the default when the variable is unset or empty), ``cuda``,
    ``mps`` or ``xpu`` (an error if this PyTorch cannot use it: a GPU runner
    without its GPU is broken, not a CPU runner), or ``auto`` (CUDA when
    available, else the CPU).

    ``needs``: the dtypes the example puts on its device. Where the device
    holds one of them not (``float64`` on MPS), the example runs on the CPU
    instead, and says so in the language of its page: an example whose
    subject needs ``float64`` (``gradcheck``, finite differences, a change of
    dtype) runs as written, where it can.
    """
    choice = os.environ.get(DEVICE_VARIABLE, "").strip().lower() or "cpu"
    if choice not in _CHOICES:
        raise ValueError(f"{DEVICE_VARIABLE}={choice!r} is not one of {', '.join(_CHOICES)}")
    if choice == "auto":
        choice = "cuda" if torch.cuda.is_available() else "cpu"
    if choice != "cpu" and not device_available(choice):
        raise RuntimeError(
            f"{DEVICE_VARIABLE}={choice} but this PyTorch ({torch.__version__}) sees no {_NAMES[choice]} "
            "device; unset it to run on the CPU"
        )
    device = torch.device(choice)
    missing = [str(dtype).removeprefix("torch.") for dtype in needs if not holds_dtype(device, dtype)]
    if not missing:
        return device
    page = running_page()
    said = words(page.language if page is not None else None)
    print(said["on_cpu"].format(device=_NAMES[choice], dtypes=", ".join(missing)))
    return torch.device("cpu")
