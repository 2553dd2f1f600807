"""The README is short and its numbers are true: examples, languages, releases.

A newcomer reads the README in two minutes; the maintainer guide
(``CONTRIBUTING.md``) holds the rest. Every count the two files state is
computed here from the tree, so that adding an example or a release cannot
leave a stale number behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDE = ROOT / "CONTRIBUTING.md"
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _examples() -> int:
    return len(list((ROOT / "gallery").glob("*/plot_*.py")))


def _languages() -> int:
    return 1 + len([p for p in (ROOT / "docs" / "locale").iterdir() if (p / "LC_MESSAGES").is_dir()])


def _releases() -> int:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return len(tomllib.load(file)["tool"]["autograd-notes"]["timeline-releases"])


def _stated(text: str, noun: str) -> list[int]:
    """Every count ``text`` states of ``noun``: "59 examples", "all 59 examples", "4 languages"."""
    counts = []
    for word in re.findall(rf"\b(\d+|{'|'.join(NUMBER_WORDS)})\s+(?:PyTorch\s+)?{noun}\b", text):
        counts.append(int(word) if word.isdigit() else NUMBER_WORDS[word])
    return counts


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the maintainer guide takes the rest"


def test_the_readme_links_the_maintainer_guide() -> None:
    assert "](CONTRIBUTING.md)" in README.read_text(encoding="utf-8")
    assert GUIDE.is_file()


@pytest.mark.parametrize("path", [README, GUIDE, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_every_count_of_examples_is_the_trees(path: Path) -> None:
    """Every "N examples" is the whole gallery (the guide also says "checked in two languages": a part)."""
    wrong = [count for count in _stated(path.read_text(encoding="utf-8"), "examples") if count != _examples()]
    assert not wrong, f"{path.name} says {wrong} examples; the gallery has {_examples()}"


def test_the_readme_states_the_counts() -> None:
    text = README.read_text(encoding="utf-8")
    assert _stated(text, "examples") == [_examples()]
    assert _stated(text, "languages") == [_languages()]
    assert _stated(text, "releases") == [_releases()]


def test_a_wrong_count_is_found() -> None:
    assert _stated(
        "The site has 49 examples, in four languages, across 12 PyTorch releases.", "examples"
    ) == [49]
    assert _stated("in four languages", "languages") == [4]
    assert _stated("across 12 PyTorch releases", "releases") == [12]
