"""Fresh environments as a reader's machine or a bare GPU machine has them, sharing one PyTorch install.

Installing PyTorch into a new environment takes most of a minute here. The
reader test (``tests/site/test_reader.py``: PyTorch and Jupyter's kernel)
and the GPU rehearsal (``tests/records/test_rehearsal.py``: PyTorch, NumPy
and matplotlib) each need a fresh environment with it; they share one
install (the ``torch_site`` fixture, once per test run): each environment
is a new virtual environment whose ``.pth`` file adds the shared
site-packages, holding PyTorch (the pinned release) and its requirements
only, and each installs the rest into its own site-packages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
from pathlib import Path

__all__ = ["NOT_OURS", "bare_environment", "python_of", "site_packages", "torch_only", "venv_on"]

ROOT = Path(__file__).resolve().parents[1]
NOT_OURS = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")
"""What would let a fresh environment's Python see this project or the test environment."""


def bare_environment() -> dict[str, str]:
    """This process's environment, less what points at the test environment or sets a runner."""
    return {k: v for k, v in os.environ.items() if k not in NOT_OURS and not k.startswith("AUTOGRAD_NOTES_")}


def site_packages(python: Path) -> Path:
    """The site-packages folder of the environment of ``python``."""
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=bare_environment(),
    )
    return Path(found.stdout.strip())


def _create(folder: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(folder)
    return folder / "bin" / "python"


def torch_only(folder: Path) -> Path:
    """A new environment with the pinned PyTorch (``constraints/torch.txt``); returns its site-packages."""
    python = _create(folder)
    subprocess.run(
        [
            str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "-c", str(ROOT / "constraints" / "torch.txt"), "torch",
        ],
        check=True,
        timeout=900,
        env=bare_environment(),
    )  # fmt: skip
    return site_packages(python)


def venv_on(shared: Path, folder: Path) -> Path:
    """A new environment that also sees the packages of ``shared`` (a site-packages); returns its python."""
    python = _create(folder)
    (site_packages(python) / "_shared_torch.pth").write_text(f"{shared}\n", encoding="utf-8")
    return python


def python_of(version: str) -> str:
    """An interpreter of ``version`` (``3.10``): on PATH, else one pyenv installed (its shims may not run)."""
    found = shutil.which(f"python{version}")
    if found and subprocess.run([found, "-c", ""], capture_output=True, check=False).returncode == 0:
        return found
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    installed = sorted(root.glob(f"versions/{version}.*/bin/python{version}"))
    assert installed, f"no Python {version} here: the package supports it, and its downloads are tested on it"
    return str(installed[-1])
