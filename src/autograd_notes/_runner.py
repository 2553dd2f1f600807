"""Which runner is this: PyTorch version and build, device, Python."""

from __future__ import annotations

import platform
from dataclasses import dataclass

import torch

from ._device import runner_device

__all__ = ["RunnerInfo", "runner_info"]


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
