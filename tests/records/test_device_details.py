"""The runner metadata of a GPU record: what PyTorch tells of the GPU, and nothing on the CPU."""

from __future__ import annotations

import types

import pytest
import torch

from autograd_notes._device import DEVICE_VARIABLE
from autograd_notes.records.capture.device_details import gpu_details, runner_metadata


def fake_gpu(monkeypatch: pytest.MonkeyPatch, *, hip: str | None = None, driver: object = None) -> None:
    """This machine as one with a CUDA (or ROCm) GPU, whatever it has."""
    properties = types.SimpleNamespace(major=9, minor=0, name="NVIDIA H100 80GB HBM3", gcnArchName="gfx942")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: properties.name)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device=None: properties)
    monkeypatch.setattr(torch.version, "cuda", None if hip else "13.0")
    monkeypatch.setattr(torch.version, "hip", hip)
    if driver is None:
        monkeypatch.delattr(torch.cuda, "driver_version", raising=False)
    else:
        monkeypatch.setattr(torch.cuda, "driver_version", driver, raising=False)


def test_a_cpu_runner_has_the_six_keys_of_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    assert list(runner_metadata()) == ["device", "device_name", "torch", "variant", "cuda", "python"]
    assert gpu_details(torch.device("cpu")) == {}


def test_a_cuda_runner_names_its_gpu_capability_and_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_gpu(monkeypatch, driver=lambda: "580.65.06")
    monkeypatch.setenv(DEVICE_VARIABLE, "cuda")
    runner = runner_metadata()
    assert runner["device"] == "cuda"
    assert runner["device_name"] == "NVIDIA H100 80GB HBM3"
    assert (runner["variant"], runner["cuda"]) == ("CUDA 13.0", "13.0")
    assert (runner.get("capability"), runner.get("driver")) == ("9.0", "580.65.06")
    assert "hip" not in runner


def test_a_driver_pytorch_cannot_tell_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_gpu(monkeypatch)  # no torch.cuda.driver_version in this release
    assert gpu_details(torch.device("cuda")) == {"capability": "9.0"}

    def fails() -> str:
        raise RuntimeError("no driver")

    fake_gpu(monkeypatch, driver=fails)
    assert gpu_details(torch.device("cuda")) == {"capability": "9.0"}


def test_a_rocm_runner_names_its_rocm_version_and_architecture(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_gpu(monkeypatch, hip="6.4.1")
    monkeypatch.setenv(DEVICE_VARIABLE, "cuda")  # ROCm's device type is cuda
    runner = runner_metadata()
    assert runner["variant"] == "ROCm 6.4.1"
    assert runner["cuda"] is None
    assert (runner.get("capability"), runner.get("hip"), runner.get("arch")) == ("9.0", "6.4.1", "gfx942")
