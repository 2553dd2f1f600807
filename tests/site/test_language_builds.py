"""run_language_builds: English first, the translations side by side once English has read its pages."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograd_notes.site.build.build_sync import GALLERY_LOCK, GALLERY_MARKER, NOTEBOOKS_WAIT, READ_MARKER
from autograd_notes.site.build.language_builds import run_language_builds

LANGUAGES = {"en": "English", "ru": "Русский", "zh_CN": "简体中文", "pt_BR": "Português (Brasil)"}


def script(body: str) -> list[str]:
    return [sys.executable, "-c", "import os, sys, time, pathlib\n" + body]


def english(journal: Path, *, status: int = 0, read_after: float = 0.5, write_for: float = 1.0) -> list[str]:
    """A fake English build: runs its examples for a while, writes the markers, goes on for a while."""
    return script(
        f"time.sleep({read_after})\n"
        f"open({str(journal)!r}, 'a').write(f'en read {{time.time()}}\\n')\n"
        f"pathlib.Path(os.environ[{GALLERY_MARKER!r}]).write_text('ready')\n"
        f"pathlib.Path(os.environ[{READ_MARKER!r}]).write_text('ready')\n"
        f"time.sleep({write_for})\n"
        f"open({str(journal)!r}, 'a').write(f'en done {{time.time()}}\\n')\n"
        f"print('english output')\n"
        f"sys.exit({status})\n"
    )


def translated(code: str, journal: Path, *, status: int = 0, seconds: float = 0.5) -> list[str]:
    return script(
        f"open({str(journal)!r}, 'a').write(f'{code} start {{time.time()}}\\n')\n"
        f"print('{code} line 1', flush=True)\n"
        f"time.sleep({seconds})\n"
        f"print('{code} line 2')\n"
        f"open({str(journal)!r}, 'a').write(f'{code} done {{time.time()}}\\n')\n"
        f"sys.exit({status})\n"
    )


def events(journal: Path) -> dict[str, float]:
    found = {}
    for line in journal.read_text().splitlines():
        code, what, when = line.split()
        found[f"{code} {what}"] = float(when)
    return found


def test_translations_start_once_english_has_read_and_run_side_by_side(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal"
    commands = {
        "en": english(journal),
        **{code: translated(code, journal, seconds=1.0) for code in ("ru", "zh_CN")},
    }
    start = time.perf_counter()
    assert run_language_builds(commands, LANGUAGES, tmp_path / "scratch") is None
    elapsed = time.perf_counter() - start
    seen = events(journal)
    assert seen["ru start"] >= seen["en read"]
    assert seen["zh_CN start"] >= seen["en read"]
    assert seen["ru start"] < seen["en done"]  # while English writes
    assert seen["zh_CN start"] < seen["ru done"]  # side by side
    assert elapsed < 0.5 + 1.0 + 1.0 + 1.0  # less than English then two translations one after the other
    output = capfd.readouterr().out
    # each translated build's output whole, in language order, after its announcement
    assert output.index("building ru") < output.index("ru line 1") < output.index("ru line 2")
    assert output.index("ru line 2") < output.index("building zh_CN") < output.index("zh_CN line 1")
    assert not (tmp_path / "scratch").exists() or not any((tmp_path / "scratch").iterdir())


def test_the_first_failure_in_language_order_is_returned_and_stops_the_rest(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal"
    commands = {
        "en": english(journal, write_for=0.1),
        "ru": translated("ru", journal, status=3, seconds=0.2),
        "zh_CN": translated("zh_CN", journal, seconds=30),
    }
    start = time.perf_counter()
    assert run_language_builds(commands, LANGUAGES, tmp_path / "scratch") == ("ru", 3)
    assert time.perf_counter() - start < 20  # zh_CN was stopped, not waited for
    assert "zh_CN done" not in events(journal)
    assert "ru line 2" in capfd.readouterr().out  # the failing build's reason is shown


def test_an_english_failure_stops_the_translations(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    commands = {"en": english(journal, status=2, write_for=0.3), "ru": translated("ru", journal, seconds=30)}
    start = time.perf_counter()
    assert run_language_builds(commands, LANGUAGES, tmp_path / "scratch") == ("en", 2)
    assert time.perf_counter() - start < 20
    assert "ru done" not in events(journal)


def test_english_failing_before_it_has_read_starts_no_translation(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    commands = {"en": script("sys.exit(4)"), "ru": translated("ru", journal)}
    assert run_language_builds(commands, LANGUAGES, tmp_path / "scratch") == ("en", 4)
    assert not journal.exists()


def test_translations_alone_run_without_waiting(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    commands = {"ru": translated("ru", journal), "pt_BR": translated("pt_BR", journal)}
    assert run_language_builds(commands, LANGUAGES, tmp_path / "scratch") is None
    assert set(events(journal)) == {"ru start", "ru done", "pt_BR start", "pt_BR done"}


def test_english_reads_its_notebooks_first_and_then_lets_the_translations_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from autograd_notes.site.build import build_sync

    (tmp_path / "a.md").write_text("# A page\n", encoding="utf-8")
    (tmp_path / "nb.md").write_text("---\nfile_format: mystnb\n---\n# A notebook\n", encoding="utf-8")
    (tmp_path / "z.ipynb").write_text("{}", encoding="utf-8")
    env = SimpleNamespace(
        doc2path=lambda name: tmp_path / ({"z": "z.ipynb"}.get(name) or f"{name}.md"), docname=""
    )
    app = SimpleNamespace(env=env)
    marker = tmp_path / "marker"
    monkeypatch.setenv(READ_MARKER, str(marker))
    docnames = ["a", "nb", "z"]
    build_sync._order_notebooks(app, env, docnames)  # type: ignore[arg-type]
    assert docnames == ["nb", "z", "a"]
    for name in ["nb", "z"]:
        assert not marker.exists()
        env.docname = name
        build_sync._notebook_read(app, None)  # type: ignore[arg-type]
    assert marker.exists()  # before "a" is read


def test_without_a_notebook_to_read_the_marker_is_written_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from autograd_notes.site.build import build_sync

    (tmp_path / "a.md").write_text("# A page\n", encoding="utf-8")
    env = SimpleNamespace(doc2path=lambda name: tmp_path / f"{name}.md", docname="")
    marker = tmp_path / "marker"
    monkeypatch.setenv(READ_MARKER, str(marker))
    build_sync._order_notebooks(SimpleNamespace(env=env), env, ["a"])  # type: ignore[arg-type]
    assert marker.exists()


def test_a_translation_reads_its_notebooks_last_and_waits_for_english_to_have_run_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    from types import SimpleNamespace

    from autograd_notes.site.build import build_sync

    (tmp_path / "a.md").write_text("# A page\n", encoding="utf-8")
    (tmp_path / "nb.md").write_text("---\nfile_format: mystnb\n---\n# A notebook\n", encoding="utf-8")
    env = SimpleNamespace(doc2path=lambda name: tmp_path / f"{name}.md", docname="")
    app = SimpleNamespace(env=env)
    marker = tmp_path / "english-notebooks"
    monkeypatch.delenv(READ_MARKER, raising=False)
    monkeypatch.setenv(NOTEBOOKS_WAIT, str(marker))
    docnames = ["a", "nb"]
    build_sync._order_notebooks(app, env, docnames)  # type: ignore[arg-type]
    assert docnames == ["a", "nb"]
    docnames = ["nb", "a"]
    build_sync._order_notebooks(app, env, docnames)  # type: ignore[arg-type]
    assert docnames == ["a", "nb"]
    start = time.monotonic()
    build_sync._wait_for_english_notebooks(app, "a", [""])  # type: ignore[arg-type]
    assert time.monotonic() - start < 0.5  # not a notebook: no wait
    threading.Timer(0.6, lambda: marker.write_text("ready")).start()
    build_sync._wait_for_english_notebooks(app, "nb", [""])  # type: ignore[arg-type]
    assert time.monotonic() - start >= 0.5
    assert marker.exists()


def test_a_translation_holds_the_gallery_lock_from_before_sphinx_gallery_starts_until_it_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from autograd_notes.site.build import build_sync

    lock = tmp_path / "gallery.lock"
    monkeypatch.setenv(GALLERY_LOCK, str(lock))
    app = SimpleNamespace()
    other_build = [
        sys.executable,
        "-c",
        f"import filelock; filelock.FileLock({str(lock)!r}).acquire(timeout=0.2)",
    ]
    build_sync._lock_gallery(app)  # type: ignore[arg-type]
    try:
        waited = subprocess.run(other_build, capture_output=True, text=True, check=False)
        assert waited.returncode != 0  # another build waits its turn
        assert "Timeout" in waited.stderr
    finally:
        build_sync._unlock_gallery(app)  # type: ignore[arg-type]
    assert subprocess.run(other_build, check=False).returncode == 0  # and then takes it
