"""What PyTorch can tell about a runner's GPU, for the records of GPU runners.

A record of a GPU run says which GPU it ran on: its compute capability
(``"9.0"`` for an H100), the ROCm version of a ROCm build (the CUDA version
is the record's ``cuda`` already), and the driver's version where this
PyTorch can tell it (``torch.cuda.driver_version()``, which older releases
lack: then it is left out, never guessed). Everything comes from PyTorch
itself: no ``nvidia-smi``, no other package. A CPU record has none of it.
"""

from __future__ import annotations

import torch

from ..._device import runner_info
from ..format.record_format import GpuDetails, Runner

__all__ = ["gpu_details", "runner_metadata"]


def _driver_version() -> str | None:
    reader = getattr(torch.cuda, "driver_version", None)
    if not callable(reader):
        return None
    try:
        version = reader()
    except (RuntimeError, AssertionError):  # a build or machine that cannot say
        return None
    return None if version is None else str(version)


def gpu_details(device: torch.device) -> GpuDetails:
    """The details of ``device`` that PyTorch can tell; empty for the CPU and MPS."""
    details: GpuDetails = {}
    if device.type == "xpu":
        driver = getattr(torch.xpu.get_device_properties(device), "driver_version", None)
        if driver:
            details["driver"] = str(driver)
        return details
    if device.type != "cuda":
        return details
    properties = torch.cuda.get_device_properties(device)
    details["capability"] = f"{properties.major}.{properties.minor}"
    hip = getattr(torch.version, "hip", None)
    if hip:
        details["hip"] = str(hip)
        arch = getattr(properties, "gcnArchName", None)
        if arch:
            details["arch"] = str(arch)
    driver = _driver_version()
    if driver is not None:
        details["driver"] = driver
    return details


def runner_metadata() -> Runner:
    """Describe the runner of a capture: PyTorch, its build, device and Python.

    A GPU runner adds what PyTorch tells of its GPU (compute capability, ROCm
    version, driver: :func:`~.device_details.gpu_details`); a CPU runner's
    metadata is the same six keys as ever.
    """
    info = runner_info()
    return {
        "device": info.device,
        "device_name": info.device_name,
        "torch": info.torch_version,
        "variant": info.variant,
        "cuda": torch.version.cuda,
        "python": info.python,
        **gpu_details(torch.device(info.device)),
    }
