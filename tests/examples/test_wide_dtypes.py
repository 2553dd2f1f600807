"""An example that puts ``float64`` or ``complex128`` on its device says so: ``runner_device(torch.float64)``.

MPS has no ``float64``: ``runner_device`` then runs the example on the CPU
and says why (tests/helpers/test_device.py). That works only if the example
names the dtypes it needs. This reads every gallery script (its syntax, not
its run: the CPU runner holds every dtype) for a wide dtype put on the
runner's device:

* a call with ``dtype=torch.float64`` (``double``, ``complex128``,
  ``cdouble``) and ``device=device``;
* ``.double()`` or ``.to(torch.float64)`` on a name that holds something put
  on the device (assigned from an expression that names ``device``), unless
  a ``.cpu()`` comes first.

Each such script must pass those dtypes to ``runner_device``, and a script
that passes one must use it so.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "gallery").glob("*/plot_*.py"))
WIDE = {"float64": "float64", "double": "float64", "complex128": "complex128", "cdouble": "complex128"}


def _wide(node: ast.AST | None) -> str | None:
    """``float64`` or ``complex128`` for ``torch.float64`` and its aliases, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        return WIDE.get(node.attr)
    return None


def _names_device(node: ast.AST) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id == "device" for sub in ast.walk(node))


def _root(node: ast.AST) -> tuple[ast.AST, bool]:
    """The name (or call) a chain of attributes and calls starts from, and whether ``.cpu()`` is in it."""
    moved_to_cpu = False
    while True:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "cpu":
                moved_to_cpu = True
            node = node.func
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return node, moved_to_cpu


def wide_on_device(source: str) -> dict[str, list[int]]:
    """The wide dtypes the script puts on its device, each with the lines where it does."""
    tree = ast.parse(source)
    on_device = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _names_device(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        dtype = _wide(keywords.get("dtype"))
        if dtype and isinstance(keywords.get("device"), ast.Name) and keywords["device"].id == "device":
            found.setdefault(dtype, []).append(node.lineno)
            continue
        if not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        if method == "double":
            dtype = "float64"
        else:
            dtype = _wide(node.args[0]) if method == "to" and node.args else None
        if dtype is None:
            continue
        root, moved_to_cpu = _root(node.func.value)
        if not moved_to_cpu and isinstance(root, ast.Name) and root.id in on_device:
            found.setdefault(dtype, []).append(node.lineno)
    return found


def declared(source: str) -> set[str]:
    """The dtypes the script passes to ``runner_device(...)``."""
    return {
        dtype
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "runner_device"
        for dtype in map(_wide, node.args)
        if dtype
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_a_wide_dtype_on_the_device_is_declared_and_a_declared_one_is_used(script: Path) -> None:
    source = script.read_text(encoding="utf-8")
    used = wide_on_device(source)
    assert set(used) == declared(source), (
        f"{script.relative_to(ROOT)}: puts {used or 'no wide dtype'} (dtype: lines) on its device, "
        f"but runner_device() names {sorted(declared(source)) or 'none'}"
    )


def test_the_reading_finds_each_way_and_leaves_the_cpus_alone() -> None:
    source = """
device = runner_device()
a = torch.zeros(3, dtype=torch.float64, device=device)
layer = nn.Linear(2, 2).to(device)
layer.to(torch.float64)
inputs = torch.randn(2, device=device)
inputs.double()
c = torch.tensor(1j, dtype=torch.cdouble, device=device)
here = torch.randn(3)
here.double()
inputs.cpu().double()
torch.randn(3).to(torch.float64)
b = torch.zeros(3, dtype=torch.float64)
"""
    assert wide_on_device(source) == {"float64": [3, 5, 7], "complex128": [8]}
    assert declared("device = runner_device(torch.float64, torch.cdouble)") == {"float64", "complex128"}
    assert declared("device = runner_device()") == set()


def test_the_gallery_has_examples_that_need_float64() -> None:
    needing = [script.stem for script in SCRIPTS if wide_on_device(script.read_text(encoding="utf-8"))]
    assert "plot_gradcheck" in needing
    assert "plot_complex_gradients" in needing
