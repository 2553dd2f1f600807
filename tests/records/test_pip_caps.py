"""pip_caps: a constraint file of pip's that caps torch is found and said, with how to lift it.

Nothing is installed: pip's configuration is given as ``pip config list`` prints it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograd_notes.records.exchange.pip_caps import (
    LIFT,
    TorchCap,
    cap_message,
    pip_constraint_files,
    torch_caps,
)
from autograd_notes.records.history.releases import not_recorded

ROOT = Path(__file__).resolve().parents[2]
# as `pip config list` prints this project's machines' configuration
MACHINE = """:env:.cert='/etc/ssl/certs/ca-certificates.crt'
:env:.find-links='/opt/wheels'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
"""
CAPPED = "# These releases lie on this machine's disk.\ntorch<=2.14.1\ntorchvision<=0.29.1\n"
CONFIGURED = "pip's configuration (global.constraint)"


def test_the_constraint_file_of_pips_configuration_is_found() -> None:
    assert pip_constraint_files(MACHINE) == [("/etc/xdg/pip/constraints.txt", CONFIGURED)]


def test_pip_constraint_comes_first_and_lifts_the_configured_file() -> None:
    lifted = f":env:.constraint='/dev/null'\n{MACHINE}"
    assert pip_constraint_files(lifted) == [("/dev/null", "PIP_CONSTRAINT")]
    several = ":env:.constraint='/a.txt /b.txt'\n"
    assert pip_constraint_files(several) == [("/a.txt", "PIP_CONSTRAINT"), ("/b.txt", "PIP_CONSTRAINT")]


def test_an_empty_pip_constraint_lifts_nothing() -> None:
    """pip ignores a setting whose value is empty: the configured file still applies."""
    assert pip_constraint_files(f":env:.constraint=''\n{MACHINE}") == [
        ("/etc/xdg/pip/constraints.txt", CONFIGURED)
    ]


def test_the_install_section_comes_before_global() -> None:
    config = "global.constraint='/g.txt'\ninstall.constraint='/i.txt'\n"
    assert pip_constraint_files(config) == [("/i.txt", "pip's configuration (install.constraint)")]
    assert pip_constraint_files("global.index-url='https://x'\n") == []


def test_a_cap_that_rules_the_release_out_is_found() -> None:
    files = {"/etc/xdg/pip/constraints.txt": CAPPED}
    constraints = pip_constraint_files(MACHINE)
    assert torch_caps("2.15.0", constraints, files.__getitem__) == [
        TorchCap("/etc/xdg/pip/constraints.txt", CONFIGURED, "torch<=2.14.1")
    ]
    assert torch_caps("2.14.1", constraints, files.__getitem__) == [], "a release under the cap installs"
    assert torch_caps("2.4.1", constraints, files.__getitem__) == []


def test_files_that_cannot_be_read_and_lines_that_are_no_requirement_are_passed_over(tmp_path: Path) -> None:
    constraints = tmp_path / "c.txt"
    constraints.write_text(
        "-c other.txt\n\nnot a requirement ===\nTorch==2.13.0  # pinned\n", encoding="utf-8"
    )
    found = torch_caps("2.15.0", [(str(tmp_path / "missing.txt"), "x"), (str(constraints), "PIP_CONSTRAINT")])
    assert found == [TorchCap(str(constraints), "PIP_CONSTRAINT", "Torch==2.13.0")]


def test_the_message_names_the_file_its_line_and_how_to_lift_it_for_one_command() -> None:
    cap = TorchCap("/etc/xdg/pip/constraints.txt", CONFIGURED, "torch<=2.14.1")
    message = cap_message("2.15.0", [cap])
    assert message.startswith(
        "pip cannot install torch 2.15.0 here: a constraint file caps torch: /etc/xdg/pip/constraints.txt "
        "(from pip's configuration (global.constraint)) says torch<=2.14.1. "
    )
    assert f"`{LIFT} nox -s timeline -- 2.15.0 --installer pip`" in message
    assert "an empty PIP_CONSTRAINT lifts nothing" in message
    assert "conflicting dependencies" not in message
    assert LIFT == "PIP_CONSTRAINT=/dev/null"


@pytest.mark.parametrize(
    ("failed", "tried", "said"),
    [
        (["2.15.0"], ["2.15.0"], "torch 2.15.0: not recorded (see above); no release was"),
        (["2.15.0"], ["2.14.1", "2.15.0"], "torch 2.15.0: not recorded (see above); torch 2.14.1 was"),
        (
            ["2.4.1"],
            ["2.4.1", "2.5.1", "2.6.0"],
            "torch 2.4.1: not recorded (see above); torch 2.5.1, 2.6.0 were",
        ),
    ],
)
def test_the_timeline_never_says_releases_were_recorded_when_none_was(
    failed: list[str], tried: list[str], said: str
) -> None:
    assert not_recorded(failed, tried) == said


def _calls(function: str) -> list[str]:
    """The source of every call inside noxfile.py's ``function``."""
    source = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    (defined,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function]
    return [
        ast.get_source_segment(source, node) or "" for node in ast.walk(defined) if isinstance(node, ast.Call)
    ]


def test_the_timeline_checks_pips_cap_and_shows_pips_reason() -> None:
    """The release environment asks for the cap before pip installs, and pip's output is not hidden."""
    calls = _calls("_release_env")
    assert any(call.startswith("_pip_cap(") for call in calls)
    installs = [call for call in calls if '"-m", "pip", "install"' in call]
    assert installs, calls
    assert all('"-q"' not in call and "silent=True" in call for call in installs), installs
    assert any("PIP_CAPS.torch_caps(" in call for call in _calls("_pip_cap"))
