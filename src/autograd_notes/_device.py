"""The device an example puts its tensors on: the runner's."""

from __future__ import annotations

import os

import torch

__all__ = ["DEVICE_VARIABLE", "runner_device"]

DEVICE_VARIABLE = "AUTOGRAD_NOTES_DEVICE"
_CHOICES = ("cpu", "cuda", "auto")


def runner_device() -> torch.device:
    """Return the device named by ``AUTOGRAD_NOTES_DEVICE``.

    ``cpu`` (the default when the variable is unset or empty), ``cuda`` (an
    error if CUDA is not available: a GPU runner without a GPU is broken,
    not a CPU runner), or ``auto`` (CUDA when available, else the CPU).
    """
    choice = os.environ.get(DEVICE_VARIABLE, "").strip().lower() or "cpu"
    if choice not in _CHOICES:
        raise ValueError(f"{DEVICE_VARIABLE}={choice!r} is not one of {', '.join(_CHOICES)}")
    if choice == "auto":
        choice = "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            f"{DEVICE_VARIABLE}=cuda but this PyTorch ({torch.__version__}) sees no CUDA device; "
            "unset it to run on the CPU"
        )
    return torch.device(choice)
