"""The device an example puts its tensors on: the runner's."""

from __future__ import annotations

import os

import torch

__all__ = ["DEVICE_VARIABLE", "device_available", "runner_device"]

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


def runner_device() -> torch.device:
    """Return the device named by ``AUTOGRAD_NOTES_DEVICE``.

    ``cpu`` (the default when the variable is unset or empty), ``cuda``,
    ``mps`` or ``xpu`` (an error if this PyTorch cannot use it: a GPU runner
    without its GPU is broken, not a CPU runner), or ``auto`` (CUDA when
    available, else the CPU).
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
    return torch.device(choice)
