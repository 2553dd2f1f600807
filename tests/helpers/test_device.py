"""runner_device: the device named by AUTOGRAD_NOTES_DEVICE."""

from __future__ import annotations

import re
import types

import pytest
import torch

from autograd_notes import DEVICE_VARIABLE, runner_device
from autograd_notes._device import device_available

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


def test_variable_name() -> None:
    assert DEVICE_VARIABLE == "AUTOGRAD_NOTES_DEVICE"


def test_default_is_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    fake_cuda(monkeypatch)  # even where CUDA is there, the default stays the CPU
    assert runner_device() == torch.device("cpu")


@pytest.mark.parametrize("value", ["", "   ", "cpu", "CPU", " cpu\n"])
def test_empty_or_cpu_is_cpu(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, value)
    assert runner_device() == torch.device("cpu")


def test_auto_is_cpu_without_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "auto")
    no_cuda(monkeypatch)
    assert runner_device() == torch.device("cpu")


def test_auto_on_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "auto")
    assert runner_device().type == ("cuda" if torch.cuda.is_available() else "cpu")


def test_auto_is_cuda_with_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "Auto")
    fake_cuda(monkeypatch)
    assert runner_device() == torch.device("cuda")


def test_cuda_without_cuda_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "cuda")
    no_cuda(monkeypatch)
    expected = f"AUTOGRAD_NOTES_DEVICE=cuda but this PyTorch ({torch.__version__}) sees no CUDA device"
    with pytest.raises(RuntimeError, match=re.escape(expected)):
        runner_device()


def test_cuda_with_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "cuda")
    fake_cuda(monkeypatch)
    assert runner_device() == torch.device("cuda")


@pytest.mark.parametrize(("value", "shown"), [("tpu", "'tpu'"), ("cuda:1", "'cuda:1'"), (" GPU ", "'gpu'")])
def test_invalid_value_names_variable_and_value(
    monkeypatch: pytest.MonkeyPatch, value: str, shown: str
) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, value)
    expected = f"AUTOGRAD_NOTES_DEVICE={shown} is not one of cpu, cuda, mps, xpu, auto"
    with pytest.raises(ValueError, match=re.escape(expected)):
        runner_device()


@pytest.mark.gpu
@needs_cuda
def test_cuda_on_a_gpu_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "cuda")
    device = runner_device()
    assert device == torch.device("cuda")
    assert torch.ones(1, device=device).device.type == "cuda"


@pytest.mark.parametrize(("value", "name"), [("mps", "MPS"), ("xpu", "XPU")])
def test_mps_or_xpu_without_it_is_an_error(monkeypatch: pytest.MonkeyPatch, value: str, name: str) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, value)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    if hasattr(torch, "xpu"):
        monkeypatch.setattr(torch.xpu, "is_available", lambda: False)
    expected = f"AUTOGRAD_NOTES_DEVICE={value} but this PyTorch ({torch.__version__}) sees no {name} device"
    with pytest.raises(RuntimeError, match=re.escape(expected)):
        runner_device()


@pytest.mark.parametrize("value", ["mps", "xpu"])
def test_mps_or_xpu_with_it(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, value)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    monkeypatch.setattr(torch, "xpu", types.SimpleNamespace(is_available=lambda: True), raising=False)
    assert runner_device() == torch.device(value)


def test_a_build_without_the_backend_has_no_such_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(torch, "xpu", raising=False)
    assert not device_available("xpu")
    assert device_available("cpu")
    assert not device_available("tpu")
