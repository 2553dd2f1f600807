"""How well the site search answers questions asked in public: one measure, for a test and a benchmark.

``tests/site/question_holdout.json`` holds real questions, titles as their
askers wrote them (Stack Overflow, discuss.pytorch.org, GitHub issues), each
with the pages of the site that answer it (any of them counts) and its
address. None was copied into a page. The search page of each language ranks
them in Chromium with its own script (``window.AutogradNotesSiteSearch``),
exactly as a reader's query is ranked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOLDOUT = Path(__file__).resolve().parent / "site" / "question_holdout.json"


@dataclass
class Quality:
    """The search's results on the questions."""

    asked: int = 0
    first: int = 0
    top_three: int = 0
    missed: list[str] = field(default_factory=list)


def questions() -> list[dict[str, Any]]:
    """The held-out questions: question, language, source, pages."""
    loaded: list[dict[str, Any]] = json.loads(HOLDOUT.read_text(encoding="utf-8"))
    return loaded


def measure(page: Any, url_of: Any) -> Quality:
    """Rank every question on its language's search page (``url_of(language)``) in ``page``."""
    quality = Quality()
    by_language: dict[str, list[dict[str, Any]]] = {}
    for question in questions():
        by_language.setdefault(question["language"], []).append(question)
    for language, asked in sorted(by_language.items()):
        page.goto(url_of(language))
        page.wait_for_function("window.AutogradNotesSiteSearch !== undefined")
        ranked = page.evaluate(
            "questions => questions.map(q => window.AutogradNotesSiteSearch.rank(q).map(r => r[0]))",
            [question["question"] for question in asked],
        )
        for question, pages in zip(asked, ranked, strict=True):
            quality.asked += 1
            answering = set(question["pages"])
            if pages and pages[0] in answering:
                quality.first += 1
            if answering.intersection(pages[:3]):
                quality.top_three += 1
            else:
                quality.missed.append(f"{question['question']!r}: {pages[:3]}")
    return quality
