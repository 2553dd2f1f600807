"""How well the "paste your error" matcher finds the page that explains an error users really posted.

Run with ``nox -s benchmark-errors``, or ``python benchmarks/error_search_quality.py`` in the tests'
environment.
It reads ``tests/site/error_holdout.json``: errors pasted in public GitHub issue threads, each with the
page that explains it (or none) and, where the thread's error is explained as well on other pages, those
(``also``), kept out of the records and the tests' cases. It prints, for the
matcher of :mod:`autograd_notes._explain.match` on the committed records:

* of the errors a page explains: how many get that page first (or a page of ``also``), how many
  in the top three, how many not at all;
* of the errors no page explains: how many get a page anyway (a false lead).

Issue 34's goals are printed beside them. Nothing is asserted: ``tests/site/test_error_search.py``
holds the floor the matcher must not fall below.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT / "tests" / "site" / "error_holdout.json"


@dataclass(frozen=True)
class Quality:
    """The matcher's results on the hold-out set."""

    explained: int
    first: int
    top_three: int
    unrelated: int
    false_leads: int
    missed: list[str]


def measure() -> Quality:
    """Rank every hold-out error against the committed records."""
    from autograd_notes._explain.match import rank, token_weights
    from autograd_notes.site.build.error_index import cell_messages, cell_quotes

    # as the box and explain rank them: each message with the cells (not lines) that raise it
    messages = cell_messages(ROOT)
    weights = token_weights(message.normalised for message in messages)
    quotes = cell_quotes(ROOT)
    cases = json.loads(HOLDOUT.read_text(encoding="utf-8"))
    first = top_three = false_leads = 0
    missed: list[str] = []
    for case in cases:
        found = rank(case["text"], messages, weights, quotes)
        if case["page"] is None:
            false_leads += bool(found)
            continue
        # first as the box lists them: the page, or one that explains it as well
        if found and found[0].page in {case["page"], *case.get("also", [])}:
            first += 1
        elif case["page"] in [match.page for match in found[:3]]:
            top_three += 1
        else:
            missed.append(f"{case['page']}: {case['text'][-90:]!r}")
    explained = sum(case["page"] is not None for case in cases)
    return Quality(explained, first, first + top_three, len(cases) - explained, false_leads, missed)


def main() -> int:
    quality = measure()
    print(f"errors a page explains   {quality.explained}")
    print(
        f"  page first             {quality.first:3d}  ({quality.first / quality.explained:.0%}; goal: 90%)"
    )
    print(f"  page in the top three  {quality.top_three:3d}  ({quality.top_three / quality.explained:.0%})")
    print(f"  page not found         {len(quality.missed):3d}  (goal: none)")
    print(f"errors no page explains  {quality.unrelated}")
    print(f"  given a page anyway    {quality.false_leads:3d}  (goal: none)")
    for line in quality.missed:
        print(f"  missed {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
