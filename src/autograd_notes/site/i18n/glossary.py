"""Translation glossaries: one rendering per term, checked in every catalog of a language.

``docs/locale/<language>/glossary.toml`` lists, for each term of the site,
the English term, a regular expression that finds it in an English msgid,
the one rendering in that language (a regular expression that allows for
inflection) and variants that must never appear. :func:`check_catalog`
returns the messages of a catalog that break it: the English names the
term and the translation lacks its rendering, or the translation holds a
forbidden variant. Code is never checked: ````literals````, ``:math:``,
the targets of roles and links, ``{placeholders}``; nor is English that the
translation keeps word for word (a quoted error message, a source's title).

The format, for translators, is described at the top of each glossary.
``python -m autograd_notes.site.i18n.glossary docs/locale --language ru`` lists a
language's violations. Needs Babel (through :mod:`.catalogs`) and Python 3.11
(``tomllib``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .catalogs import read_catalog

__all__ = [
    "Glossary",
    "GlossaryError",
    "Term",
    "check_catalog",
    "check_text",
    "glossary_path",
    "load_glossary",
    "locale_violations",
    "strip_code",
]

# what is code, never words: literals, math, a role's or link's target, placeholders
_CODE = [
    (re.compile(r"``.+?``", re.S), " "),
    (re.compile(r":math:`[^`]*`|\{math\}`[^`]*`|\$[^$]+\$"), " "),
    # :ref:`text <target>`, {ref}`text <target>`: the text stays, the target goes
    (re.compile(r"(?::[\w:+-]+:|\{[\w:+-]+\})`([^`<]*?)\s*<[^>`]*>`"), r"\1"),
    # :ref:`target`, {ref}`target`: all of it is a name
    (re.compile(r"(?::[\w:+-]+:|\{[\w:+-]+\})`[^`]*`"), " "),
    (re.compile(r"`([^`<]*?)\s*<[^>`]*>`_{1,2}"), r"\1"),  # `text <url>`_
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),  # [text](url)
    (re.compile(r"`[^`]*`"), " "),  # interpreted text, MyST inline code
    (re.compile(r"\{\w*\}"), " "),  # str.format placeholders of interface strings
    (re.compile(r"%\(\w+\)s"), " "),  # %-placeholders of the templates' strings
    (re.compile(r"https?://\S+"), " "),
]

# English the translation keeps word for word (an error message, a source's title or tags):
# quoted, or in *emphasis* of four words or more (shorter could hide a term left in English)
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|(?<!\*)\*([^*\s]+(?:\s+[^*\s]+){3,})\*(?!\*)')

_FIELDS = {"key", "english", "match", "rendering", "pattern", "forbidden", "note", "exceptions", "usage"}
_REQUIRED = ("key", "english", "match", "rendering", "pattern", "note")


class GlossaryError(Exception):
    """A glossary that cannot be used: the message names the file and the term or line."""


@dataclass(frozen=True)
class Term:
    """One glossary entry."""

    key: str
    english: str
    match: re.Pattern[str]
    rendering: str
    pattern: re.Pattern[str]
    forbidden: tuple[re.Pattern[str], ...]
    note: str
    exceptions: tuple[str, ...] = ()
    usage: bool = False
    """A rule of this language's own usage (a register, a word choice among its own variants, a
    grammar trap), not a concept of the site: the other languages need not list it."""

    def excepted(self, msgid: str) -> bool:
        """Whether this message is one of the term's listed exceptions (English, normalised)."""
        text = " ".join(msgid.split())
        return any(exception in text for exception in self.exceptions)


@dataclass(frozen=True)
class Glossary:
    """A language's glossary, read from ``path``."""

    language: str
    path: Path
    terms: tuple[Term, ...]

    @property
    def keys(self) -> list[str]:
        """The terms' keys, in the glossary's order."""
        return [term.key for term in self.terms]

    @property
    def concepts(self) -> list[str]:
        """The keys of the site's concepts, which every language lists, in order (usage rules aside)."""
        return [term.key for term in self.terms if not term.usage]


def glossary_path(locale: Path, language: str) -> Path:
    """Where a language's glossary lives: ``<locale>/<language>/glossary.toml``."""
    return locale / language / "glossary.toml"


def strip_code(text: str) -> str:
    """The words of a message, without its code (literals, math, targets, placeholders)."""
    for pattern, replacement in _CODE:
        text = pattern.sub(replacement, text)
    return text


def _regex(path: Path, where: str, field: str, value: object, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    if not isinstance(value, str) or not value:
        raise GlossaryError(f"{path}: {where}: '{field}' must be a non-empty string (a regular expression)")
    try:
        return re.compile(value, flags)
    except re.error as error:
        raise GlossaryError(
            f"{path}: {where}: '{field}' is not a valid regular expression: {error} in {value!r}"
        ) from None


def _strings(path: Path, where: str, field: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise GlossaryError(f"{path}: {where}: '{field}' must be a list of non-empty strings")
    return value


def _term(path: Path, number: int, table: dict[str, Any]) -> Term:
    where = f"term {number} ({table['key']!r})" if isinstance(table.get("key"), str) else f"term {number}"
    unknown = sorted(set(table) - _FIELDS)
    if unknown:
        raise GlossaryError(f"{path}: {where}: unknown field(s) {unknown} (known: {sorted(_FIELDS)})")
    for field in _REQUIRED:
        if field not in table:
            raise GlossaryError(f"{path}: {where}: missing '{field}'")
        if not isinstance(table[field], str) or not table[field].strip():
            raise GlossaryError(f"{path}: {where}: '{field}' must be a non-empty string")
    return Term(
        key=table["key"],
        english=table["english"],
        match=_regex(path, where, "match", table["match"]),
        rendering=table["rendering"],
        pattern=_regex(path, where, "pattern", table["pattern"]),
        forbidden=tuple(
            _regex(path, where, "forbidden", item)
            for item in _strings(path, where, "forbidden", table.get("forbidden", []))
        ),
        note=table["note"],
        exceptions=tuple(
            " ".join(item.split())
            for item in _strings(path, where, "exceptions", table.get("exceptions", []))
        ),
        usage=_flag(path, where, "usage", table.get("usage", False)),
    )


def _flag(path: Path, where: str, field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise GlossaryError(f"{path}: {where}: '{field}' must be true or false")
    return value


def load_glossary(path: Path) -> Glossary:
    """Read a glossary, refusing bad TOML, missing or unknown fields and bad regexes by name."""
    try:
        import tomllib  # Python 3.11+: a translator's tool, the package itself runs on 3.10
    except ModuleNotFoundError:
        raise GlossaryError(f"{path}: reading a glossary needs Python 3.11 or later (tomllib)") from None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GlossaryError(f"{path}: no such glossary") from None
    except UnicodeDecodeError as error:
        raise GlossaryError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:  # its message ends "(at line N, column M)"
        raise GlossaryError(f"{path}: not valid TOML: {error}") from None
    language = data.get("language")
    if not isinstance(language, str) or not language:
        raise GlossaryError(f"{path}: missing 'language' (the language code, e.g. language = \"ru\")")
    tables = data.get("term")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise GlossaryError(f"{path}: no terms (each term is a [[term]] table)")
    unknown = sorted(set(data) - {"language", "term"})
    if unknown:
        raise GlossaryError(f"{path}: unknown top-level key(s) {unknown}")
    terms = tuple(_term(path, number, table) for number, table in enumerate(tables, 1))
    seen: set[str] = set()
    for term in terms:
        if term.key in seen:
            raise GlossaryError(f"{path}: term {term.key!r} is listed twice")
        seen.add(term.key)
    return Glossary(language, path, terms)


def check_text(glossary: Glossary, msgid: str, msgstr: str) -> list[str]:
    """What is wrong with one translated message: a term not rendered, a forbidden variant."""
    english, translated = strip_code(msgid), strip_code(msgstr)
    if " ".join(english.split()) == " ".join(translated.split()):
        return []  # nothing of it is translated: a name, a command, a quotation
    for quoted in _QUOTED.finditer(english):
        text = quoted.group(1) or quoted.group(2) or quoted.group(3)
        if text in translated:  # kept in English on purpose: not the translator's words
            english = english.replace(quoted.group(0), " ")
            translated = translated.replace(text, " ")
    problems = []
    for term in glossary.terms:
        if term.excepted(msgid):
            continue
        if term.match.search(english) and not term.pattern.search(translated):
            found = term.match.search(english)
            assert found is not None
            problems.append(
                f"English {found.group(0)!r} (term {term.english!r}) should be rendered as {term.rendering!r}"
            )
        for forbidden in term.forbidden:
            variant = forbidden.search(translated)
            if variant:
                problems.append(
                    f"forbidden variant {variant.group(0)!r} of term {term.english!r} "
                    f"(use {term.rendering!r})"
                )
    return problems


def check_catalog(glossary: Glossary, path: Path) -> list[str]:
    """Every violation of the glossary in a catalog: ``path:line: problem: English``."""
    violations = []
    for message in read_catalog(path):
        if not message.id or not message.string or message.fuzzy:
            continue
        msgid, msgstr = str(message.id), str(message.string)
        english = " ".join(msgid.split())
        excerpt = english if len(english) <= 70 else english[:67] + "..."
        violations += [
            f"{path}:{message.lineno}: {problem}: {excerpt}"
            for problem in check_text(glossary, msgid, msgstr)
        ]
    return violations


def locale_violations(locale: Path, languages: Iterable[str]) -> list[str]:
    """Every violation in every catalog of the languages (``<locale>/<language>/LC_MESSAGES``)."""
    violations = []
    for language in languages:
        glossary = load_glossary(glossary_path(locale, language))
        for path in sorted((locale / language / "LC_MESSAGES").rglob("*.po")):
            violations += check_catalog(glossary, path)
    return violations


def main(argv: list[str] | None = None) -> int:
    """``python -m autograd_notes.site.i18n.glossary``: exit status 1 if any catalog breaks its glossary."""
    parser = argparse.ArgumentParser(
        prog="python -m autograd_notes.site.i18n.glossary",
        description="Check every catalog of the languages against <locale>/<language>/glossary.toml.",
    )
    parser.add_argument("locale", type=Path, help="e.g. docs/locale")
    parser.add_argument("--language", action="append", required=True, help="a language code (repeatable)")
    args = parser.parse_args(argv)
    try:
        violations = locale_violations(args.locale, args.language)
    except GlossaryError as error:
        print(error, file=sys.stderr)
        return 2
    print("\n".join(violations) if violations else "no violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
