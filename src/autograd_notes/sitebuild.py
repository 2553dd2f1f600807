"""Build the site in every language: ``python -m autograd_notes.sitebuild [docs] [out]``.

English is built first and runs the examples (once, cached by
sphinx-gallery and by the runner key); every other language reuses what
that build generated (``-D plot_gallery=0``) and myst-nb's cache, so four
languages cost little more than one. Each language goes to ``<out>/<code>/``
and ``<out>/index.html`` sends a visitor to English. Each build is
``sphinx-build -n -W --keep-going`` in its own process; the first failure
stops the whole build with its reason.
"""

from __future__ import annotations

import argparse
import html
import subprocess
import sys
from pathlib import Path

__all__ = ["build_all", "languages_of", "main", "write_root_index"]

FLAGS = ("-n", "-W", "--keep-going", "-b", "html")


def languages_of(docs: Path) -> dict[str, str]:
    """``autograd_notes_languages`` from ``docs/conf.py``, English first."""
    namespace: dict[str, object] = {"__file__": str(docs / "conf.py")}
    exec(compile((docs / "conf.py").read_text(encoding="utf-8"), str(docs / "conf.py"), "exec"), namespace)
    languages = dict(namespace.get("autograd_notes_languages", {"en": "English"}))  # type: ignore[call-overload]
    return {"en": languages.pop("en", "English"), **languages}


def write_root_index(out: Path, languages: dict[str, str]) -> None:
    """``out/index.html``: a redirect to English, with a link to each language."""
    links = "\n".join(
        f'    <li><a href="{code}/index.html" hreflang="{code.replace("_", "-")}">'
        f"{html.escape(name)}</a></li>"
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


def build_all(docs: Path, out: Path, *, extra: list[str] | None = None, only: list[str] | None = None) -> int:
    """Build every language (or ``only`` those); return the first non-zero status, else 0."""
    languages = languages_of(docs)
    doctrees = out.parent / "doctrees"
    for code in languages:
        if only and code not in only:
            continue
        options = ["-D", f"language={code}"]
        if code != "en":
            options += ["-D", "plot_gallery=0"]  # reuse the English build's executed examples
        command = [sys.executable, "-m", "sphinx", *FLAGS, *options, *(extra or [])]
        command += ["-d", str(doctrees / code), str(docs), str(out / code)]
        print(f"autograd_notes: building {code} ({languages[code]})", flush=True)
        status = subprocess.run(command, check=False).returncode
        if status:
            print(f"autograd_notes: the {code} build failed (status {status})", file=sys.stderr)
            return status
    write_root_index(out, languages)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m autograd_notes.sitebuild", description=__doc__)
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
