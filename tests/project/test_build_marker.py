"""The ``build`` marker finds every test that builds, however it builds, and no other."""

from __future__ import annotations

import types
from typing import Any

import pytest
from _markers import builds


def _module() -> types.ModuleType:
    module = types.ModuleType("test_fake")
    source = """
import pytest
from _site import sphinx_build

def helper(project):
    return sphinx_build(project)

def indirect(project):
    return [helper(project)]

@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    return indirect(tmp_path_factory.mktemp("x"))

def test_direct(tmp_path):
    sphinx_build(tmp_path)

def test_through_helpers(tmp_path):
    indirect(tmp_path)

def test_through_a_fixture(built_site):
    assert built_site

def test_in_a_nested_function(tmp_path):
    def inner():
        return helper(tmp_path)
    inner()

def test_plain():
    assert 1 + 1 == 2
"""
    exec(compile(source, "test_fake.py", "exec"), module.__dict__)
    return module


def _item(module: types.ModuleType, name: str, fixtures: list[str]) -> Any:
    return types.SimpleNamespace(module=module, function=getattr(module, name), fixturenames=fixtures)


@pytest.mark.parametrize(
    ("name", "fixtures", "expected"),
    [
        ("test_direct", ["tmp_path"], True),
        ("test_through_helpers", ["tmp_path"], True),
        ("test_through_a_fixture", ["built_site", "tmp_path_factory"], True),
        ("test_in_a_nested_function", ["tmp_path"], True),
        ("test_plain", [], False),
    ],
)
def test_a_test_that_builds_is_marked(name: str, fixtures: list[str], expected: bool) -> None:
    assert builds(_item(_module(), name, fixtures)) is expected


def test_the_whole_site_and_the_torch_environment_build() -> None:
    module = _module()
    assert builds(_item(module, "test_plain", ["whole_site"]))
    assert builds(_item(module, "test_plain", ["torch_site", "tmp_path"]))


def test_the_suite_marks_its_builders(request: pytest.FixtureRequest) -> None:
    """In this very run: a whole-site test is marked, this one is not."""
    marked = {item.name: item.get_closest_marker("build") is not None for item in request.session.items}
    assert marked[request.node.name] is False
    reads_the_site = [
        item for item in request.session.items if "whole_site" in getattr(item, "fixturenames", ())
    ]
    assert all(item.get_closest_marker("build") for item in reads_the_site)
