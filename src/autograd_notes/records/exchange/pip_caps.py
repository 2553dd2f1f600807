"""A pip constraint file that caps torch: found before an install, and said with how to lift it.

A machine may give pip a constraint file in its configuration (``constraint =``
in ``/etc/xdg/pip/pip.conf``, ``pip.conf``...) or in ``PIP_CONSTRAINT``. One
that caps torch (``torch<=2.14.1``) makes ``pip install torch==2.15.0`` fail
with "conflicting dependencies", which says nothing of the file. ``nox -s
timeline`` asks pip which constraint files it applies (``pip config list``:
:func:`pip_constraint_files`), reads them (:func:`torch_caps`) and, where one
rules the release out, says so (:func:`cap_message`): the file, where it is
set, its line, and how to lift it for one command: ``PIP_CONSTRAINT=/dev/null``
(pip ignores an empty setting, so ``PIP_CONSTRAINT=`` lifts nothing).

Like :mod:`.releases`, this module needs ``packaging`` only: ``noxfile.py``
loads it alone, without PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

__all__ = ["LIFT", "TorchCap", "cap_message", "pip_constraint_files", "torch_caps"]

LIFT = "PIP_CONSTRAINT=/dev/null"
"""What lifts every constraint file of pip's for one command (an empty value lifts nothing)."""

_SECTIONS = (":env:", "install", "global")
"""Where ``pip install`` takes its ``constraint`` from, first found first: an environment variable,
then the ``[install]`` section of its configuration, then ``[global]``."""


@dataclass(frozen=True)
class TorchCap:
    """A line of a constraint file pip applies that rules a torch release out."""

    file: str
    where: str
    """Where pip is told to read the file: ``PIP_CONSTRAINT`` or its configuration's key."""
    requirement: str
    """The line, e.g. ``torch<=2.14.1``."""


def pip_constraint_files(config_list: str) -> list[tuple[str, str]]:
    """The constraint files ``pip install`` applies, each with where it is set, from ``pip config list``.

    >>> pip_constraint_files("global.constraint='/etc/xdg/pip/constraints.txt'")
    [('/etc/xdg/pip/constraints.txt', "pip's configuration (global.constraint)")]

    ``PIP_CONSTRAINT`` (``:env:``) comes first, then ``[install]``, then ``[global]``;
    a setting whose value is empty is ignored, as pip ignores it.
    """
    found: dict[str, str] = {}
    for line in config_list.splitlines():
        key, equals, value = line.partition("=")
        section, _, name = key.strip().rpartition(".")
        value = value.strip().strip("'\"")
        if equals and name == "constraint" and value:  # pip ignores a setting whose value is empty
            found[section] = value
    for section in _SECTIONS:
        if section in found:
            where = "PIP_CONSTRAINT" if section == ":env:" else f"pip's configuration ({section}.constraint)"
            return [(file, where) for file in found[section].split()]
    return []


def _read(file: str) -> str:
    return Path(file).read_text(encoding="utf-8")


def torch_caps(
    release: str, constraints: list[tuple[str, str]], read: Callable[[str], str] = _read
) -> list[TorchCap]:
    """The lines of ``constraints`` (:func:`pip_constraint_files`) that rule ``torch==release`` out.

    A file that cannot be read, and lines that are no requirement (options,
    comments, URLs), are passed over: pip reports those itself.
    """
    caps = []
    for file, where in constraints:
        try:
            text = read(file)
        except OSError:
            continue
        for line in text.splitlines():
            wanted = line.partition("#")[0].strip()
            if not wanted or wanted.startswith("-"):
                continue
            try:
                requirement = Requirement(wanted)
            except InvalidRequirement:
                continue
            if canonicalize_name(requirement.name) != "torch":
                continue
            if not requirement.specifier.contains(release, prereleases=True):
                caps.append(TorchCap(file, where, wanted))
    return caps


def cap_message(release: str, caps: list[TorchCap]) -> str:
    """Why pip will not install ``torch==release`` here, and how to lift the cap for one command."""
    named = "; ".join(f"{cap.file} (from {cap.where}) says {cap.requirement}" for cap in caps)
    return (
        f"pip cannot install torch {release} here: a constraint file caps torch: {named}. "
        f"To lift it for one command, set {LIFT} (an empty PIP_CONSTRAINT lifts nothing: pip ignores "
        f"an empty setting), e.g. `{LIFT} nox -s timeline -- {release} --installer pip`; or install "
        "with uv (`--installer uv`), which reads no constraint file of pip's"
    )
