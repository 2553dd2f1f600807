"""Which tests build a site or an environment: they are marked ``build`` at collection (``conftest.py``).

Nothing is declared by hand and nothing is checked at run time: a test
builds when it uses a building session fixture, or when its code, or a
fixture or function of its module that it uses, calls one of
``_site.BUILDERS`` (directly or through other functions of the module).
"""

from __future__ import annotations

import functools
import inspect
from types import ModuleType
from typing import Any, Protocol

from _site import BUILDERS

__all__ = ["BUILDING_FIXTURES", "builders_of", "builds"]

BUILDING_FIXTURES = frozenset({"whole_site", "torch_site"})
"""The session fixtures that build (``conftest.py``)."""


class Collected(Protocol):
    """What :func:`builds` reads of a collected test (a ``pytest.Function``)."""

    fixturenames: list[str]
    module: Any
    function: Any


def _names(function: Any) -> set[str]:
    """The global names a function's code reads, its nested functions' included."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    names: set[str] = set()
    codes = [code] if code is not None else []
    while codes:
        current = codes.pop()
        names.update(current.co_names)
        codes.extend(c for c in current.co_consts if inspect.iscode(c))
    return names


@functools.cache  # once per test module, not once per test
def builders_of(module: ModuleType) -> frozenset[str]:
    """The names of ``module`` that build: :data:`~_site.BUILDERS`, and its functions that call one."""
    building = set(BUILDERS)
    reads = {
        name: _names(getattr(value, "__wrapped__", value))
        for name, value in vars(module).items()
        if callable(value)
    }
    while more := {name for name, read in reads.items() if read & building and name not in building}:
        building |= more
    return frozenset(building)


def builds(item: Collected) -> bool:
    """Whether a collected test builds: see the module docstring."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & BUILDING_FIXTURES:
        return True
    module, function = getattr(item, "module", None), getattr(item, "function", None)
    if module is None or function is None:
        return False
    return bool((_names(function) | fixtures) & builders_of(module))
