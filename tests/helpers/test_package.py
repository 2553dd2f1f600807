"""The package's names: every helper an example imports, loaded when first asked for."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import autograd_notes


def test_every_public_name_is_its_modules_object() -> None:
    assert sorted(autograd_notes._MODULES) == sorted(autograd_notes.__all__)
    for name in autograd_notes.__all__:
        module = importlib.import_module(f"autograd_notes.{autograd_notes._MODULES[name]}")
        assert getattr(autograd_notes, name) is getattr(module, name), name
    assert set(autograd_notes.__all__) <= set(dir(autograd_notes))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'no_such_helper'"):
        _ = autograd_notes.no_such_helper  # type: ignore[attr-defined]


def test_the_site_build_and_the_records_start_without_pytorch() -> None:
    """``import autograd_notes`` (as ``python -m autograd_notes.site.build.sitebuild`` does) loads neither
    PyTorch nor matplotlib until an example asks for a helper."""
    probe = (
        "import json, sys, autograd_notes, autograd_notes.site.build.sitebuild\n"
        "before = sorted({'torch', 'matplotlib'} & set(sys.modules))\n"
        "from autograd_notes import check\n"
        "print(json.dumps([before, 'torch' in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [[], True]
