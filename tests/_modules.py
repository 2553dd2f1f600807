"""Load a Python file that is not an importable module (the noxfile's loads, conftest.py, a benchmark)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_file"]


def load_file(path: Path, name: str) -> ModuleType:
    """Run the file ``path`` as the module ``name`` and return it.

    The module is in ``sys.modules`` while it runs, as an import would have
    it (a dataclass looks its module up there), and is taken out afterwards:
    ``name`` should be one no other test uses.
    """
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module
