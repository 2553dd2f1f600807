"""Every glossary term is rendered the same way in every catalog of its language.

``docs/locale/<language>/glossary.toml`` gives each term one rendering and the
variants that must not appear (see ``autograd_notes.site.i18n.glossary``). The
check covers every catalog; while pages are being written, their catalogs can
be left out with ``AUTOGRAD_NOTES_GLOSSARY_SKIP``: glob patterns (paths under
``LC_MESSAGES``) separated by spaces, e.g.
``AUTOGRAD_NOTES_GLOSSARY_SKIP="examples/14_*/* sphinx.po"``.
"""

from __future__ import annotations

import os
import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

from autograd_notes.site.i18n.catalogs import read_catalog
from autograd_notes.site.i18n.glossary import (
    Glossary,
    GlossaryError,
    check_catalog,
    check_text,
    glossary_path,
    load_glossary,
    main,
    strip_code,
)

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "docs" / "locale"
LANGUAGES = sorted(path.name for path in LOCALE.iterdir() if (path / "LC_MESSAGES").is_dir())
SKIP = os.environ.get("AUTOGRAD_NOTES_GLOSSARY_SKIP", "").split()
# the terms the translators asked for (issue: one glossary per language)
REQUIRED = {
    "leaf",
    "version-counter",
    "saved-tensor",
    "in-place",
    "view",
    "record",
    "runner",
    "drift",
    "shape",
    "pinned-memory",
    "sources",
    "holds",
    "graph",
    "gradient",
    "build",
    "detach",
    "hook",
}


def catalogs(language: str) -> list[Path]:
    folder = LOCALE / language / "LC_MESSAGES"
    return [
        path
        for path in sorted(folder.rglob("*.po"))
        if not any(fnmatch(path.relative_to(folder).as_posix(), pattern) for pattern in SKIP)
    ]


def glossary(language: str) -> Glossary:
    return load_glossary(glossary_path(LOCALE, language))


# -- the real glossaries and catalogs ---------------------------------------------


def test_every_language_has_a_glossary_with_the_same_terms() -> None:
    assert LANGUAGES, f"no languages under {LOCALE}"
    # the site's concepts, in one order; a language's own usage rules (usage = true) aside
    keys = {language: glossary(language).concepts for language in LANGUAGES}
    for language in LANGUAGES:
        assert glossary(language).language == language
        assert set(keys[language]) >= REQUIRED, f"{language} lacks {sorted(REQUIRED - set(keys[language]))}"
    first = LANGUAGES[0]
    for language in LANGUAGES[1:]:
        assert keys[language] == keys[first], (
            f"{language} and {first} differ: only in {language}: "
            f"{sorted(set(keys[language]) - set(keys[first]))}, only in {first}: "
            f"{sorted(set(keys[first]) - set(keys[language]))} (or the order differs)"
        )


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_term_matches_its_own_words(language: str) -> None:
    """A term's ``match`` finds its English, its ``pattern`` its rendering, no ``forbidden`` either."""
    for term in glossary(language).terms:
        assert term.match.search(term.english), f"{language} {term.key}: match misses {term.english!r}"
        assert term.pattern.search(term.rendering), (
            f"{language} {term.key}: pattern misses {term.rendering!r}"
        )
        for forbidden in term.forbidden:
            assert not forbidden.search(term.rendering), f"{language} {term.key}: rendering is forbidden"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalog_follows_the_glossary(language: str) -> None:
    terms = glossary(language)
    violations = [violation for path in catalogs(language) for violation in check_catalog(terms, path)]
    assert not violations, f"{len(violations)} glossary violations in {language}:\n" + "\n".join(violations)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_exception_is_still_an_english_message(language: str) -> None:
    """An exception that no English message contains any more only weakens the check: remove it."""
    english = [
        " ".join(str(message.id).split())
        for path in sorted((LOCALE / language / "LC_MESSAGES").rglob("*.po"))
        for message in read_catalog(path)
        if message.id
    ]
    stale = [
        f"{term.key}: {exception!r}"
        for term in glossary(language).terms
        for exception in term.exceptions
        if not any(exception in text for text in english)
    ]
    assert not stale, f"{glossary_path(LOCALE, language)}: exceptions no message contains: {stale}"


# -- the check itself, on small synthetic glossaries and catalogs ------------------

GLOSSARY = """\
language = "ru"

[[term]]
key = "leaf"
english = "leaf tensor"
match = '\\bleaf (tensor|tensors)\\b'
rendering = "листовой тензор"
pattern = 'листов\\w* тензор\\w*'
note = "a tensor no recorded operation made"

[[term]]
key = "in-place"
english = "in-place"
match = '\\bin[- ]place\\b'
rendering = "in-place"
pattern = 'in-place'
forbidden = ['на месте']
note = "the English term stays"
"""

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def synthetic(tmp_path: Path, **fields: str) -> Glossary:
    """The glossary above, with fields of its first term replaced or added (values in TOML)."""
    first, rest = GLOSSARY.split("\n[[term]]\n", 2)[1:]
    for field, value in fields.items():
        line = f"{field} = {value}"
        if re.search(rf"^{field} = ", first, flags=re.M):
            first = re.sub(rf"^{field} = .*$", lambda _match, line=line: line, first, count=1, flags=re.M)
        else:
            first = first.replace("\nnote = ", f"\n{line}\nnote = ", 1)
    text = GLOSSARY.split("\n[[term]]\n")[0] + "\n[[term]]\n" + first + "\n[[term]]\n" + rest
    return load_glossary(write(tmp_path, "glossary.toml", text))


def catalog(tmp_path: Path, english: str, translated: str, flags: str = "") -> Path:
    flag = f"#, {flags}\n" if flags else ""
    return write(tmp_path, "page.po", HEADER + f'{flag}msgid "{english}"\nmsgstr "{translated}"\n')


def test_a_wrong_rendering_is_reported_with_file_and_line(tmp_path: Path) -> None:
    path = catalog(tmp_path, "Only a leaf tensor gets .grad.", "Только тензор-лист получает .grad.")
    (violation,) = check_catalog(synthetic(tmp_path), path)
    assert violation.startswith(f"{path}:5: ")
    assert "'leaf tensor' (term 'leaf tensor') should be rendered as 'листовой тензор'" in violation
    assert violation.endswith("Only a leaf tensor gets .grad.")


def test_a_forbidden_variant_is_reported(tmp_path: Path) -> None:
    path = catalog(tmp_path, "An in-place write (in-place).", "Запись на месте (in-place).")
    (violation,) = check_catalog(synthetic(tmp_path), path)
    assert f"{path}:5: forbidden variant 'на месте' of term 'in-place'" in violation


def test_a_forbidden_variant_counts_in_any_message(tmp_path: Path) -> None:
    path = catalog(tmp_path, "Zeroed right there.", "Обнулён на месте.")
    (violation,) = check_catalog(synthetic(tmp_path), path)
    assert "forbidden variant 'на месте'" in violation


@pytest.mark.parametrize(
    "translated",
    ["Градиенты листовых тензоров.", "Градиенты Листовых Тензоров.", "Градиент листового тензора."],
)
def test_an_inflected_rendering_passes(tmp_path: Path, translated: str) -> None:
    path = catalog(tmp_path, "The gradients of leaf tensors.", translated)
    assert check_catalog(synthetic(tmp_path), path) == []


@pytest.mark.parametrize(
    ("english", "translated"),
    [
        ("Call ``leaf tensor.add_()`` here.", "Вызовите ``leaf tensor.add_()`` здесь."),
        ("See :ref:`leaf tensor`.", "См. :ref:`leaf tensor`."),
        ("See {ref}`the page <leaf tensor>`.", "См. {ref}`страницу <leaf tensor>`."),
        ("The `docs <https://x.org/leaf tensor>`_.", "`Документация <https://x.org/leaf tensor>`_."),
        ("Its :math:`leaf tensor` value.", "Его значение :math:`leaf tensor`."),
        ("Run it.", "Запустите ``на месте``."),  # a forbidden variant inside code is code
        ("Built on the %(leaf)s", "Собрано: %(leaf)s"),  # a template's placeholder is a name
    ],
)
def test_code_is_never_checked(tmp_path: Path, english: str, translated: str) -> None:
    assert check_catalog(synthetic(tmp_path), catalog(tmp_path, english, translated)) == []


def test_link_text_is_checked_but_not_its_target(tmp_path: Path) -> None:
    english = "See :ref:`the leaf tensor <leaf_tensor>`."
    assert strip_code(english) == "See the leaf tensor."
    path = catalog(tmp_path, english, "См. :ref:`лист <leaf_tensor>`.")
    assert len(check_catalog(synthetic(tmp_path), path)) == 1


def test_english_quoted_word_for_word_is_not_checked(tmp_path: Path) -> None:
    english = 'PyTorch says \\"a leaf tensor was moved\\".'
    assert check_catalog(synthetic(tmp_path), catalog(tmp_path, english, english)) == []
    path = catalog(tmp_path, english, "PyTorch пишет «a leaf tensor was moved».")
    assert check_catalog(synthetic(tmp_path), path) == []
    english = "Its title: *Leaf tensors made plain*."  # emphasis of four words or more, kept as it is
    path = catalog(tmp_path, english, "Заголовок: *Leaf tensors made plain*.")
    assert check_catalog(synthetic(tmp_path), path) == []
    path = catalog(tmp_path, "A *leaf tensor* here.", "Здесь *leaf tensor*.")  # a term left in English
    assert len(check_catalog(synthetic(tmp_path), path)) == 1


def test_fuzzy_and_untranslated_messages_are_not_checked(tmp_path: Path) -> None:
    path = catalog(tmp_path, "A leaf tensor.", "Лист.", flags="fuzzy")
    assert check_catalog(synthetic(tmp_path), path) == []
    assert check_catalog(synthetic(tmp_path), catalog(tmp_path, "A leaf tensor.", "")) == []


def test_a_listed_exception_is_not_checked_for_that_term_only(tmp_path: Path) -> None:
    terms = synthetic(tmp_path, exceptions="['gets its leaf tensor back']")
    path = catalog(tmp_path, "It gets its leaf tensor back in place.", "Он получает лист обратно на месте.")
    violations = check_catalog(terms, path)  # the leaf is excepted, the in-place term is not
    assert len(violations) == 2
    assert all("of term 'in-place'" in v or "(term 'in-place')" in v for v in violations)
    assert check_text(terms, "A leaf tensor.", "Лист.") != []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('language = "ru"\n[[term]\nkey = "x"\n', "not valid TOML"),
        ('language = "ru"\n', "no terms"),
        ('[[term]]\nkey = "x"\n', "missing 'language'"),
    ],
)
def test_a_malformed_glossary_file_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "glossary.toml", text)
    with pytest.raises(GlossaryError) as info:
        load_glossary(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_a_toml_error_names_the_line(tmp_path: Path) -> None:
    line = GLOSSARY.splitlines().index('rendering = "in-place"') + 1
    path = write(
        tmp_path, "glossary.toml", GLOSSARY.replace('rendering = "in-place"', "rendering = in-place")
    )
    with pytest.raises(GlossaryError, match=rf"^{re.escape(str(path))}: not valid TOML: .*line {line}\b"):
        load_glossary(path)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"pattern": "'листов(\\w* тензор'"}, "term 1 ('leaf'): 'pattern' is not a valid regular expression"),
        ({"forbidden": "['[на месте']"}, "term 1 ('leaf'): 'forbidden' is not a valid regular expression"),
        ({"forbidden": "'на месте'"}, "term 1 ('leaf'): 'forbidden' must be a list of non-empty strings"),
        ({"note": '""'}, "term 1 ('leaf'): 'note' must be a non-empty string"),
        ({"rendering": "1"}, "term 1 ('leaf'): 'rendering' must be a non-empty string"),
        ({"note": "'x'\nexample = 'y'"}, "term 1 ('leaf'): unknown field(s) ['example']"),
    ],
)
def test_a_malformed_term_names_the_term_and_field(
    tmp_path: Path, fields: dict[str, str], message: str
) -> None:
    with pytest.raises(GlossaryError) as info:
        synthetic(tmp_path, **fields)
    assert str(info.value).startswith(f"{tmp_path / 'glossary.toml'}: {message}")


def test_a_missing_field_and_a_repeated_key_are_named(tmp_path: Path) -> None:
    text = GLOSSARY.replace("pattern = 'in-place'\n", "")
    with pytest.raises(GlossaryError, match=r"term 2 \('in-place'\): missing 'pattern'"):
        load_glossary(write(tmp_path, "glossary.toml", text))
    text = GLOSSARY.replace('key = "in-place"', 'key = "leaf"')
    with pytest.raises(GlossaryError, match=r"term 'leaf' is listed twice"):
        load_glossary(write(tmp_path, "glossary.toml", text))


def test_the_command_line_lists_violations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ru" / "LC_MESSAGES").mkdir(parents=True)
    write(tmp_path / "ru", "glossary.toml", GLOSSARY)
    write(tmp_path / "ru" / "LC_MESSAGES", "page.po", HEADER + 'msgid "A leaf tensor."\nmsgstr "Лист."\n')
    assert main([str(tmp_path), "--language", "ru"]) == 1
    assert "page.po:5: English 'leaf tensor'" in capsys.readouterr().out
    write(
        tmp_path / "ru" / "LC_MESSAGES",
        "page.po",
        HEADER + 'msgid "A leaf tensor."\nmsgstr "Листовой тензор."\n',
    )
    assert main([str(tmp_path), "--language", "ru"]) == 0
    (tmp_path / "ru" / "glossary.toml").write_text('language = "ru"\n', encoding="utf-8")
    assert main([str(tmp_path), "--language", "ru"]) == 2
    assert "no terms" in capsys.readouterr().err
