"""Translation catalogs: read them strictly, measure coverage, compare markup with English.

The gallery's catalogs are reStructuredText: their messages are also parsed
with docutils (:mod:`.rst_markup`), which finds literals that a translation
breaks while keeping every backtick.

Used by the site build (a catalog with a syntax error stops it, naming the
file and line), by ``python -m autograd_notes.site.i18n.catalogs`` (coverage per
language, for ``nox -s translations``) and by the tests. Needs Babel (and
docutils for the parsed comparison).
"""

from __future__ import annotations

import argparse
import re
import string
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import PoFileError, read_po

__all__ = [
    "INTERFACE_CATALOG",
    "LABELS_CATALOG",
    "CatalogError",
    "Coverage",
    "behind_page",
    "check_locale",
    "coverage",
    "is_rst_catalog",
    "label_problems",
    "markup_problems",
    "placeholder_problems",
    "purge_obsolete",
    "read_catalog",
    "translations",
    "unsafe_markup",
]

# markup whose loss changes a page: literals, roles (and MyST roles), links
_MARKUP = re.compile(r"``.+?``|:[\w:]+:`|\{[\w:]+\}`|`[^`]*?<[^>]+>`_{1,2}|\]\([^)]+\)")


class CatalogError(Exception):
    """A catalog that cannot be read: the message names the file and line."""


@dataclass(frozen=True)
class Coverage:
    """Counts of one catalog or language."""

    translated: int = 0
    fuzzy: int = 0
    untranslated: int = 0

    def __add__(self, other: Coverage) -> Coverage:
        return Coverage(
            self.translated + other.translated,
            self.fuzzy + other.fuzzy,
            self.untranslated + other.untranslated,
        )

    @property
    def complete(self) -> bool:
        """Every message translated, none fuzzy."""
        return self.fuzzy == 0 and self.untranslated == 0


_PO_LINE = re.compile(
    r'^(?:#.*|\s*|(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(?:[^"\\]|\\.)*"\s*|"(?:[^"\\]|\\.)*"\s*)$'
)


def _lint(path: Path, text: str) -> None:
    """Refuse lines that are no part of the PO grammar (Babel skips some silently)."""
    for number, line in enumerate(text.splitlines(), 1):
        if not _PO_LINE.match(line):
            raise CatalogError(f"{path}:{number}: not a valid line of a PO file: {line[:60]!r}")


def read_catalog(path: Path) -> Catalog:
    """Read a ``.po`` file, refusing any syntax error with its file and line.

    An obsolete (``#~``) entry whose message is also an active one is refused
    too: babel reads past it, but GNU gettext's ``msgfmt`` (what translation
    platforms run) rejects the whole catalog as a duplicate definition.
    """
    try:
        _lint(path, path.read_text(encoding="utf-8"))
        with path.open("rb") as stream:
            catalog = read_po(stream, abort_invalid=True)
    except PoFileError as error:
        raise CatalogError(f"{path}: {error}") from None
    except UnicodeDecodeError as error:
        raise CatalogError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    for key, obsolete in catalog.obsolete.items():
        if key in catalog:
            raise CatalogError(
                f"{path}:{obsolete.lineno}: an obsolete (#~) entry repeats the message of line "
                f"{catalog[key].lineno}, a duplicate definition msgfmt refuses: delete the #~ entry"
            )
    return catalog


def coverage(catalog: Catalog) -> Coverage:
    """How many messages are translated, fuzzy or untranslated (the header aside)."""
    translated = fuzzy = untranslated = 0
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            fuzzy += 1
        elif message.string:
            translated += 1
        else:
            untranslated += 1
    return Coverage(translated, fuzzy, untranslated)


def _markup(text: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for item in _MARKUP.findall(text):
        if item.startswith("``"):
            found[item] += 1  # a literal must come through unchanged
        elif item.startswith("`"):
            found["link " + re.sub(r".*<", "<", item)] += 1  # the target, not the translated text
        elif item.startswith("]("):
            found["link " + item] += 1
        else:
            found[item] += 1  # the role itself: :ref:`, :download:`, {ref}` ...
    return found


def label_problems(catalog: Catalog) -> list[str]:
    """Labels whose translation marks as code what the label does not say: code is the label's own."""
    problems = []
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        label, translation = str(message.id), str(message.string)
        invented = [code for code in re.findall(r"``(.+?)``", translation) if code not in label]
        if invented or translation.count("``") % 2:
            shown = ", ".join(invented) or "an unclosed ``"
            problems.append(f"line {message.lineno}: code the label does not have ({shown}): {label[:80]}")
    return problems


def markup_problems(catalog: Catalog) -> list[str]:
    """Messages whose translation drops or breaks markup of the English."""
    problems = []
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        if _markup(str(message.id)) != _markup(str(message.string)):
            missing = _markup(str(message.id)) - _markup(str(message.string))
            extra = _markup(str(message.string)) - _markup(str(message.id))
            problems.append(
                f"line {message.lineno}: markup differs from English (missing "
                f"{sorted(missing.elements())}, added {sorted(extra.elements())}): {str(message.id)[:80]}"
            )
    return problems


# What a translation may never add: HTML (MyST publishes inline HTML as it is; docutils escapes it,
# but a raw directive or role would publish it), raw-output directives and roles, script URLs.
_HTML_TAG = re.compile(r"<!--|</?([A-Za-z][\w-]*)(?=[\s/>])[^<>]*>")
_RAW = re.compile(
    r"\.\.\s+raw::|\{raw\}|:raw(?:-\w+)?:`|\{eval-rst\}|\.\.\s+include::|\{include\}|javascript:", re.I
)
INTERFACE_CATALOG = "sphinx.po"
"""The catalog of interface strings, which the site formats with ``str.format``."""
LABELS_CATALOG = "check_labels.po"
"""The catalog of the checks' labels (:mod:`.check_labels`): its translations add code markup."""


def _unsafe(text: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for match in _HTML_TAG.finditer(text):
        found[f"<{match.group(1) or '!--'}>"] += 1
    for match in _RAW.finditer(text):
        found[match.group(0).lower()] += 1
    return found


def unsafe_markup(catalog: Catalog) -> list[str]:
    """Translations that add HTML tags, raw output or script links the English does not have.

    Translations come from contributors and translation platforms: a
    message must never be able to put live markup on a page. Checked for
    every message that has a translation, fuzzy ones included (Sphinx skips
    those today; a later merge may not).
    """
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        added = _unsafe(str(message.string)) - _unsafe(str(message.id))
        if added:
            problems.append(
                f"line {message.lineno}: the translation adds markup the English does not have "
                f"({', '.join(sorted(added))}): {str(message.id)[:80]}"
            )
    return problems


def _fields(template: str) -> list[tuple[str, str, str | None]]:
    """The replacement fields of a ``str.format`` template: (name, format spec, conversion)."""
    return [
        (name, spec or "", conversion)
        for _text, name, spec, conversion in string.Formatter().parse(template)
        if name is not None
    ]


def placeholder_problems(catalog: Catalog) -> list[str]:
    """Translations of ``str.format`` templates whose placeholders are not the English's.

    A translation must name the same fields as the English, and only plain
    names: no attribute or index (``{first.__class__}``), no format spec or
    conversion (``{first:<<12}``, ``{first!r}``), which would print what the
    page should not show or stop the build.
    """
    problems = []
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        try:
            english = _fields(str(message.id))
            translated = _fields(str(message.string))
        except ValueError as error:
            problems.append(f"line {message.lineno}: not a valid template ({error}): {str(message.id)[:80]}")
            continue
        bad = sorted(
            f"{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}"
            for name, spec, conversion in translated
            if spec or conversion or not name.isidentifier()
        )
        names = sorted({name for name, _spec, _conversion in english})
        if bad or sorted({name for name, _spec, _conversion in translated}) != names:
            problems.append(
                f"line {message.lineno}: placeholders must be the English's ({', '.join(names) or 'none'}), "
                f"plain names only{': ' + ', '.join(bad) if bad else ''}: {str(message.id)[:80]}"
            )
    return problems


def is_rst_catalog(name: Path) -> bool:
    """Whether a catalog (its path under ``LC_MESSAGES``) is a reStructuredText page's: the gallery's."""
    return name.parts[0] == "examples"


def translations(path: Path) -> dict[str, str]:
    """The translated messages of a catalog, keyed by whitespace-normalised English."""
    return _translated(read_catalog(path)) if path.exists() else {}


def _translated(catalog: Catalog) -> dict[str, str]:
    """:func:`translations` of a catalog already read."""
    return {" ".join(str(m.id).split()): str(m.string) for m in catalog if m.id and m.string and not m.fuzzy}


def behind_page(po: Path, catalog: Catalog, pot: Path) -> str | None:
    """What a page's catalog (read from ``po``) lacks of the messages its page has today, or None.

    ``pot`` is the page's template, as extracted today.
    A catalog can be complete in itself (nothing fuzzy, nothing empty) and still
    miss what its page says now: the page changed and its catalog was not merged
    (``nox -s translations -- <page>``). Those messages show in English.
    """
    held = _translated(catalog)
    missing = [
        " ".join(str(message.id).split())
        for message in read_catalog(pot)
        if message.id and " ".join(str(message.id).split()) not in held
    ]
    if not missing:
        return None
    first = missing[0] if len(missing[0]) <= 70 else missing[0][:67] + "..."
    return (
        f"{po}: {len(missing)} message(s) of its page not translated (the catalog is behind the page;"
        f" merge it with nox -s translations), the first: {first!r}"
    )


def check_locale(locale: Path, languages: list[str], pot: Path | None = None) -> tuple[list[str], bool]:
    """Report coverage per language, markup problems, and pages without catalog or behind theirs.

    With ``pot`` (the extracted templates), each page must have a catalog that
    translates every message the page has; the interface catalog, kept by hand,
    is left out (its templates hold the theme's strings too).
    """
    lines = [
        f"{'language':10} {'catalogs':>8} {'translated':>10} {'fuzzy':>6} {'untranslated':>12}  coverage"
    ]
    ok = True
    problems: list[str] = []
    pages = (
        sorted(p.relative_to(pot).with_suffix(".po").as_posix() for p in pot.rglob("*.pot")) if pot else []
    )
    for language in languages:
        folder = locale / language / "LC_MESSAGES"
        total = Coverage()
        files = sorted(folder.rglob("*.po"))
        for path in files:
            try:
                catalog = read_catalog(path)
            except CatalogError as error:
                problems.append(str(error))
                continue
            total += coverage(catalog)
            markup = label_problems if path.name == LABELS_CATALOG else markup_problems
            problems += [f"{path}: {problem}" for problem in markup(catalog)]
            problems += [f"{path}: {problem}" for problem in unsafe_markup(catalog)]
            if path.name == INTERFACE_CATALOG:
                problems += [f"{path}: {problem}" for problem in placeholder_problems(catalog)]
            if language == "zh_CN":
                from .zh_punctuation import punctuation_problems

                problems += [f"{path}: {problem}" for problem in punctuation_problems(catalog)]
            if is_rst_catalog(path.relative_to(folder)):
                from .rst_markup import inline_markup_problems  # docutils: not needed by the build

                problems += [f"{path}: {problem}" for problem in inline_markup_problems(catalog)]
            template = (pot / path.relative_to(folder)).with_suffix(".pot") if pot else None
            if template is not None and template.exists() and path.name != INTERFACE_CATALOG:
                behind = behind_page(path, catalog, template)
                problems += [behind] if behind else []
        problems += [
            f"{folder / page}: missing (a page without catalog)"
            for page in pages
            if not (folder / page).exists()
        ]
        count = total.translated + total.fuzzy + total.untranslated
        share = 100.0 * total.translated / count if count else 0.0
        counts = f"{total.translated:>10} {total.fuzzy:>6} {total.untranslated:>12}"
        lines.append(f"{language:10} {len(files):>8} {counts}  {share:.1f}%")
        ok = ok and total.complete and count > 0
    lines += problems
    return lines, ok and not problems


def purge_obsolete(locale: Path, languages: list[str]) -> list[Path]:
    """Drop the obsolete (``#~``) entries a merge left in the languages' catalogs; the catalogs changed.

    ``sphinx-intl update`` keeps the translations of messages the English no
    longer has, as obsolete entries: a later merge may bring one back while
    the same message is active, which ``msgfmt -c`` refuses as a duplicate.
    """
    from babel.messages.pofile import write_po

    changed = []
    for language in languages:
        for path in sorted((locale / language / "LC_MESSAGES").rglob("*.po")):
            catalog = read_catalog(path)
            if catalog.obsolete:
                with path.open("wb") as stream:
                    write_po(stream, catalog, width=76, ignore_obsolete=True, include_previous=True)
                changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    """``python -m autograd_notes.site.i18n.catalogs``: exit status 1 unless every language is complete."""
    parser = argparse.ArgumentParser(
        prog="python -m autograd_notes.site.i18n.catalogs",
        description="Check the gettext catalogs: exit status 1 unless every language is complete "
        "(no fuzzy or untranslated message), keeps the English markup, and has every page.",
    )
    parser.add_argument("locale", type=Path, help="e.g. docs/locale")
    parser.add_argument("--language", action="append", required=True, help="a language code (repeatable)")
    parser.add_argument(
        "--pot", type=Path, help="the extracted templates (build/gettext): every page must have a catalog"
    )
    parser.add_argument(
        "--purge-obsolete", action="store_true", help="first drop the obsolete (#~) entries a merge left"
    )
    args = parser.parse_args(argv)
    if args.purge_obsolete:
        for path in purge_obsolete(args.locale, args.language):
            print(f"{path}: obsolete entries dropped")
    lines, ok = check_locale(args.locale, args.language, args.pot)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
