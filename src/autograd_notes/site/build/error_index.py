"""Write the error index the package ships (``_explain/error_index.json``) from the records.

``python -m autograd_notes explain`` and the error hooks
(:mod:`autograd_notes._explain.index`) run on a reader's machine, with no site
and no records: they read this file. It holds what the site's "paste your
error" box ranks (:func:`autograd_notes.site.pages.error_box.search_data`):
every message any record documents, normalised, with its token weights, and
where each is explained; and, for each page, its title and first sentence in
every language, from the gallery script and its catalogs.

``python -m autograd_notes.site.build.error_index`` writes it; ``--check``
only says whether the committed file is up to date (exit status 1 if not;
``nox -s lint`` and a test run it).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

from ..._explain.index import LANGUAGES, ErrorIndex, IndexMessage, IndexPage, IndexPlace
from ..._explain.match import Message, normalise, token_weights, unknown_weight
from ...records.format.script_cells import split_cells, text_end
from ...records.history.notes import site_address
from ...records.history.runners import load_runner_records
from ..errors.families import recorded_messages
from ..errors.subjects import is_about, page_quotes
from ..i18n.catalogs import translations
from ..pages.error_box import shown_message

__all__ = [
    "INDEX_FILE",
    "build_index",
    "cell_messages",
    "cell_of",
    "cell_quotes",
    "code_cell_lines",
    "main",
    "render_index",
]

INDEX_FILE = Path("src") / "autograd_notes" / "_explain" / "error_index.json"
LOCALE = Path("docs") / "locale"
GALLERY_PAGES = "examples"
"""The folder of the site where the gallery's pages are."""

_TITLE_UNDERLINE = re.compile(r"^(=+|-+|~+|\*+)$")
# the end of a sentence: its stop, then a space before a capital or an opening quote (not "e.g. x")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZА-ЯЁ«“\"(`])|(?<=[。！？])")
_ROLE = re.compile(r":[\w:]+:`(?:([^`<]*?)\s*<[^`>]*>|~?([^`]*))`")
_LITERAL = re.compile(r"``(.+?)``")
_EMPHASIS = re.compile(r"\*\*?([^*]+)\*\*?")
_MATH = re.compile(r":math:`([^`]*)`")


def code_cell_lines(source: str) -> list[int]:
    """The first line of each code cell of a gallery script, as its page numbers them (from 1).

    A cell's code is what follows its text (:func:`text_end`); a cell of text
    alone has no code block on the page. The part before the first marker
    holds the docstring: its code, if any, is what follows the docstring.
    """
    lines = source.splitlines()
    firsts = []
    for index, cell in enumerate(split_cells(source)):
        start = cell.first - 1
        if index == 0:
            body = ast.parse(source).body
            docstring = body[0] if body and isinstance(body[0], ast.Expr) else None
            code_from = docstring.end_lineno if docstring and docstring.end_lineno else 0
        else:
            code_from = text_end(lines, start)
        code = [line for line in lines[code_from : cell.last] if line.strip()]
        if code:
            firsts.append(cell.first)
    return firsts


def cell_of(firsts: list[int], line: int) -> int:
    """The number of the code cell that holds ``line``, given each code cell's first line."""
    return max(1, sum(first <= line for first in firsts))


def cell_messages(root: Path) -> list[Message]:
    """Every message ``root``'s records hold, with the cells of each example page that raises it.

    What the box and ``explain`` rank, as :func:`build_index` writes it (one message per text; pages
    ``examples/<section>/plot_x``; cells, not lines), for the tests and the benchmark that measure the
    ranking on the committed records.
    """
    gallery = root / "gallery"
    sources = {
        path.relative_to(gallery).as_posix(): path.read_text(encoding="utf-8")
        for path in gallery.glob("*/plot_*.py")
    }
    firsts = {example: code_cell_lines(source) for example, source in sources.items()}
    quotes = {example: page_quotes(source) for example, source in sources.items()}
    messages = []
    for text, by_example in recorded_messages(load_runner_records(root / "records")).items():
        ours = {example: lines for example, lines in by_example.items() if example in firsts}
        messages.append(
            Message(
                normalise(text),
                {
                    _page_name(example): sorted({cell_of(firsts[example], line) for line in lines})
                    for example, lines in ours.items()
                },
                frozenset(_page_name(example) for example in ours if is_about(quotes[example], text)),
            )
        )
    return messages


def cell_quotes(root: Path) -> dict[str, tuple[str, ...]]:
    """The messages each example page's questions quote (:mod:`..errors.subjects`).

    Pages are named as :func:`cell_messages` names them.
    """
    gallery = root / "gallery"
    return {
        _page_name(path.relative_to(gallery).as_posix()): page_quotes(path.read_text(encoding="utf-8"))
        for path in sorted(gallery.glob("*/plot_*.py"))
    }


def _page_name(example: str) -> str:
    """How the matcher names an example's page: ``examples/<section>/plot_x``."""
    return f"{GALLERY_PAGES}/{example.removesuffix('.py')}"


def _plain(text: str) -> str:
    """Text in reST markup as a terminal shows it: literals, roles and emphasis as their words."""
    text = _MATH.sub(r"\1", text)
    text = _ROLE.sub(lambda found: found.group(1) or found.group(2).split(".")[-1], text)
    text = _LITERAL.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    return " ".join(text.replace("\\ ", "").split())


def _first_sentence(paragraph: str) -> str:
    return _SENTENCE_END.split(_plain(paragraph), maxsplit=1)[0].strip()


def _title_and_opening(source: str) -> tuple[str, str]:
    """A gallery script's title and the first paragraph after it, as written (reST)."""
    docstring = ast.get_docstring(ast.parse(source), clean=True) or ""
    lines = docstring.splitlines()
    for index in range(len(lines) - 1):
        if lines[index].strip() and _TITLE_UNDERLINE.match(lines[index + 1].strip()):
            rest = lines[index + 2 :]
            while rest and not rest[0].strip():
                rest = rest[1:]
            paragraph = []
            for line in rest:
                if not line.strip():
                    break
                paragraph.append(line.strip())
            return lines[index].strip(), " ".join(paragraph)
    raise ValueError("no title in the docstring")


def _page(root: Path, example: str, source: str) -> IndexPage:
    """An example's page, from its script's ``source``.

    Its address under a language's folder, its title and first sentence in each, the messages its
    questions quote.
    """
    try:
        title, opening = _title_and_opening(source)
    except (SyntaxError, ValueError) as error:
        raise SystemExit(f"{root / 'gallery' / example}: {error}") from error
    docname = f"{GALLERY_PAGES}/{Path(example).with_suffix('').as_posix()}"
    titles, why = {"en": _plain(title)}, {"en": _first_sentence(opening)}
    for language in LANGUAGES[1:]:
        catalog = translations(root / LOCALE / language / "LC_MESSAGES" / f"{docname}.po")
        titles[language] = _plain(catalog.get(title, title))
        why[language] = _first_sentence(catalog.get(" ".join(opening.split()), opening))
    quotes = list(page_quotes(source))
    return IndexPage(example=example, path=f"{docname}.html", titles=titles, why=why, quotes=quotes)


def build_index(root: Path) -> ErrorIndex:
    """The index of ``root``'s records and gallery (see the module's docstring)."""
    gallery = root / "gallery"
    examples = {p.relative_to(gallery).as_posix() for p in gallery.glob("*/plot_*.py")}
    runs = {example: r for example, r in load_runner_records(root / "records").items() if example in examples}
    pages: list[IndexPage] = []
    numbers: dict[str, int] = {}
    firsts: dict[str, list[int]] = {}
    messages: list[IndexMessage] = []
    forms = []
    for text, by_example in recorded_messages(runs).items():
        places: list[IndexPlace] = []
        for example, lines in by_example.items():
            if example not in numbers:
                numbers[example] = len(pages)
                source = (gallery / example).read_text(encoding="utf-8")
                pages.append(_page(root, example, source))
                firsts[example] = code_cell_lines(source)
            cells = sorted({cell_of(firsts[example], line) for line in lines})
            about = is_about(pages[numbers[example]]["quotes"], text)
            places.append(IndexPlace(page=numbers[example], cells=cells, about=about))
        normalised = normalise(text)
        forms.append(normalised)
        messages.append(
            IndexMessage(
                text=shown_message(text),
                type=normalised.type,
                tokens=list(normalised.tokens),
                details=list(normalised.details),
                places=places,
            )
        )
    return ErrorIndex(
        site=site_address(root),
        unknown=unknown_weight(len(messages)),
        weights=token_weights(forms),
        pages=pages,
        messages=messages,
    )


def render_index(index: ErrorIndex) -> str:
    """The index as the package holds it: compact JSON, its keys sorted."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the index (or with ``--check``, compare it); the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m autograd_notes.site.build.error_index", description=__doc__
    )
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: here)")
    args = parser.parse_args(argv)
    text = render_index(build_index(args.root))
    path = args.root / INDEX_FILE
    if args.check:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            print(f"{INDEX_FILE.as_posix()} is up to date with records/ and the gallery")
            return 0
        print(
            f"{INDEX_FILE.as_posix()} is out of date: run python -m autograd_notes.site.build.error_index",
            file=sys.stderr,
        )
        return 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {INDEX_FILE.as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
