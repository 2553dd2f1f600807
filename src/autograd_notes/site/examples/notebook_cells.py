"""A notebook's code cells show what the page shows: no display of a cell's last value.

The site captures what an example prints, never the value of a cell's last
expression (``capture_repr = ()`` in ``docs/conf.py``): a cell that ends with
``model.train()`` shows nothing on its page. Jupyter displays that value
(``Sequential((0): Linear(...) ...)``) under the cell. A trailing semicolon is
Jupyter's own way to say "do not display": the downloaded notebook gets one
after such a last expression, and nothing else of the code changes (no line
moves, so tracebacks name the same lines).
"""

from __future__ import annotations

import ast

__all__ = ["quiet_last_expression"]

_SHOWS_NOTHING = frozenset({"print", "show", "display", "check", "show_state"})
"""Calls whose value is None (Python's, matplotlib's, Jupyter's and the helpers' that return nothing):
a semicolon after them would only puzzle a reader."""


def _shows_nothing(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
    return name in _SHOWS_NOTHING


def quiet_last_expression(code: str) -> str:
    """``code``, a semicolon after its last statement where that is an expression Jupyter would show."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    if not tree.body or not isinstance(tree.body[-1], ast.Expr) or _shows_nothing(tree.body[-1].value):
        return code
    last = tree.body[-1]
    if last.end_lineno is None or last.end_col_offset is None:
        return code
    lines = code.split("\n")
    row = last.end_lineno - 1
    # end_col_offset counts UTF-8 bytes: the column in characters is where those bytes end
    line = lines[row]
    column = len(line.encode("utf-8")[: last.end_col_offset].decode("utf-8"))
    if line[column:].lstrip().startswith(";"):
        return code  # quiet already
    lines[row] = line[:column] + ";" + line[column:]
    return "\n".join(lines)
