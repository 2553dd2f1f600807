"""The runner: the device an example puts its tensors on, and what describes the runner.

:func:`runner_device` is the runner's device (or the CPU, where it lacks a dtype the example
needs); :func:`runner_info` says which PyTorch, build, device and Python the outputs come from.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass

import torch

from ._download_page import running_page
from ._reader_words import words

__all__ = ["DEVICE_VARIABLE", "RunnerInfo", "device_available", "holds_dtype", "runner_device", "runner_info"]

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


# -- what describes the runner ---------------------------------------------------------------


@dataclass(frozen=True)
class RunnerInfo:
    """What a page's outputs depend on, beyond the example's own code."""

    torch_version: str
    variant: str
    device: str
    device_name: str
    python: str

    @property
    def key(self) -> str:
        """One string that changes whenever captured outputs may change."""
        return (
            f"torch={self.torch_version};variant={self.variant};device={self.device};"
            f"device_name={self.device_name};python={self.python}"
        )


def _variant() -> str:
    if torch.version.cuda:
        return f"CUDA {torch.version.cuda}"
    if getattr(torch.version, "hip", None):
        return f"ROCm {torch.version.hip}"
    if getattr(torch.version, "xpu", None):
        return f"XPU {torch.version.xpu}"
    return "CPU"


def _device_name(device: torch.device) -> str:
    """The GPU's name as PyTorch tells it; the machine's architecture on the CPU and on MPS."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "xpu":
        return str(torch.xpu.get_device_name(device))
    machine = platform.machine() or "CPU"
    return f"Apple {machine} (MPS)" if device.type == "mps" else machine


def runner_info() -> RunnerInfo:
    """Describe this runner (see :class:`RunnerInfo`)."""
    device = runner_device()
    return RunnerInfo(
        torch_version=torch.__version__,
        variant=_variant(),
        device=device.type,
        device_name=_device_name(device),
        python=platform.python_version(),
    )
