"""runner_device: the device named by AUTOGRAD_NOTES_DEVICE."""

from __future__ import annotations

import re
import types

import pytest
import torch

from autograd_notes import DEVICE_VARIABLE, runner_device
from autograd_notes._device import device_available, holds_dtype

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


# -- a device without a dtype the example needs (MPS has no float64) ----------------------------

MPS_REFUSAL = (
    "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. "
    "Please use float32 instead."
)


def fake_mps_without_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    """An MPS device as PyTorch's MPS backend answers: float64 refused with its TypeError."""
    real_empty = torch.empty

    def empty(*size: int, dtype: torch.dtype | None = None, device: object = None) -> torch.Tensor:
        if torch.device(device).type == "mps":  # type: ignore[arg-type]
            if dtype in (torch.float64, torch.complex128):
                raise TypeError(MPS_REFUSAL)
            return real_empty(*size, dtype=dtype, device="meta")
        return real_empty(*size, dtype=dtype, device=device)  # type: ignore[arg-type]

    monkeypatch.setenv(DEVICE_VARIABLE, "mps")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    monkeypatch.setattr(torch, "empty", empty)


def test_a_device_that_holds_every_needed_dtype_is_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    assert runner_device(torch.float64, torch.complex128) == torch.device("cpu")
    fake_mps_without_float64(monkeypatch)
    assert runner_device(torch.float32, torch.complex64) == torch.device("mps")
    assert capsys.readouterr().out == ""


def test_without_a_needed_dtype_the_example_runs_on_the_cpu_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_mps_without_float64(monkeypatch)
    assert runner_device(torch.float64, torch.float32, torch.complex128) == torch.device("cpu")
    assert capsys.readouterr().out == (
        "This PyTorch's MPS device has no float64, complex128, which this example needs: "
        "it runs on the CPU.\n"
    )


def test_the_cpu_sentence_is_in_the_language_of_the_download(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from autograd_notes import _device
    from autograd_notes._download_page import DownloadPage

    fake_mps_without_float64(monkeypatch)
    page = DownloadPage("https://example.org/zh_CN/examples/x.html", "zh_CN")
    monkeypatch.setattr(_device, "running_page", lambda: page)
    assert runner_device(torch.float64) == torch.device("cpu")
    said = capsys.readouterr().out
    assert said == "此 PyTorch 的 MPS 设备不支持本示例所需的 float64：示例改在 CPU 上运行。\n"


def test_another_error_of_the_device_is_raised_not_taken_for_a_missing_dtype(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*size: int, dtype: torch.dtype | None = None, device: object = None) -> torch.Tensor:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(torch, "empty", broken)
    with pytest.raises(RuntimeError, match="illegal memory access"):
        holds_dtype(torch.device("cpu"), torch.float64)


def test_this_machines_cpu_holds_the_wide_dtypes() -> None:
    for dtype in (torch.float64, torch.complex128, torch.float16, torch.bfloat16):
        assert holds_dtype(torch.device("cpu"), dtype)


needs_mps = pytest.mark.skipif(not device_available("mps"), reason="needs an MPS device (a Mac's GPU)")


@pytest.mark.gpu
@needs_mps
def test_mps_refuses_float64_and_the_example_runs_on_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not holds_dtype(torch.device("mps"), torch.float64)
    assert holds_dtype(torch.device("mps"), torch.float32)
    monkeypatch.setenv(DEVICE_VARIABLE, "mps")
    assert runner_device(torch.float64) == torch.device("cpu")
    assert runner_device() == torch.device("mps")
