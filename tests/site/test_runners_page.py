"""The helper's own prose in outputs is translatable; everything else is kept as printed."""

from __future__ import annotations

from autograd_notes.site.runners_page import localise_output


def test_only_the_folded_frames_line_is_rewritten() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "gallery/05_inplace/plot_x.py", line 41, in <module>',
        "  [3 frames inside PyTorch: torch._tensor.backward > torch.autograd.backward]",
        "  [1 frame inside PyTorch: torch._tensor.backward]",
        "RuntimeError: one of the variables needed for gradient computation has been modified",
    ]
    # without a translation (English), the text comes back as it was
    assert localise_output(lines) == lines
