"""find_leaks and leak_patterns: what must never reach a published page."""

from __future__ import annotations

import getpass
import re
import sys
from pathlib import Path

import pytest

from autograd_notes.site.build.leaks import find_leaks, leak_patterns

CLEAN = """\
tensor([2., 4.], grad_fn=<MulBackward0>)
Traceback (most recent call last):
  File "gallery/05_inplace/plot_detach_inplace.py", line 31, in <module>
  [3 frames inside PyTorch: torch._tensor.backward > torch.autograd.backward]
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
node <MulBackward0> at 0x…, small 0x1f
"""


@pytest.fixture
def patterns() -> list[re.Pattern[str]]:
    return leak_patterns()


def test_clean_text_has_no_leaks(patterns: list[re.Pattern[str]]) -> None:
    assert find_leaks(CLEAN, patterns) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("saved in /home/alice/notes/fig.png", "saved in /home/alice/notes/fig.png"),
        ("open /Users/bob/x.py", "open /Users/bob/x.py"),
        ("File /root/.cache/x.py", "File /root/.cache/x.py"),
        (
            'File "/opt/py/lib/site-packages/torch/_tensor.py"',
            'File "/opt/py/lib/site-packages/torch/_tensor.py"',
        ),
        ("wrote /tmp/abc/out.txt", "wrote /tmp/abc/out.txt"),
        ("in .nox/docs/lib", "in .nox/docs/lib"),
        ("cell ipykernel_4242/1.py", "cell ipykernel_4242/1.py"),
        ("<Node object at 0x7f00aa11bb22>", "<Node object at 0x7f00aa11bb22>"),
    ],
)
def test_generic_leaks(patterns: list[re.Pattern[str]], text: str, found: str) -> None:
    leaks = find_leaks(text, patterns)
    assert leaks
    assert leaks[0] == found


def test_leak_is_reported_with_thirty_characters_of_context(patterns: list[re.Pattern[str]]) -> None:
    text = "x" * 40 + " value at 0xdeadbeef01 in\nthe   graph " + "y" * 40
    assert find_leaks(text, patterns) == [
        "xxxxxxxxxxxxxxxxxxxx value at 0xdeadbeef01 in the graph " + "y" * 14
    ]


def test_short_hex_numbers_are_not_addresses(patterns: list[re.Pattern[str]]) -> None:
    assert find_leaks("mask 0xff and 0x1234567", patterns) == []


def test_this_machines_python_prefix_leaks(patterns: list[re.Pattern[str]]) -> None:
    text = f"ran {sys.prefix}/bin/python"
    assert any(sys.prefix in leak for leak in find_leaks(text, patterns))


def test_extra_paths_are_leaks() -> None:
    text = "built from /srv/ci/autograd-notes/docs/conf.py"
    assert find_leaks(text, leak_patterns()) == []
    assert find_leaks(text, leak_patterns([Path("/srv/ci/autograd-notes")])) == [text]
    assert find_leaks(text, leak_patterns(["/srv/ci/autograd-notes"])) == [text]


def test_tmp_path_is_a_leak(tmp_path: Path) -> None:
    text = f"figure saved to {tmp_path}/fig.png"
    assert find_leaks(text, leak_patterns([tmp_path]))


def test_an_unusual_user_name_is_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: "zqx7")
    assert find_leaks("written by zqx7 today", leak_patterns()) == ["written by zqx7 today"]
    assert find_leaks("zqx7s is another word", leak_patterns()) == []


@pytest.mark.parametrize("user", ["root", "user", "runner", "docs", "build"])
def test_a_plain_word_user_name_is_not_a_leak(monkeypatch: pytest.MonkeyPatch, user: str) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: user)
    assert find_leaks(f"the {user} built the docs", leak_patterns()) == []


def test_at_most_five_leaks_are_reported(patterns: list[re.Pattern[str]]) -> None:
    text = "\n".join(f"item {n} at 0x7f00aa11bb2{n}" for n in range(8))
    leaks = find_leaks(text, patterns)
    assert len(leaks) == 5
    assert "0x7f00aa11bb20" in leaks[0]
