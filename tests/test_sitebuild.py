"""Languages of the site and the root page that sends visitors to one."""

from __future__ import annotations

from pathlib import Path

from autograd_notes.sitebuild import languages_of, main, write_root_index

ROOT = Path(__file__).resolve().parents[1]


def test_languages_come_from_conf_with_english_first() -> None:
    languages = languages_of(ROOT / "docs")
    assert list(languages) == ["en", "ru", "zh_CN", "pt_BR"]
    assert languages["zh_CN"] == "简体中文"


def test_root_index_redirects_to_english_and_links_every_language(tmp_path: Path) -> None:
    write_root_index(tmp_path, {"en": "English", "ru": "Русский"})
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'content="0; url=en/index.html"' in page
    assert '<a href="ru/index.html" hreflang="ru">Русский</a>' in page


def test_list_languages(capsys: object) -> None:
    assert main(["--list-languages", str(ROOT / "docs")]) == 0
    assert capsys.readouterr().out.split() == ["en", "ru", "zh_CN", "pt_BR"]  # type: ignore[attr-defined]
