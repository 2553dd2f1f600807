"""normalise_message: messages stable across machines and builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograd_notes._normalise import normalise_message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The .grad attribute is being accessed. (Triggered internally at "
            "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)",
            "The .grad attribute is being accessed.",
        ),
        ("first\n  (Triggered internally at C:\\actions\\x.cpp:7.)\nnext", "first\nnext"),
        ("<AddBackward0 object at 0x7f00aa11bb22>", "<AddBackward0>"),
        ("<torch.autograd.graph.Node object at 0xdeadbeef>", "<torch.autograd.graph.Node>"),
        ("hook at 0x7f00aa11bb22 and 0xABCDEF", "hook at 0x… and 0x…"),
        ("small numbers stay: 0x1f, 0xabcde", "small numbers stay: 0x1f, 0xabcde"),
        ("word0x7f00aa11bb22", "word0x7f00aa11bb22"),
        ("trailing   \nspaces\t\n", "trailing\nspaces"),
        ("", ""),
        ("tensor([1., 2.], grad_fn=<MulBackward0>)", "tensor([1., 2.], grad_fn=<MulBackward0>)"),
    ],
)
def test_normalise_message(text: str, expected: str) -> None:
    assert normalise_message(text) == expected


def test_normalise_message_is_idempotent() -> None:
    once = normalise_message(
        "<X object at 0x7f00aa11bb22> at 0x7f00aa11bb22   (Triggered internally at a.cpp:1.)"
    )
    assert once == "<X> at 0x…"
    assert normalise_message(once) == once


def test_an_installed_file_in_a_message_is_named_by_its_import_path() -> None:
    """A release's own environment, wherever it lives, leaves no path of the machine in a record."""
    message = (
        "ImportError: cannot import name 'FSDPModule' from 'torch.distributed.fsdp' "
        "(/tmp/relenvs/torch-2.4.1/lib/python3.11/site-packages/torch/distributed/fsdp/__init__.py)"
    )
    assert normalise_message(message) == (
        "ImportError: cannot import name 'FSDPModule' from 'torch.distributed.fsdp' "
        "(torch/distributed/fsdp/__init__.py)"
    )


def test_a_frame_quoted_in_a_message_is_named_as_a_traceback_names_it() -> None:
    """CUDA graph trees quote the compiled function's frame; the runner's folders stay out of the record."""
    here = Path(__file__).resolve()
    message = f'Error: accessing tensor output of CUDAGraphs. Stack trace: File "{here}", line 58, in loss_fn'
    assert normalise_message(message) == (
        'Error: accessing tensor output of CUDAGraphs. Stack trace: File "tests/helpers/test_normalise.py", '
        "line 58, in loss_fn"
    )
    assert normalise_message('File "/elsewhere/plot_x.py", line 1') == 'File "plot_x.py", line 1'
    assert normalise_message('File "<string>", line 1') == 'File "<string>", line 1'
