"""The helpers' own sentences for a download's reader: every language, every template, the site's words."""

from __future__ import annotations

import re
import string
import sys
from pathlib import Path

import pytest
import torch
from babel.messages.pofile import read_po

from autograd_notes._reader_words import LANGUAGES, words
from autograd_notes._traceback import format_clean_traceback

ROOT = Path(__file__).resolve().parents[2]
# the site's languages: every one a download can be in
SITE_LANGUAGES = sorted(path.name for path in (ROOT / "docs" / "locale").iterdir() if path.is_dir())


def fields(template: str) -> set[str]:
    return {name for _text, name, _spec, _conversion in string.Formatter().parse(template) if name}


def test_the_helpers_speak_every_language_of_the_site() -> None:
    assert sorted(LANGUAGES) == sorted(["en", *SITE_LANGUAGES])


@pytest.mark.parametrize("language", SITE_LANGUAGES)
def test_every_language_has_every_template_with_its_fields(language: str) -> None:
    english, translated = words("en"), words(language)
    assert set(translated) == set(english)
    for key, template in english.items():
        assert fields(translated[key]) == fields(template), key
        assert translated[key] != template or key == "covered", key  # a translation, not the English
        assert translated[key].count("\n") == template.count("\n"), key


# Words a translated sentence keeps in English: names; and what a language says in English itself
_KEPT = frozenset({"pytorch", "autograd", "notes", "cpu"})  # names: every language of the site writes CPU
_BORROWED = {"pt_BR": frozenset({"frame", "frames", "script", "site"})}  # words Portuguese uses itself
_LATIN_SCRIPT = frozenset({"pt_BR"})
_WORD = re.compile(r"[A-Za-z]{2,}")


def _words(template: str) -> list[str]:
    """The template's own words, its fields left out (they are data: PyTorch's English, names, pages)."""
    return [
        word.lower() for word in _WORD.findall(template.format(**{name: "" for name in fields(template)}))
    ]


@pytest.mark.parametrize("language", SITE_LANGUAGES)
def test_no_english_word_is_left_outside_the_fields(language: str) -> None:
    """What a translated download prints has no English of its own: only its fields (data) may be English.

    A sentence half translated ("… (different outcome)") printed English words in a Russian download.
    In a language of another script any Latin word is English; in Portuguese, the English sentence's
    own words are.
    """
    english = words("en")
    kept = _KEPT | _BORROWED.get(language, frozenset())
    for key, template in words(language).items():
        if language in _LATIN_SCRIPT:
            left = set(_words(template)) & {word for word in _words(english[key]) if len(word) > 3}
        else:
            left = set(_words(template))
        assert not left - kept, (key, sorted(left - kept))


@pytest.mark.parametrize("language", SITE_LANGUAGES)
def test_the_folded_frames_line_is_the_sites(language: str) -> None:
    with (ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "sphinx.po").open("rb") as po:
        catalog = read_po(po)
    for key in ("frame", "frames", "rank"):  # the lines of a traceback that the site translates
        message = catalog.get(words("en")[key])
        assert message is not None
        assert message.string == words(language)[key]


def test_an_unknown_language_is_english() -> None:
    assert words("xx") == words("en") == words(None)


def _traceback() -> list[str]:
    try:
        torch.broadcast_shapes((2,), (3,))  # raises in PyTorch's Python code
    except RuntimeError as error:
        return format_clean_traceback(error).splitlines()
    raise AssertionError("no error")  # pragma: no cover


def test_a_downloads_traceback_folds_frames_in_its_pages_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    english = [line for line in _traceback() if "inside PyTorch" in line]
    script = tmp_path / "plot_x.py"
    script.write_text("# https://x.org/site/ru/examples/a/plot_x.html\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules["__main__"], "__file__", str(script), raising=False)
    russian = [line for line in _traceback() if "внутри PyTorch" in line]
    assert len(english) == len(russian) == 1
    count, functions = english[0].strip()[1:-1].split(" frames inside PyTorch: ")
    assert russian[0] == f"  [кадров внутри PyTorch: {count}; {functions}]"
