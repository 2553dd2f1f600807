"""The build's caches keyed by what the pages depend on: the runner, the records, the site's code.

The config value ``autograd_notes_runner`` is set to
:attr:`~autograd_notes.RunnerInfo.key` (PyTorch version and build, device,
Python) and rebuilds the environment when it changes, so executed MyST
notebooks run again; myst-nb's cache is kept per runner key
(``nb_execution_cache_path``/<key>), so every language of a build reuses one
execution, and a new PyTorch or device runs them again. The records folder is
``autograd_notes_records`` (default ``../records`` from the configuration
folder). Which record files there are (``autograd_notes_records_digest``, a
digest of their paths) rebuilds the environment when one appears or goes: the
runners and releases every page shows change. A record's contents
(``autograd_notes_records_content``, a digest of every file) only key the
build's reading of them: a page that shows a record depends on its file
(:mod:`..pages.record_store`), and a changed record re-reads those pages alone.
A digest of the site layer's code (``autograd_notes_site_code``) rebuilds the
environment when what the extension inserts changes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from ..._device import runner_info

__all__ = ["files_digest", "setup"]


def _records_dir(app: Sphinx, config: Config) -> Path:
    return Path(app.confdir, config.autograd_notes_records or "../records").resolve()


def files_digest(folder: Path, pattern: str, *, contents: bool = True) -> str:
    """A digest of the path (and contents) of every file under ``folder`` matching ``pattern``.

    "" when ``folder`` does not exist: e.g. the records (``*.json``), the site layer's code (``*.py``).
    """
    digest = hashlib.sha256()
    for path in sorted(folder.rglob(pattern)):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        if contents:
            digest.update(path.read_bytes())
    return digest.hexdigest() if folder.exists() else ""


def _set_runner_key(app: Sphinx, config: Config) -> None:
    config.autograd_notes_runner = runner_info().key
    if getattr(config, "nb_execution_cache_path", ""):
        key = hashlib.sha256(config.autograd_notes_runner.encode()).hexdigest()[:16]
        config.nb_execution_cache_path = str(Path(app.confdir, config.nb_execution_cache_path, key).resolve())
    config.autograd_notes_records = str(_records_dir(app, config))
    records = Path(config.autograd_notes_records)
    config.autograd_notes_records_digest = files_digest(records, "*.json", contents=False)
    config.autograd_notes_records_content = files_digest(records, "*.json")
    # what this extension inserts into pages changes with its code: re-read them then
    config.autograd_notes_site_code = files_digest(Path(__file__).parents[1], "*.py")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the config values and set them when the configuration is read."""
    app.add_config_value("autograd_notes_runner", "", "env", types=frozenset({str}))
    app.add_config_value("autograd_notes_records", "", "env", types=frozenset({str}))
    app.add_config_value("autograd_notes_records_digest", "", "env", types=frozenset({str}))
    # no rebuild: the pages that show a record depend on its file (record_store.note_records)
    app.add_config_value("autograd_notes_records_content", "", "", types=frozenset({str}))
    app.add_config_value("autograd_notes_site_code", "", "env", types=frozenset({str}))
    app.connect("config-inited", _set_runner_key, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
