"""Build the site in every language: ``python -m autograd_notes.site.build.sitebuild [docs] [out]``.

English is built first and runs the examples (once, cached by
sphinx-gallery and by the runner key); every other language reuses what
that build generated (``-D plot_gallery=0``) and myst-nb's cache, so four
languages cost little more than one. Each language goes to ``<out>/<code>/``
and ``<out>/index.html`` sends a visitor to English. Each build is
``sphinx-build -n -W --keep-going`` in its own process; the first failure
stops the whole build with its reason.

A build never half-succeeds: the languages are built in ``<out>.next``
(from scratch; languages not asked for with ``--language`` are kept from
the last build) and only when every one succeeded does it replace ``<out>``. A failed build
leaves ``<out>`` as it was and what it wrote in ``<out>.failed``; the log
names ``<out>`` only once the swap is done. Once all
languages are built, the site-wide files are written: the root
``index.html``, ``404.html``, ``sitemap.xml`` with language alternates and
``robots.txt`` (:mod:`autograd_notes.site.web.sitemap`), and the wheel of the
helper package the examples import, which readers install from
``<site>/packages/`` (:mod:`autograd_notes.site.examples.install`; built from the
project that holds ``docs/``). A whole-site build whose inputs are those of
the last one builds nothing (:mod:`.input_stamp`).
"""

from __future__ import annotations

import argparse
import html
import shutil
import sys
from pathlib import Path
from typing import Any

from ..examples.install import WheelError, publish_wheel
from ..web.sitemap import DEFAULT_SITE_URL, hreflang, write_robots, write_root_not_found, write_sitemap
from .input_stamp import forget_stamp, is_current, stamp_of, write_stamp
from .language_builds import run_language_builds
from .shared_figures import SHARED, share_figures

__all__ = ["build_all", "languages_of", "main", "site_url_of", "swap_in", "write_root_index"]

FLAGS = ("-n", "-W", "--keep-going", "-b", "html")


def _configuration(docs: Path) -> dict[str, Any]:
    """The names ``docs/conf.py`` defines."""
    namespace: dict[str, Any] = {"__file__": str(docs / "conf.py")}
    exec(compile((docs / "conf.py").read_text(encoding="utf-8"), str(docs / "conf.py"), "exec"), namespace)
    return namespace


def _languages(configuration: dict[str, Any]) -> dict[str, str]:
    languages = dict(configuration.get("autograd_notes_languages", {"en": "English"}))
    return {"en": languages.pop("en", "English"), **languages}


def _site_url(configuration: dict[str, Any]) -> str:
    return str(configuration.get("autograd_notes_site_url", DEFAULT_SITE_URL))


def languages_of(docs: Path) -> dict[str, str]:
    """``autograd_notes_languages`` from ``docs/conf.py``, English first."""
    return _languages(_configuration(docs))


def site_url_of(docs: Path) -> str:
    """``autograd_notes_site_url`` from ``docs/conf.py``: where the site is published."""
    return _site_url(_configuration(docs))


def swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` by ``staging``; the old one is removed once the new one is in place.

    If the new one cannot be moved in, the old one is put back before the error propagates.
    """
    previous = out.with_name(out.name + ".previous")
    if previous.exists():
        shutil.rmtree(previous)
    if out.exists():
        out.rename(previous)
    try:
        staging.rename(out)
    except OSError:
        if previous.exists() and not out.exists():
            previous.rename(out)
        raise
    shutil.rmtree(previous, ignore_errors=True)


def write_root_index(out: Path, languages: dict[str, str]) -> None:
    """``out/index.html``: a redirect to English, with a link to each language."""
    links = "\n".join(
        f'    <li><a href="{code}/index.html" hreflang="{hreflang(code)}">{html.escape(name)}</a></li>'
        for code, name in languages.items()
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(
        f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Autograd Notes</title>
  <meta http-equiv="refresh" content="0; url=en/index.html">
  <link rel="canonical" href="en/index.html">
</head>
<body>
  <p>Autograd Notes is available in:</p>
  <ul>
{links}
  </ul>
</body>
</html>
""",
        encoding="utf-8",
    )


LOCK = "build.lock"
"""The lock file beside the output folder: one build of a site at a time."""


def build_all(docs: Path, out: Path, *, extra: list[str] | None = None, only: list[str] | None = None) -> int:
    """Build every language (or ``only`` those) and swap the result in; return 0 or the first failure.

    One build at a time: a second build of the same output folder refuses,
    with one line and status 2, while the first holds the lock (a lock file
    beside it, released when its process ends, even when killed). Under the
    lock, what an interrupted build left is removed first.
    """
    from filelock import FileLock, Timeout

    configuration = _configuration(docs)  # conf.py is run once per build
    languages = _languages(configuration)
    unknown = sorted(set(only or []) - set(languages))
    if unknown:
        print(
            f"autograd_notes: unknown language {', '.join(unknown)}; the site has {' '.join(languages)}",
            file=sys.stderr,
        )
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(out.parent / LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        print(
            f"autograd_notes: another build of {_shown(out)} is running (it holds "
            f"{_shown(out.parent / LOCK)}); wait for it to end, then build again",
            file=sys.stderr,
        )
        return 2
    whole = not only and not extra
    try:
        if whole and is_current(out, docs.parent):
            print(
                f"autograd_notes: nothing changed since the last build ({_shown(stamp_of(out))} holds "
                f"its inputs); the pages are in {_shown(out)}, start at {_shown(out / 'index.html')}",
                flush=True,
            )
            return 0
        forget_stamp(out)
        for leftover in out.parent.glob("languages.*"):  # an interrupted build's scratch folders
            shutil.rmtree(leftover, ignore_errors=True)
        status = _build_all(docs, out, configuration, languages, extra=extra, only=only)
        if status == 0 and whole:
            write_stamp(out, docs.parent)
        return status
    finally:
        lock.release()


def _build_all(
    docs: Path,
    out: Path,
    configuration: dict[str, Any],
    languages: dict[str, str],
    *,
    extra: list[str] | None,
    only: list[str] | None,
) -> int:
    """:func:`build_all` once the lock is held."""
    building = [code for code in languages if not only or code in only]
    doctrees = out.parent / "doctrees"
    staging = out.with_name(out.name + ".next")
    failed = out.with_name(out.name + ".failed")
    for leftover in (staging, failed):
        shutil.rmtree(leftover, ignore_errors=True)
    # Languages built now start empty (no page of a deleted example survives);
    # the others are kept from the last build.
    staging.mkdir(parents=True)
    for code in languages:
        if code not in building and (out / code).is_dir():
            shutil.copytree(out / code, staging / code, symlinks=True)
    if len(building) < len(languages) and (out / SHARED).is_dir():
        shutil.copytree(out / SHARED, staging / SHARED)  # the kept languages' figures
    commands = {}
    for code in building:
        # staging: Sphinx does not close with "The HTML pages are in <out>.next/<code>"
        options = ["-D", f"language={code}", "-D", "autograd_notes_staging=1"]
        if code != "en":
            options += ["-D", "plot_gallery=0"]  # reuse the English build's executed examples
        command = [sys.executable, "-m", "sphinx", *FLAGS, *options, *(extra or [])]
        commands[code] = [*command, "-d", str(doctrees / code), str(docs), str(staging / code)]
    failure = run_language_builds(commands, languages, out.parent)
    if failure is not None:
        code, status = failure
        # Sphinx keeps what it read even when reading warned: the next build
        # would not read those pages again, and would not warn again
        shutil.rmtree(doctrees / code, ignore_errors=True)
        staging.rename(failed)
        print(
            f"autograd_notes: the {code} build failed (status {status}); the reason is above.\n"
            f"autograd_notes: {_shown(out)} is unchanged (the last good build); "
            f"what this build wrote is in {_shown(failed)}",
            file=sys.stderr,
        )
        return status
    # myst-nb writes its executed notebooks beside the output folder: not for publishing. Their
    # images are gone by the next build, and a notebook page depends on them: Sphinx reads it again
    # every build, which writes them again into the new staging folder (its execution is cached).
    # Dropping that dependency left a page whose images no build wrote.
    shutil.rmtree(staging / "jupyter_execute", ignore_errors=True)
    built = {code: name for code, name in languages.items() if (staging / code).is_dir()}
    shared, saved = share_figures(staging, list(built))
    print(f"autograd_notes: {shared} figures stored once for every language ({saved / 2**20:.1f} MiB saved)")
    site_url = _site_url(configuration)
    write_root_index(staging, built)
    if not write_root_not_found(staging, next(iter(built))):
        print("autograd_notes: no 404.html to copy to the site's root", file=sys.stderr)
    write_sitemap(staging, site_url, list(built))
    write_robots(staging, site_url)
    try:
        wheel = publish_wheel(docs.parent, staging)
    except WheelError as error:
        staging.rename(failed)
        print(f"autograd_notes: {error}\nautograd_notes: {_shown(out)} is unchanged", file=sys.stderr)
        return 1
    print(f"autograd_notes: the site serves {wheel.relative_to(staging).as_posix()}", flush=True)
    swap_in(staging, out)
    folders = ", ".join(_shown(out / code) for code in built)
    print(
        f"autograd_notes: the HTML pages are in {folders}; start at {_shown(out / 'index.html')}", flush=True
    )
    return 0


def _shown(path: Path) -> str:
    """``path`` relative to the working folder when it is inside it (messages name no home folder)."""
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(
        prog="python -m autograd_notes.site.build.sitebuild", description=__doc__
    )
    parser.add_argument("docs", nargs="?", type=Path, default=Path("docs"))
    parser.add_argument("out", nargs="?", type=Path, default=Path("build/html"))
    parser.add_argument("--language", action="append", help="build only this language (repeatable)")
    parser.add_argument("--list-languages", action="store_true", help="print the language codes and stop")
    args, extra = parser.parse_known_args(argv)
    if args.list_languages:
        print(" ".join(languages_of(args.docs.resolve())))
        return 0
    return build_all(args.docs.resolve(), args.out.resolve(), extra=extra, only=args.language)


if __name__ == "__main__":
    sys.exit(main())
