"""The labels of checks that the site's sentences name are translated in every language.

Every check whose outcome differs in some recorded release is named in a
sentence (the timeline, the "Changed in" note, the releases table): its label
must be in the page's language, from ``check_labels.po``. The catalog holds
exactly those labels: one it lacks would show English in a translated
sentence, one it no longer needs is work no reader sees.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from autograd_notes.site.i18n.catalogs import label_problems, read_catalog
from autograd_notes.site.i18n.check_labels import CATALOG_FILE, label_node
from autograd_notes.site.i18n.glossary import glossary_path, load_glossary
from autograd_notes.site.web.html_nodes import HtmlCode
from autograd_notes.site.web.nodes import code_nodes

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "docs" / "locale"
LANGUAGES = sorted(path.name for path in LOCALE.iterdir() if path.is_dir())
NOTES = ROOT / "src" / "autograd_notes" / "release_notes.json"
# a language that writes its prose in another script: no Latin word outside code
OTHER_SCRIPT = {"ru", "zh_CN"}
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def shown_labels() -> set[str]:
    """The labels the site's sentences name: those of the checks that differ in some release."""
    notes = json.loads(NOTES.read_text(encoding="utf-8"))
    return {check["label"] for check in notes["checks"] if check["label"]}


def test_the_release_notes_name_labels() -> None:
    assert len(shown_labels()) > 40  # the source of the test is not empty


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalog_has_every_shown_label_and_no_other(language: str) -> None:
    path = LOCALE / language / "LC_MESSAGES" / CATALOG_FILE
    catalog = read_catalog(path)
    held = {str(message.id) for message in catalog if message.id}
    shown = shown_labels()
    assert not shown - held, f"{path}: labels to translate: {sorted(shown - held)}"
    assert not held - shown, f"{path}: labels no sentence shows any more: {sorted(held - shown)}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_label_is_translated_with_its_own_code(language: str) -> None:
    path = LOCALE / language / "LC_MESSAGES" / CATALOG_FILE
    catalog = read_catalog(path)
    faults = label_problems(catalog)
    # the terms the language's glossary keeps in English ("in-place")
    kept = [term.pattern for term in load_glossary(glossary_path(LOCALE, language)).terms]
    for message in catalog:
        if not message.id:
            continue
        label, translation = str(message.id), str(message.string)
        if not translation or message.fuzzy:
            faults.append(f"line {message.lineno}: not translated: {label}")
            continue
        if translation == label:
            faults.append(f"line {message.lineno}: the English as it is (code is written ``{label}``)")
        prose = re.sub(r"``.+?``", " ", translation)
        for pattern in kept:
            prose = pattern.sub(" ", prose) if _LATIN_WORD.search(pattern.pattern) else prose
        if language in OTHER_SCRIPT and _LATIN_WORD.search(prose):
            faults.append(f"line {message.lineno}: English words outside code: {translation}")
    assert not faults, f"{path}:\n" + "\n".join(faults)


def test_a_label_invents_no_code() -> None:
    catalog = Catalog(locale="ru")
    catalog.add("grad.shape (the whole gradient's)", "``grad.shape`` (всего градиента)")
    catalog.add("norm of the raw entries", "норма ``values()``")
    catalog.add("h.grad", "``h.grad")
    problems = label_problems(catalog)
    assert len(problems) == 2
    assert "(values())" in problems[0]
    assert "an unclosed ``" in problems[1]


def test_a_translation_shows_its_code_as_code() -> None:
    parts = code_nodes("``grad.shape`` (всего градиента)")
    assert [type(part).__name__ for part in parts] == ["HtmlCode", "Text"]
    assert parts[0].astext() == "grad.shape"
    assert parts[1].astext() == " (всего градиента)"


def test_outside_a_translated_build_a_label_is_its_code() -> None:
    node = label_node("norm of the raw entries")
    assert isinstance(node, HtmlCode)
    assert node.astext() == "norm of the raw entries"
