"""RunnerInfo and runner_info: what a page's outputs depend on."""

from __future__ import annotations

import dataclasses
import platform

import pytest
import torch

from autograd_notes import DEVICE_VARIABLE, RunnerInfo, runner_info

INFO = RunnerInfo(
    torch_version="2.13.0+cpu", variant="CPU", device="cpu", device_name="x86_64", python="3.11.7"
)


def test_key_names_every_output_dependency() -> None:
    assert INFO.key == "torch=2.13.0+cpu;variant=CPU;device=cpu;device_name=x86_64;python=3.11.7"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("torch_version", "2.14.0+cpu"),
        ("device", "cuda"),
        ("variant", "CUDA 12.6"),
        ("device_name", "NVIDIA H100"),
        ("python", "3.13.1"),
    ],
)
def test_key_changes_with_each_dependency(field: str, value: str) -> None:
    other = dataclasses.replace(INFO, **{field: value})
    assert getattr(other, field) == value
    assert other != INFO
    assert other.key != INFO.key
    assert f"{'torch' if field == 'torch_version' else field}={value}" in other.key


def test_runner_info_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        INFO.device = "cuda"  # type: ignore[misc]


def test_runner_info_on_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.version, "hip", None)
    info = runner_info()
    assert info == RunnerInfo(
        torch_version=torch.__version__,
        variant="CPU",
        device="cpu",
        device_name=platform.machine() or "CPU",
        python=platform.python_version(),
    )
    assert info.key == (
        f"torch={torch.__version__};variant=CPU;device=cpu;"
        f"device_name={platform.machine() or 'CPU'};python={platform.python_version()}"
    )


def test_runner_info_names_the_cuda_build_and_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "cuda")
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: f"Fake GPU on {device}")
    info = runner_info()
    assert (info.variant, info.device, info.device_name) == ("CUDA 12.6", "cuda", "Fake GPU on cuda")
    assert ";variant=CUDA 12.6;device=cuda;" in info.key


def test_runner_info_names_a_rocm_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.version, "hip", "6.2.4")
    assert runner_info().variant == "ROCm 6.2.4"


def test_runner_info_refuses_a_bad_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "tpu")
    with pytest.raises(ValueError, match="AUTOGRAD_NOTES_DEVICE='tpu'"):
        runner_info()


def test_runner_info_names_an_mps_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_VARIABLE, "mps")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    monkeypatch.setattr(platform, "machine", lambda: "arm64")
    info = runner_info()
    assert (info.device, info.device_name) == ("mps", "Apple arm64 (MPS)")
