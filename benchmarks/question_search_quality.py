"""How often the site search puts a page that answers a question readers asked in public first.

Run with ``nox -s benchmark-questions`` after ``nox -s docs`` (it reads ``build/html``), or
``python benchmarks/question_search_quality.py [SITE]`` in the tests' environment. It serves the
built site on loopback and ranks every question of ``tests/site/question_holdout.json`` on its
language's search page in Chromium (``tests/_question_search.py``, the measure the tests use), and
prints how many get an answering page first and in the top three, with issue 34's goals, and the
questions that get none in the top three. Nothing is asserted: ``tests/site/test_site_search.py``
holds the floor.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import importlib  # noqa: E402

# the tests' own server, browser and measure (imported by name: the lint environment has no browser)
_browser = importlib.import_module("_browser")
_question_search = importlib.import_module("_question_search")


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "html"
    with _browser.serve(site) as server, _browser.launch() as browser:
        page = browser.new_page()
        quality = _question_search.measure(page, lambda language: server.url(language, "search.html"))
    print(f"questions                {quality.asked}")
    print(f"  answering page first   {quality.first:3d}  ({quality.first / quality.asked:.0%}; goal: 75%)")
    share = quality.top_three / quality.asked
    print(f"  in the top three       {quality.top_three:3d}  ({share:.0%}; goal: 90%)")
    for line in quality.missed:
        print(f"  missed {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
