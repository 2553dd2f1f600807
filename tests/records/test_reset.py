"""reset_example: isolate one example from the next, and time it out."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
import torch

from autograd_notes._expect import ExampleTimeout
from autograd_notes.records.capture.reset import (
    DEFAULT_MEMORY_MIB,
    DEFAULT_TIMEOUT_S,
    EXECUTION_LOG_VARIABLE,
    MEMORY_VARIABLE,
    PYTORCH_GPU_NOISE,
    TIMEOUT_VARIABLE,
    example_memory_mib,
    example_timeout,
    example_warning_filters,
    memory_limit_applies,
    reset_example,
    reset_torch_state,
)

FNAME = "plot_x.py"
TIMED_OUT = r"^plot_x\.py did not finish within 0\.2 s \(set AUTOGRAD_NOTES_EXAMPLE_TIMEOUT to change\)$"


def before() -> None:
    reset_example(gallery_conf={}, fname=FNAME, when="before")


def after() -> None:
    reset_example(gallery_conf={}, fname=FNAME, when="after")


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No variable from the caller's shell, no alarm and PyTorch's defaults after each test."""
    monkeypatch.delenv(TIMEOUT_VARIABLE, raising=False)
    monkeypatch.delenv(EXECUTION_LOG_VARIABLE, raising=False)
    monkeypatch.delenv(MEMORY_VARIABLE, raising=False)
    handler = signal.getsignal(signal.SIGALRM)
    with warnings.catch_warnings():
        yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, handler)
    reset_torch_state()


def draws() -> tuple[float, list[float]]:
    return random.random(), torch.rand(3).tolist()


def test_before_and_after_reset_the_seeds() -> None:
    try:
        before()
        first = draws()
        assert draws() != first
        after()
        assert draws() == first
        before()
        assert draws() == first
    finally:
        after()


@pytest.mark.parametrize("when", ["before", "after"])
def test_global_torch_state_is_reset(when: str) -> None:
    torch.set_default_dtype(torch.float64)
    torch.set_default_device("meta")
    torch.set_grad_enabled(False)
    torch.autograd.set_detect_anomaly(True)
    torch.set_warn_always(True)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_float32_matmul_precision("medium")
    torch.set_printoptions(precision=1)
    try:
        reset_example(gallery_conf={}, fname=FNAME, when=when)
        assert torch.get_default_dtype() == torch.float32
        assert torch.empty(1).device == torch.device("cpu")
        assert torch.is_grad_enabled()
        assert not torch.is_anomaly_enabled()
        assert not torch.is_warn_always_enabled()
        assert not torch.are_deterministic_algorithms_enabled()
        assert not torch.is_deterministic_algorithms_warn_only_enabled()
        assert not torch.backends.cudnn.deterministic
        assert not torch.backends.cudnn.benchmark
        assert torch.backends.cudnn.allow_tf32
        assert not torch.backends.cuda.matmul.allow_tf32
        assert torch.get_float32_matmul_precision() == "highest"
        assert str(torch.tensor([0.123456])) == "tensor([0.1235])"
    finally:
        after()


@pytest.mark.parametrize("when", ["before", "after"])
def test_new_precision_api_is_reset_to_a_fresh_process(when: str) -> None:
    """An example that sets ``fp32_precision`` (the API of PyTorch 2.9+) leaves nothing behind.

    Mixing it with the legacy flags makes reading them raise; after the
    reset, both APIs read as in a fresh process.
    """
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import torch; b = torch.backends; print(b.cuda.matmul.fp32_precision, "
            "b.cudnn.conv.fp32_precision, b.mkldnn.matmul.fp32_precision)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    torch.backends.cuda.matmul.fp32_precision = "tf32"
    torch.backends.cudnn.conv.fp32_precision = "ieee"
    torch.backends.mkldnn.matmul.fp32_precision = "bf16"
    with pytest.raises(RuntimeError, match="mix of the legacy and new APIs"):
        torch.backends.cuda.matmul.allow_tf32  # noqa: B018 - the read is what raises
    try:
        reset_example(gallery_conf={}, fname=FNAME, when=when)
        backends = torch.backends
        assert [
            backends.cuda.matmul.fp32_precision,
            backends.cudnn.conv.fp32_precision,
            backends.mkldnn.matmul.fp32_precision,
        ] == fresh
        assert not torch.backends.cuda.matmul.allow_tf32
        assert torch.get_float32_matmul_precision() == "highest"
    finally:
        after()


def test_numpy_seed_is_reset() -> None:
    import numpy as np

    try:
        before()
        first = np.random.rand(3).tolist()
        after()
        before()
        assert np.random.rand(3).tolist() == first
    finally:
        after()


needs_the_limit = pytest.mark.skipif(
    not memory_limit_applies(), reason="the memory limit applies on Linux without CUDA only"
)


@needs_the_limit
def test_memory_limit_stops_an_allocation_beyond_it_and_after_lifts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(MEMORY_VARIABLE, "256")
    gib = 2**30
    try:
        before()
        with pytest.raises(RuntimeError, match="can't allocate memory"):
            torch.empty(gib, dtype=torch.uint8).fill_(1)
        small = torch.empty(16 * 2**20, dtype=torch.uint8).fill_(1)  # within the limit
        assert int(small[-1]) == 1
    finally:
        after()
    big = torch.empty(gib, dtype=torch.uint8).fill_(1)  # the limit is gone
    assert int(big[-1]) == 1


def test_no_memory_limit_where_cuda_is_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMORY_VARIABLE, "256")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert not memory_limit_applies()
    try:
        before()
        assert int(torch.empty(2**30, dtype=torch.uint8).fill_(1)[-1]) == 1
    finally:
        after()


@needs_the_limit
def test_memory_limit_never_raises_a_limit_the_process_already_has(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    stricter = 64 * 2**30  # far above what the process maps, far below its limit plus 4 GiB
    resource.setrlimit(resource.RLIMIT_AS, (stricter, hard))
    try:
        monkeypatch.setenv(MEMORY_VARIABLE, str(10**6))  # a limit far above the stricter one
        before()
        assert resource.getrlimit(resource.RLIMIT_AS)[0] <= stricter
        after()
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == stricter
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_a_bad_memory_limit_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMORY_VARIABLE, "lots")
    torch.set_grad_enabled(False)
    try:
        with pytest.raises(ValueError, match="AUTOGRAD_NOTES_EXAMPLE_MEMORY='lots'"):
            before()
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert not torch.is_grad_enabled()  # before() stopped before resetting anything
    finally:
        after()


def test_default_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MEMORY_VARIABLE, raising=False)
    assert example_memory_mib() == DEFAULT_MEMORY_MIB == 4096
    monkeypatch.setenv(MEMORY_VARIABLE, " 300 ")
    assert example_memory_mib() == 300


@pytest.mark.parametrize(
    ("raw", "reason"),
    [("4G", "is not a whole number of MiB"), ("1.5", "is not a whole number"), ("0", "must be positive")],
)
def test_invalid_memory_limit_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, raw: str, reason: str
) -> None:
    monkeypatch.setenv(MEMORY_VARIABLE, raw)
    with pytest.raises(ValueError, match=rf"^AUTOGRAD_NOTES_EXAMPLE_MEMORY='{raw}' {reason}"):
        example_memory_mib()


def test_before_makes_warnings_errors_and_after_restores_the_filters() -> None:
    warnings.simplefilter("ignore")
    previous = list(warnings.filters)
    try:
        before()
        with pytest.raises(UserWarning, match="undocumented"):
            warnings.warn("undocumented", UserWarning, stacklevel=1)
    finally:
        after()
    assert warnings.filters == previous
    warnings.warn("ignored again", UserWarning, stacklevel=1)  # would raise if "error" were left


@pytest.mark.parametrize("action", ["error", "always"])
def test_pytorch_gpu_noise_is_ignored_and_its_neighbours_are_not(action: Literal["error", "always"]) -> None:
    """The two warnings PyTorch raises on a GPU of its own accord pass silently; the same
    categories with other words, and the same words in another category, do not."""
    cublas = (
        "Attempting to run cuBLAS, but there was no current CUDA context! Attempting to set the "
        "primary context... (Triggered internally at /pytorch/aten/src/ATen/cuda/CublasHandlePool.cpp:270.)"
    )
    script_method = (
        "`torch.jit.script_method` is deprecated. Please switch to `torch.compile` or `torch.export`."
    )
    assert [category for category, _ in PYTORCH_GPU_NOISE] == [UserWarning, DeprecationWarning]
    with warnings.catch_warnings(record=True) as caught:
        example_warning_filters(action)
        warnings.warn(cublas, UserWarning, stacklevel=1)
        warnings.warn(script_method, DeprecationWarning, stacklevel=1)
        others = [
            ("Attempting to run cuDNN without a context", UserWarning),
            ("`torch.jit.script` is deprecated", DeprecationWarning),
            (script_method, UserWarning),
        ]
        for message, category in others:
            if action == "error":
                with pytest.raises(category, match="^" + message[:10]):
                    warnings.warn(message, category, stacklevel=1)
            else:
                warnings.warn(message, category, stacklevel=1)
    assert [str(w.message) for w in caught] == ([] if action == "error" else [m for m, _ in others])


def test_execution_log_gets_one_line_per_before(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = tmp_path / "executed.txt"
    monkeypatch.setenv(EXECUTION_LOG_VARIABLE, str(log))
    for fname in ["gallery/a/plot_one.py", "gallery/b/plot_two.py", "gallery/a/plot_one.py"]:
        try:
            reset_example(gallery_conf={}, fname=fname, when="before")
        finally:
            reset_example(gallery_conf={}, fname=fname, when="after")
    assert (
        log.read_text(encoding="utf-8")
        == "gallery/a/plot_one.py\ngallery/b/plot_two.py\ngallery/a/plot_one.py\n"
    )


def test_no_execution_log_without_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        before()
    finally:
        after()
    assert list(tmp_path.iterdir()) == []


def test_timeout_interrupts_a_busy_example(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.2")
    start = time.monotonic()
    try:
        before()
        with pytest.raises(ExampleTimeout, match=TIMED_OUT):  # noqa: PT012 - a busy example
            while time.monotonic() - start < 5:
                time.sleep(0.01)
    finally:
        after()
    elapsed = time.monotonic() - start
    assert 0.15 < elapsed < 1.0


def test_after_disarms_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.2")
    handler = signal.getsignal(signal.SIGALRM)
    try:
        before()
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
        assert signal.getsignal(signal.SIGALRM) is not handler
    finally:
        after()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is handler
    time.sleep(0.4)  # past the timeout: nothing is raised


def test_default_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    assert example_timeout() == DEFAULT_TIMEOUT_S == 120.0
    monkeypatch.setenv(TIMEOUT_VARIABLE, "  ")
    assert example_timeout() == 120.0
    monkeypatch.setenv(TIMEOUT_VARIABLE, " 2.5 ")
    assert example_timeout() == 2.5


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("soon", "is not a number of seconds"),
        ("10s", "is not a number of seconds"),
        ("0", "must be positive"),
        ("-1", "must be positive"),
        ("nan", "must be positive"),
        ("inf", "must be positive"),
    ],
)
def test_invalid_timeout_names_the_variable(monkeypatch: pytest.MonkeyPatch, raw: str, reason: str) -> None:
    monkeypatch.setenv(TIMEOUT_VARIABLE, raw)
    expected = rf"^AUTOGRAD_NOTES_EXAMPLE_TIMEOUT='{raw}' {reason}"
    with pytest.raises(ValueError, match=expected):
        example_timeout()
    try:
        with pytest.raises(ValueError, match=expected):
            before()
    finally:
        after()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
