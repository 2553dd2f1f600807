"""Make messages from PyTorch stable across machines and builds."""

from __future__ import annotations

import re

from ._paths import display_path

__all__ = ["normalise_message"]

# "(Triggered internally at /pytorch/torch/csrc/...cpp:123.)" names a file of
# the machine that built the wheel; it says nothing to a reader.
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_OBJECT_AT = re.compile(r"<([\w.]+) object at 0x[0-9a-fA-F]+>")
# "cannot import name 'X' from 'torch.distributed' (/home/u/venv/lib/python3.11/site-packages/torch/...)":
# an installed file is named by its import path, as tracebacks name it (``_paths.display_path``)
_INSTALLED = re.compile(r"(?<![\w.-])/[^\s()'\"]*/site-packages/")
# a frame quoted inside a message ("Stack trace: File "/home/u/project/gallery/x.py", line 58"):
# the file as a traceback names it (``_paths.display_path``), never the machine's folders
_QUOTED_FRAME = re.compile(r'File "(/[^"]+)"')


def normalise_message(text: str) -> str:
    """Return ``text`` without build paths, memory addresses or trailing spaces.

    >>> normalise_message("<AddBackward0 object at 0x7f00aa11bb22>")
    '<AddBackward0>'
    >>> normalise_message("bad (Triggered internally at /pytorch/x.cpp:1.)")
    'bad'
    >>> normalise_message("from 'torch.x' (/home/u/env/lib/python3.11/site-packages/torch/x/__init__.py)")
    "from 'torch.x' (torch/x/__init__.py)"
    >>> normalise_message('Stack trace: File "/no/such/folder/plot_x.py", line 58')
    'Stack trace: File "plot_x.py", line 58'
    """
    text = _TRIGGERED.sub("", text)
    text = _QUOTED_FRAME.sub(lambda match: f'File "{display_path(match[1])}"', text)
    text = _INSTALLED.sub("", text)
    text = _OBJECT_AT.sub(r"<\1>", text)
    text = _ADDRESS.sub("0x…", text)
    return "\n".join(line.rstrip() for line in text.splitlines())
