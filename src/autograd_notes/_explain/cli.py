"""``python -m autograd_notes explain``: the pages of the site that explain an error, in a terminal.

It reads an error message or a whole traceback from its arguments, from a
file (``--file``) or from standard input, and prints the pages that explain
it, best first: the title in the reader's language (``--language``, else
the locale's), the hosted page's address at the cell that raises it, and
the sentence that says what the page shows. Exit status 0 when a page
explains it, 1 when none does, 2 on a usage error. Offline: it reads the
index the package ships (:mod:`.index`). PyTorch is not imported.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from .._reader_words import words
from .index import LANGUAGES, ErrorIndex, errors_page, explain, reader_language, shipped_index

__all__ = ["explain_parser", "main", "run_explain"]


def explain_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``explain`` to the command line's subcommands."""
    parser = commands.add_parser(
        "explain",
        help="print the pages of the site that explain an error message or traceback",
        description="Print the pages of the site that explain an error: give the message or the whole "
        "traceback as arguments, with --file, or on standard input. Exit status 0 when a page explains "
        "it, 1 when none does.",
    )
    parser.add_argument("message", nargs="*", help="the error message (default: read standard input)")
    parser.add_argument("--file", type=Path, help="read the message or traceback from this file")
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the language of the titles and addresses (default: from the locale, else en)",
    )


def _read(args: argparse.Namespace, stdin: TextIO) -> str:
    if args.file is not None:
        return Path(args.file).read_text(encoding="utf-8", errors="replace")
    if args.message:
        return " ".join(args.message)
    return stdin.read()


def run_explain(
    args: argparse.Namespace,
    stdin: TextIO = sys.stdin,
    out: TextIO = sys.stdout,
    index: ErrorIndex | None = None,
) -> int:
    """``explain``: print the pages that explain the error; the exit status."""
    try:
        text = _read(args, stdin)
    except OSError as error:
        print(f"explain: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    index = shipped_index() if index is None else index
    if index is None:
        print("explain: this installation of autograd_notes has no error index", file=sys.stderr)
        return 2
    language = args.language or reader_language()
    reader = words(language)
    pages = explain(text, language, index)
    if not pages:
        print(reader["explain_none"].format(page=errors_page(index, language)), file=out)
        return 1
    print(reader["explain_found"], file=out)
    said = ""
    for number, page in enumerate(pages, 1):
        print(f"{number}. {page.title}\n   {page.url}\n   {page.why}", file=out)
        if page.message != said:  # pages that raise the same message: it is said once
            print("   " + reader["explain_matched"].format(message=page.message), file=out)
            said = page.message
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m autograd_notes explain ...`` on its own: the command without the records' command line."""
    parser = argparse.ArgumentParser(prog="python -m autograd_notes")
    explain_parser(parser.add_subparsers(dest="command", required=True))
    return run_explain(parser.parse_args(["explain", *(sys.argv[2:] if argv is None else argv)]))
