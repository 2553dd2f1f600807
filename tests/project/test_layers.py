"""No import circle anywhere in the package: between modules, and between the children of any package.

import-linter's contracts (``nox -s lint``) say which layer may import which;
this test reads the same graph (grimp, import-linter's engine), with the
imports made inside functions and under ``TYPE_CHECKING`` counted, and fails
naming the circle. A circle hidden by a late import is still a circle: the
two modules cannot be understood, tested or moved apart.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import grimp
import pytest

PACKAGE = "autograd_notes"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, cache_dir=None)


def _packages(graph: grimp.ImportGraph) -> list[str]:
    return sorted(module for module in graph.modules if graph.find_children(module))


def test_no_module_imports_itself_back(graph: grimp.ImportGraph) -> None:
    circles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            chain = graph.find_shortest_chain(importer=imported, imported=module)
            if chain is not None:
                circles.append(" -> ".join((module, *chain)))
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_no_two_children_of_a_package_import_each_other(graph: grimp.ImportGraph) -> None:
    circles = []
    for package in _packages(graph):
        children = sorted(graph.find_children(package))
        for first, second in itertools.combinations(children, 2):
            if graph.chain_exists(first, second, as_packages=True) and graph.chain_exists(
                second, first, as_packages=True
            ):
                circles.append(f"{first} <-> {second}")
    assert not circles, "children of one package that import each other:\n" + "\n".join(circles)


def test_the_graph_sees_late_imports(graph: grimp.ImportGraph) -> None:
    """The circles above are looked for in every import, the late ones included."""
    details = graph.get_import_details(
        importer=f"{PACKAGE}.records.capture.isolated", imported=f"{PACKAGE}.records.capture.cells"
    )
    assert details, "isolated.py's function-level import of cells is in the graph"


LARGEST_MODULE = 400  # lines
LARGEST_FOLDER = 20  # modules


def test_no_module_is_over_400_lines_and_no_folder_over_20_modules() -> None:
    """A module holds one job and a folder a handful (issue 32): past these, split by job."""
    source = Path(__file__).resolve().parents[2] / "src" / "autograd_notes"
    modules = [path for path in source.rglob("*.py") if "__pycache__" not in path.parts]
    long = {
        str(path.relative_to(source)): lines
        for path in modules
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LARGEST_MODULE
    }
    assert not long, f"modules over {LARGEST_MODULE} lines: {long}"
    folders = Counter(str(path.parent.relative_to(source)) for path in modules)
    crowded = {folder: count for folder, count in folders.items() if count > LARGEST_FOLDER}
    assert not crowded, f"folders over {LARGEST_FOLDER} modules: {crowded}"
