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
    return "CPU"


def runner_info() -> RunnerInfo:
    """Describe this runner (see :class:`RunnerInfo`)."""
    device = runner_device()
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else platform.machine() or "CPU"
    return RunnerInfo(
        torch_version=torch.__version__,
        variant=_variant(),
        device=device.type,
        device_name=name,
        python=platform.python_version(),
    )
