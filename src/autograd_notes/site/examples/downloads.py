"""Downloads a reader can run: in the reader's language, saying how to install what they import.

sphinx-gallery writes each example's ``.py`` and ``.ipynb`` (and the zips of
all) from the English source, before any translation. After every build
(English included) :func:`translate_downloads` rewrites the files under
``_downloads``, the zips too:

* the text cells are translated with the page's catalog
  (``docs/locale/<lang>/LC_MESSAGES/<gallery>/<section>/<name>.po``,
  :mod:`.script_translation`); a message without a translation stays in
  English. Code lines are never changed; a docstring that holds reST's
  backslash escapes is a raw string, so no Python warns of them;
* the ``.py`` starts with a comment naming its page and the install command
  (:func:`autograd_notes.site.examples.install.install_command`), and its first
  import of a module outside the standard library is guarded: when any
  module it imports (PyTorch, numpy, matplotlib, the helpers) is missing, it
  says which, in the page's language, prints that command and exits,
  instead of a bare ``ModuleNotFoundError``;
* the notebook starts with a cell that names its page and installs the
  helper package when the kernel lacks it (sphinx-gallery's
  ``first_notebook_cell``);
* in both, cross-references (``:ref:``) become links to the pages, named by
  their titles, where sphinx-gallery would leave the bare label; the
  notebook's Markdown drops reST's escaped spaces (a backslash and a space
  before CJK punctuation), which Markdown would show as backslashes.

The helpers read the page line at run time (:mod:`autograd_notes._download_page`)
to speak the page's language in drift messages and tracebacks.

The words for the reader come in a :class:`ReaderText`, in the build's language.
"""

from __future__ import annotations

import ast
import re
import sys
import tempfile
import textwrap
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .notebook_cells import quiet_last_expression
from .script_translation import docstring_end, translate_script

__all__ = [
    "EARLY_STOP",
    "ReaderText",
    "download_line_map",
    "download_script",
    "drop_escaped_spaces",
    "guard_imports",
    "install_cell",
    "link_references",
    "link_script_references",
    "raw_docstring",
    "script_header",
    "third_party_imports",
    "translate_downloads",
]


@dataclass(frozen=True)
class ReaderText:
    """What the downloads of one build tell their reader, in the build's language.

    ``page`` and ``notebook_page`` have an ``{address}`` field (the example's
    page); ``missing`` has ``{modules}`` (what the script imports) and
    ``{missing}`` (what is not installed, known when it runs); ``links`` maps
    a reference label to the title and address of its target.
    """

    command: str
    page: str
    needs: str
    missing: str
    notebook: str
    notebook_page: str = "This notebook is a page of Autograd Notes: {address}"
    questions: str = "Questions this page answers"
    links: dict[str, tuple[str, str]] = field(default_factory=dict)


_REFERENCE = re.compile(r":ref:`(?:([^`<]*?)\s*<([^`>]+)>|([^`<>]+))`")


def link_references(text: str, links: dict[str, tuple[str, str]]) -> str:
    """Turn ``:ref:`label``` and ``:ref:`words <label>``` into reST links to the pages.

    A bare label is named by its target's title. sphinx-gallery's notebooks
    turn reST links into Markdown ones but leave a ``:ref:`` as the bare
    label. A label not in ``links`` is left as it is.
    """

    def link(match: re.Match[str]) -> str:
        words, label = (match.group(1), match.group(2)) if match.group(2) else (None, match.group(3))
        target = links.get(label.strip())
        if target is None:
            return match.group(0)
        title, address = target
        return f"`{words or title} <{address}>`_"

    return _REFERENCE.sub(link, text)


def script_header(reader: ReaderText, address: str) -> list[str]:
    """The comment lines a downloaded ``.py`` starts with: its page and how to install what it needs."""
    return [
        f"# {reader.page.format(address=address)}",
        f"# {reader.needs}",
        f"#     {reader.command}",
    ]


# the test the notebook's install cell starts with
_TRY_THE_HELPERS = ["try:", "    import autograd_notes  # noqa: F401", "except ModuleNotFoundError:"]


def third_party_imports(source: str) -> tuple[list[str], int | None]:
    """The modules outside the standard library a script imports, in order, and where to guard them.

    The modules are top-level names (``matplotlib`` for ``import
    matplotlib.pyplot``), from imports anywhere in the script; the place is
    the line (1-based) of the first statement of the module's body that
    imports one of them, None when none does.
    """

    def names(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found = [node.module]
        else:
            return []
        tops = (name.partition(".")[0] for name in found)
        return [top for top in tops if top not in sys.stdlib_module_names and top != "__future__"]

    tree = ast.parse(source)
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    # ast.walk goes breadth first: order by line, as the script first imports them
    found = sorted(((node.lineno, name) for node in imports for name in names(node)), key=lambda f: f[0])
    modules = list(dict.fromkeys(name for _line, name in found))
    at = next((node.lineno for node in tree.body if names(node)), None)
    return modules, at


EARLY_STOP = 'getattr(importlib.import_module("autograd_notes"), "note_early_stop", lambda: None)()'
"""The guard's last line: where the site records the reader's PyTorch stopping the example early,
it says so before the bare ImportError or AttributeError (:mod:`autograd_notes._early_stop`). A
helper installed before it had this function does nothing here (pip keeps an installed one)."""


def guard_imports(source: str, reader: ReaderText) -> str:
    """Guard the script's first import of a module outside the standard library.

    Three lines before it check that every such module the script imports is
    installed (without importing any); when one is missing the script says
    which, and the command that installs them all, and exits, instead of
    a ``ModuleNotFoundError``. One more says where the site records the
    reader's PyTorch release stopping the example early, if it does (no
    import statement: the script's own imports stay its first).
    ``python -m autograd_notes verify`` knows these lines
    (:mod:`autograd_notes.records.exchange.downloaded`).
    """
    modules, at = third_party_imports(source)
    if at is None:
        return source
    lines = source.splitlines()
    before, after = reader.missing.format(modules=", ".join(modules), missing="\0").split("\0")
    names = ", ".join(repr(name) for name in modules)
    install = f"{after}\n    {reader.command}"
    guard = [
        "import importlib.util",
        f"if _missing := [name for name in ({names},) if importlib.util.find_spec(name) is None]:",
        f'    raise SystemExit({before!r} + ", ".join(_missing) + {install!r})',
        EARLY_STOP,
    ]
    return "\n".join([*lines[: at - 1], *guard, *lines[at - 1 :]]) + "\n"


def link_script_references(text: str, links: dict[str, tuple[str, str]]) -> str:
    """A script whose comments' and docstring's ``:ref:`` roles are links (:func:`link_references`).

    Line by line, so that every line stays where it was; code is never changed.
    """
    lines = text.splitlines()
    closed = docstring_end(lines)
    out = [
        link_references(line, links) if number <= closed or line.startswith("#") else line
        for number, line in enumerate(lines)
    ]
    return "\n".join(out) + "\n"


def raw_docstring(text: str) -> str:
    r"""``text`` with its opening docstring made a raw string where it holds a backslash.

    reST escapes with a backslash (a translation writes ``\ `` where an inline
    literal meets a Chinese character); in a plain string, Python 3.12 warns of
    an invalid escape sequence and a later Python refuses it. Nothing moves:
    the prefix goes on the docstring's first line.
    """
    lines = text.splitlines()
    end = docstring_end(lines)
    if not any("\\" in line for line in lines[1:end]):
        return text
    lines[0] = lines[0].replace('"""', 'r"""', 1)
    return "\n".join(lines) + "\n"


def download_script(text: str, reader: ReaderText, address: str) -> str:
    """The downloaded ``.py`` of a (translated) script ``text``: its header, then the script, guarded.

    ``python -m autograd_notes verify`` takes these additions away again
    (:mod:`autograd_notes.records.exchange.downloaded`).
    """
    header = "\n".join(script_header(reader, address))
    script = raw_docstring(link_script_references(text, reader.links))
    return f"{header}\n{guard_imports(script, reader)}"


def download_line_map(source: str, catalog: dict[str, str]) -> dict[int, int]:
    """Each code line of a gallery script (from 1) and its line in the download ``catalog`` translates it to.

    A download adds its header and the guard of its imports, and its
    translated text cells take as many lines as their language needs; its
    code lines are the script's, unchanged, in order. They are matched line
    for line (:class:`difflib.SequenceMatcher`), so that a page can number a
    traceback's frames as its reader's download does.
    """
    import difflib

    plain = ReaderText(command="", page="{address}", needs="", missing="{modules} {missing}", notebook="")
    download = download_script(translate_script(source, catalog), plain, "").splitlines()
    lines = source.splitlines()
    matcher = difflib.SequenceMatcher(None, lines, download, autojunk=False)
    found: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            found[block.a + offset + 1] = block.b + offset + 1
    return found


def install_cell(reader: ReaderText, address: str) -> str:
    """The first cell of a notebook: names its page, installs the helper package when the kernel lacks it.

    The helpers read the page line to speak its language (the first cell a kernel ran).
    """
    return "\n".join(
        [
            f"# {reader.notebook_page.format(address=address)}",
            f"# {reader.notebook}",
            *_TRY_THE_HELPERS,
            f"    %{reader.command}",
        ]
    )


_LITERAL_OR_ESCAPED_SPACE = re.compile(r"(``.+?``)|(?<!\\)\\ ", flags=re.S)


def drop_escaped_spaces(text: str) -> str:
    """Drop reST's escaped spaces (a backslash and a space: nothing, to reST) outside literals.

    Translations put them between inline markup and full-width punctuation
    (``x`` then ``，``), and Markdown would show the backslash.
    """
    return _LITERAL_OR_ESCAPED_SPACE.sub(lambda m: m.group(1) or "", text)


_QUESTIONS = re.compile(r"^\.\. questions::[ \t]*\n\n?((?:[ \t]+\S.*\n?|[ \t]*\n(?=[ \t]+\S))+)", re.M)


def questions_as_markdown(text: str, heading: str) -> str:
    """A ``.. questions::`` box as a notebook shows it: ``heading`` in bold over the list, not indented.

    sphinx-gallery's notebooks leave a directive they do not know as its reST.
    """

    def markdown(match: re.Match[str]) -> str:
        items = textwrap.dedent(match.group(1)).rstrip("\n")
        return f"**{heading}**\n\n{items}\n"

    return _QUESTIONS.sub(markdown, text)


def _notebook(script: Path, gallery_conf: dict[str, Any], reader: ReaderText, address: str) -> str:
    import json

    from sphinx_gallery.notebook import jupyter_notebook
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    _, blocks = split_code_and_text_blocks(str(script))
    blocks = [
        block._replace(
            content=questions_as_markdown(
                drop_escaped_spaces(link_references(block.content, reader.links)), reader.questions
            )
        )
        if block.type == "text"
        else block._replace(content=quiet_last_expression(block.content))
        for block in blocks
    ]
    conf = {**gallery_conf, "first_notebook_cell": install_cell(reader, address)}
    return json.dumps(jupyter_notebook(blocks, conf, script.parent), indent=2, ensure_ascii=False)


def translate_downloads(
    outdir: Path,
    gallery_dirs: list[tuple[Path, str]],
    catalog_for: Callable[[str], dict[str, str]],
    gallery_conf: dict[str, Any],
    reader: ReaderText,
    address_of: Callable[[str], str],
) -> list[str]:
    """Rewrite the example downloads under ``outdir/_downloads`` for the build's reader.

    ``gallery_dirs`` pairs each example source folder with its generated
    docname prefix (``examples``); ``catalog_for(docname)`` gives the
    translations of a page and ``address_of(docname)`` its address. Returns
    the examples written.
    """
    done: list[str] = []
    written: dict[str, tuple[str, str]] = {}  # "section/plot_x.py" -> (py text, ipynb text)
    downloads = outdir / "_downloads"
    with tempfile.TemporaryDirectory() as tmp:
        for source_dir, prefix in gallery_dirs:
            for script in sorted(source_dir.glob("*/plot_*.py")):
                relative = script.relative_to(source_dir).as_posix()
                docname = f"{prefix}/{Path(relative).with_suffix('').as_posix()}"
                text = translate_script(script.read_text(encoding="utf-8"), catalog_for(docname))
                copy = Path(tmp, relative)
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(text, encoding="utf-8")
                notebook = _notebook(copy, gallery_conf, reader, address_of(docname))
                python = download_script(text, reader, address_of(docname))
                written[relative] = (python, notebook)
                for target in downloads.rglob(script.name):
                    target.write_text(python, encoding="utf-8")
                for target in downloads.rglob(script.with_suffix(".ipynb").name):
                    target.write_text(notebook, encoding="utf-8")
                done.append(relative)
    for archive in downloads.rglob("*.zip"):
        _rewrite_zip(archive, written)
    return done


def _rewrite_zip(archive: Path, translated: dict[str, tuple[str, str]]) -> None:
    with zipfile.ZipFile(archive) as old:
        entries = [(info, old.read(info)) for info in old.infolist()]
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in entries:
            name = Path(info.filename)
            key = name.with_suffix(".py").as_posix()
            matches = [
                k for k in translated if key.endswith(k) or Path(k).name == name.with_suffix(".py").name
            ]
            if matches:
                py, ipynb = translated[matches[0]]
                data = (ipynb if name.suffix == ".ipynb" else py).encode("utf-8")
            new.writestr(info, data)
