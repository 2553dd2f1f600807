"""A downloaded notebook shows what its page shows: no display of a cell's last value."""

from __future__ import annotations

import json

import pytest
from _site import LANGUAGES, Site

from autograd_notes.site.examples.notebook_cells import quiet_last_expression


def test_a_cells_last_value_is_not_displayed() -> None:
    assert quiet_last_expression("model = make()\nmodel.train()") == "model = make()\nmodel.train();"
    assert quiet_last_expression("model.train();") == "model.train();"  # once
    # a call that spans lines, a comment after it, text that is not ASCII before it
    code = 'x = "é"\ndraw_graph(\n    x,  # the value\n    "é",\n)  # done'
    assert quiet_last_expression(code) == 'x = "é"\ndraw_graph(\n    x,  # the value\n    "é",\n);  # done'


@pytest.mark.parametrize(
    "code",
    [
        "print(x)",
        "plt.show()",
        "check(x, 1)",
        "x = model.train()",
        "for i in range(2):\n    model(i)",
        "",
        "def (:",
    ],
)
def test_what_shows_nothing_or_is_no_expression_is_left_as_it_is(code: str) -> None:
    assert quiet_last_expression(code) == code


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_downloaded_notebook_cell_ends_with_a_value_jupyter_would_show(
    whole_site: Site, language: str
) -> None:
    notebooks = sorted((whole_site.html / language / "_downloads").rglob("plot_*.ipynb"))
    assert len(notebooks) >= 59
    shown = []
    for notebook in notebooks:
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            code = "".join(cell["source"])
            if cell["cell_type"] == "code" and quiet_last_expression(code) != code:
                shown.append((notebook.name, code.splitlines()[-1]))
    assert shown == []
