"""Every interface string the site shows is translated in each language's sphinx.po.

The theme's templates (docs/_templates) and the Sphinx extension pass their
words through Sphinx's catalog; ``nox -s translations`` does not extract
them (see noxfile.py), so this test is what keeps sphinx.po complete.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from _site import TRANSLATIONS, Site
from jinja2 import Environment

from autograd_notes.records.drift.reasons import OutputReason
from autograd_notes.site.i18n.catalogs import read_catalog
from autograd_notes.site.pages.runner_words import reason_sentence

ROOT = Path(__file__).resolve().parents[2]
# every module of the site layer: the ones that show words call sphinx.locale._
SOURCES = sorted((ROOT / "src" / "autograd_notes" / "site").rglob("*.py"))
# messages of furo's footer that are a name and a link, the same in every language
NOT_WORDS = {"Furo"}


def extension_strings() -> set[str]:
    found = set()
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
                (argument,) = node.args
                # a computed message would escape this test: the site says only its own words
                assert isinstance(argument, ast.Constant), f"{path.name}: {ast.unparse(node)}"
                found.add(argument.value)
    return found


def _strings_of_templates(folder: Path, *, overridden: Path | None = None) -> set[str]:
    """What Jinja looks up at run time in ``folder``'s templates: ``_()`` calls and ``{% trans %}`` blocks.

    A template that ``overridden`` has in its place (our fork of it) is not read: it never runs.
    """
    environment = Environment(extensions=["jinja2.ext.i18n"])
    found = set()
    for template in folder.rglob("*.html"):
        if overridden is not None and (overridden / template.relative_to(folder)).exists():
            continue
        for _line, _function, message in environment.extract_translations(
            template.read_text(encoding="utf-8")
        ):
            text = message if isinstance(message, str) else message[0]
            if re.sub(r"<[^>]+>", "", text).strip() not in NOT_WORDS:
                found.add(text)
    return found


def template_strings() -> set[str]:
    """The words of our own templates (docs/_templates), read as Jinja reads them."""
    return _strings_of_templates(ROOT / "docs" / "_templates")


def theme_strings() -> set[str]:
    """The words of furo's own templates (search page, footer, Read the Docs menu)."""
    import furo

    return _strings_of_templates(
        Path(furo.__file__).parent / "theme" / "furo", overridden=ROOT / "docs" / "_templates"
    )


def sphinx_translates(language: str) -> set[str]:
    """The messages that Sphinx's own catalog for ``language`` translates."""
    import sphinx

    path = Path(sphinx.__file__).parent / "locale" / language / "LC_MESSAGES" / "sphinx.po"
    return {str(m.id) for m in read_catalog(path) if m.id and m.string and not m.fuzzy}


def test_the_sources_of_interface_strings_are_found() -> None:
    assert "Where these outputs come from" in extension_strings()
    assert {reason_sentence(reason) for reason in OutputReason} <= extension_strings()
    assert {"Language", "Contents", "Toggle site navigation sidebar", "Skip to content", "Back to top"} <= (
        template_strings()
    )
    assert "Built with PyTorch %(torch)s on the %(runner)s, Python %(python)s" in template_strings()


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_every_reason_code_has_a_translated_sentence(language: str) -> None:
    """The records layer says why runners differ as a code; the site says it in the page's words."""
    catalog = read_catalog(ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "sphinx.po")
    translated = {str(m.id): str(m.string) for m in catalog if m.id and m.string and not m.fuzzy}
    sentences = {reason: reason_sentence(reason) for reason in OutputReason}  # English: no catalog loaded
    assert len(set(sentences.values())) == len(OutputReason), "one sentence per code"
    missing = [
        f"{reason.name}: {sentence}" for reason, sentence in sentences.items() if sentence not in translated
    ]
    assert missing == []
    assert all(translated[sentence] != sentence for sentence in sentences.values())


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_every_interface_string_is_translated(language: str) -> None:
    catalog = read_catalog(ROOT / "docs" / "locale" / language / "LC_MESSAGES" / "sphinx.po")
    translated = {str(m.id) for m in catalog if m.id and m.string and not m.fuzzy}
    wanted = extension_strings() | template_strings()
    assert sorted(wanted - translated) == []
    # furo's templates: Sphinx's catalog translates most; a message whose wording
    # differs from Sphinx's own ("Please activate JavaScript ...") must be ours
    assert sorted(theme_strings() - translated - sphinx_translates(language)) == []


def test_furo_navigation_labels_are_translated() -> None:
    from sphinx.locale import _

    from autograd_notes.site.i18n.theme_strings import translate_navigation_labels

    tree = '<label aria-label="Toggle navigation of Views &amp; &quot;in-place&quot;"><i></i></label>'
    assert _("Toggle navigation of {title}") == "Toggle navigation of {title}"  # no catalog loaded
    assert translate_navigation_labels(tree) == tree
    assert translate_navigation_labels('<a aria-label="Other">x</a>') == '<a aria-label="Other">x</a>'


ENGLISH_INTERFACE = ("Toggle navigation of ", "Please activate JavaScript")


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_no_page_shows_furos_english_words(whole_site: Site, language: str) -> None:
    """The sidebar's expand buttons and the search page's no-JavaScript line, in the page's language."""
    found = [
        f"{page}: {words!r}"
        for page in whole_site.pages(language)
        for words in ENGLISH_INTERFACE
        if words in (whole_site.html / language / page).read_text(encoding="utf-8")
    ]
    assert found == []
    sidebar = (whole_site.html / language / "index.html").read_text(encoding="utf-8")
    assert sidebar.count("aria-label=") > 10


@pytest.mark.parametrize(
    ("language", "label"), [("en", "Out:"), ("ru", "Вывод:"), ("zh_CN", "输出："), ("pt_BR", "Saída:")]
)
def test_output_blocks_are_labelled_in_the_page_language(whole_site: Site, language: str, label: str) -> None:
    # sphinx-gallery's stylesheet writes "Out:" before each output block; the page overrides it
    page = whole_site.html / language / "examples" / "05_inplace" / "plot_detach_inplace_saved.html"
    assert f'.sphx-glr-script-out::before {{ content: "{label}"; }}' in page.read_text(encoding="utf-8")
