"""Release records: what every example did on each PyTorch release, for the timeline.

Layout: ``records/releases/<version>/cpu/<section>/<example>.json``, the
format of the runner records (:mod:`.record`), written by ``python -m
autograd_notes capture --release`` under the release being recorded. The
pinned release has none: its records are the runner records
(``records/cpu``), what the site documents today.

The default release list, ``[tool.autograd-notes] timeline-releases`` in
``pyproject.toml`` (:func:`default_releases`), is what ``nox -s timeline``
runs and the CI workflow's matrix (``.github/workflows/timeline.yml``; tests
keep them equal): the latest patch of every minor release from the oldest
the package declares (``torch>=2.4``) to the newest the registry serves. (A
machine whose pip configuration caps torch below it is told so, with how to
lift the cap for one command: :mod:`.pip_caps`.)
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from ..format.record_format import Record

__all__ = [
    "PIN_FILE",
    "RELEASES",
    "default_releases",
    "is_release",
    "latest_patches",
    "load_releases",
    "not_recorded",
    "pinned_torch",
    "release_of",
    "release_records",
    "unknown_releases",
    "version_key",
]

RELEASES = "releases"
"""The folder of the release records inside the records folder."""

PIN_FILE = Path("constraints") / "torch.txt"
"""The pin of the PyTorch of CI and default builds, in the project folder."""


def pinned_torch(root: Path) -> str | None:
    """The PyTorch version the project pins (``torch==X`` in constraints/torch.txt), if it pins one."""
    path = root / PIN_FILE
    if not path.exists():
        return None
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, version = line.split("#")[0].strip().partition("==")
        if name.strip() == "torch" and version.strip():
            return version.strip()
    return None


def default_releases(pyproject: Path) -> list[str]:
    """``[tool.autograd-notes] timeline-releases`` of ``pyproject``: the releases the timeline covers."""
    import tomllib  # here: Python 3.10 has none, and capturing needs no pyproject.toml read

    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    releases = data.get("tool", {}).get("autograd-notes", {}).get("timeline-releases")
    if not isinstance(releases, list) or not all(isinstance(r, str) for r in releases):
        raise ValueError(f"{pyproject}: [tool.autograd-notes] timeline-releases must be a list of versions")
    return releases


def release_of(torch_version: str) -> str:
    """The release of a PyTorch version string: ``2.4.1+cu121`` -> ``2.4.1`` (the build variant dropped)."""
    return torch_version.partition("+")[0]


def _parsed(version: str) -> Version | None:
    try:
        return Version(version)
    except InvalidVersion:
        return None


def is_release(version: str) -> bool:
    """Whether ``version`` is a final release as PyTorch writes it: ``2.4.1``.

    Not a pre-release or development build (``2.5.0rc1``, ``2.13.0a0``), nor a
    build variant (``2.4.1+cu121``: :func:`release_of` it first), nor another
    spelling of a release (``v2.4.1``, ``2.4``).
    """
    parsed = _parsed(version)
    return (
        parsed is not None
        and str(parsed) == version
        and len(parsed.release) == 3
        and not (parsed.is_prerelease or parsed.is_postrelease or parsed.local)
    )


def version_key(version: str) -> tuple[int, int, int]:
    """``"2.10.0"`` -> ``(2, 10, 0)``; :class:`ValueError` naming the string if it is no release.

    A build variant or development build has the key of its release
    (``2.13.0a0+git1234`` and ``2.15.0.dev20260101+cpu`` sort as ``2.13.0`` and ``2.15.0``).
    """
    parsed = _parsed(version)
    if parsed is None or parsed.epoch or len(parsed.release) < 3:
        raise ValueError(f"{version!r} is not a PyTorch release (major.minor.patch, e.g. 2.4.1)")
    major, minor, patch = parsed.release[:3]
    return major, minor, patch


def latest_patches(versions: Iterable[str], floor: str, newest: str) -> list[str]:
    """The latest patch of every minor release from ``floor``'s minor to ``newest``, oldest first.

    Local builds (``2.13.0+cpu``) count as their release; pre-releases and
    development builds (``2.5.0rc1``, ``2.13.0a0``) are left out.
    """
    best: dict[tuple[int, int], tuple[int, int, int]] = {}
    low, high = version_key(floor)[:2], version_key(newest)
    for version in versions:
        if not is_release(release_of(version)):
            continue
        key = version_key(version)
        if low <= key[:2] and key <= high and key > best.get(key[:2], (-1, -1, -1)):
            best[key[:2]] = key
    return [".".join(map(str, best[minor])) for minor in sorted(best)]


def unknown_releases(requested: Iterable[str], installable: list[str], floor: str) -> str | None:
    """Why some requested releases cannot be recorded, listing those that can; ``None`` if all can.

    ``installable`` is what the registry offers (``pip index versions torch``); an
    empty list means it could not be asked, and nothing is refused.
    """
    if not installable:
        return None
    offered = sorted(
        {release_of(v) for v in installable if is_release(release_of(v))},
        key=version_key,
    )
    unknown = [r for r in requested if r not in offered or version_key(r) < version_key(floor)]
    if not unknown:
        return None
    usable = [v for v in offered if version_key(v) >= version_key(floor)]
    return (
        f"torch {', '.join(unknown)}: not a release of this machine's registry at or above the floor the "
        f"package declares; installable from {floor} on: {', '.join(usable)}"
    )


def not_recorded(failed: list[str], tried: list[str]) -> str:
    """What ``nox -s timeline`` ends with when some releases could not be recorded.

    >>> not_recorded(["2.15.0"], ["2.14.1", "2.15.0"])
    'torch 2.15.0: not recorded (see above); torch 2.14.1 was'
    >>> not_recorded(["2.15.0"], ["2.15.0"])
    'torch 2.15.0: not recorded (see above); no release was'
    """
    others = [release for release in tried if release not in failed]
    if not others:
        done = "no release was"
    else:
        done = f"torch {', '.join(others)} {'was' if len(others) == 1 else 'were'}"
    return f"torch {', '.join(failed)}: not recorded (see above); {done}"


def release_records(records: Path, release: str) -> Path:
    """The records folder of one release: ``records/releases/<release>``."""
    return records / RELEASES / release_of(release)


def load_releases(records: Path, runner: str = "cpu") -> dict[str, dict[str, Record]]:
    """Every release's records on ``runner``: release -> example (``section/plot_x.py``) -> record.

    Releases are in version order; folders that are not releases are ignored.
    """
    from ..format.record import load_record  # here: noxfile.py loads this module without PyTorch

    found: dict[str, dict[str, Record]] = {}
    folder = records / RELEASES
    releases = [p for p in folder.iterdir() if p.is_dir() and is_release(p.name)] if folder.exists() else []
    for release in sorted(releases, key=lambda p: version_key(p.name)):
        base = release / runner
        for path in sorted(base.rglob("*.json")):
            record = load_record(path)
            if record is not None:
                example = path.relative_to(base).with_suffix(".py").as_posix()
                found.setdefault(release.name, {})[example] = record
    return found
