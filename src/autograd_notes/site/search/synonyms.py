"""The search page's synonyms: words readers use for the same thing, per language.

``docs/search_synonyms.toml`` holds, for each language of the site, groups of
words (``["freeze", "frozen", "unfreeze"]``): where no page uses a word of a
query ("unfreeze"; the English "freeze" on a Russian page), the search page
looks for the words of its group that pages use (``static/site_search.js``).
A word that pages use is looked for as it is: a synonym never adds to it.
Read strictly when the site is built: a file that is not TOML, a group that is
not two or more single words, or a word in two groups of one language stops
the build, naming the file (and the line where TOML says it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the docs build runs on 3.11+; tomli is Sphinx's own dependency there
    import tomli as tomllib

__all__ = ["FILE_NAME", "SynonymsError", "load_synonyms"]

FILE_NAME = "search_synonyms.toml"
"""The synonyms' file, next to ``conf.py``."""

_ONE_WORD = re.compile(r"^[\w.]+$")


class SynonymsError(Exception):
    """A synonyms file the build cannot use: the message names the file and what is wrong."""


def load_synonyms(path: Path, language: str) -> list[list[str]]:
    """The groups of ``language`` in ``path`` (none where the file or the language has none)."""
    if not path.exists():
        return []
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise SynonymsError(f"{path}: not TOML: {error}") from None
    entry = table.get(language, {})
    groups = entry.get("groups", []) if isinstance(entry, dict) else None
    if not isinstance(groups, list):
        raise SynonymsError(f"{path}: [{language}] groups must be a list of lists of words")
    seen: dict[str, int] = {}
    for number, group in enumerate(groups, start=1):
        where = f"{path}: [{language}] group {number}"
        if not isinstance(group, list) or len(group) < 2 or not all(isinstance(w, str) for w in group):
            raise SynonymsError(f"{where}: a group is a list of two words or more: {group!r}")
        for word in group:
            if not _ONE_WORD.match(word):
                raise SynonymsError(f"{where}: {word!r} is not one word (the search splits it)")
            key = word.lower()
            if key in seen:
                raise SynonymsError(f"{where}: {word!r} is already in group {seen[key]}")
            seen[key] = number
    return [list(group) for group in groups]
