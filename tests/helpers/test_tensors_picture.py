"""tensor_layout and draw_tensors: which tensors share memory, with their versions and grad_fn."""

from __future__ import annotations

import re

import matplotlib
import pytest
import torch
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from autograd_notes import draw_tensors
from autograd_notes._figure_style import CARD, PALETTE, contrast, text_shade
from autograd_notes._tensors_picture import tensor_layout

matplotlib.use("agg")


def views_and_copies() -> dict[str, torch.Tensor]:
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = a * 2
    return {"a": a, "y": y, "v": y[1:3], "d": y.detach(), "y.data": y.data, "c": y.clone()}


def test_views_detach_and_data_share_their_base_storage_and_a_copy_does_not() -> None:
    layout = tensor_layout(views_and_copies())
    assert [[row.name for row in view.tensors] for view in layout] == [
        ["a"],
        ["y", "v", "d", "y.data"],
        ["c"],
    ]
    shared = layout[1]
    assert shared.size == 4
    assert shared.values == ("2.", "4.", "6.", "8.")
    assert {row.name: sorted(row.cells) for row in shared.tensors} == {
        "y": [0, 1, 2, 3],
        "v": [1, 2],
        "d": [0, 1, 2, 3],
        "y.data": [0, 1, 2, 3],
    }


def test_the_facts_are_code_shape_version_and_grad_fn() -> None:
    tensors = views_and_copies()
    tensors["d"].add_(1)  # bumps the counter that y, v and d share; .data has its own
    facts = {row.name: row.facts for view in tensor_layout(tensors) for row in view.tensors}
    assert facts == {
        "a": "[4] v0 requires_grad",
        "y": "[4] v1 MulBackward0",
        # a view whose base was written in place gets a fresh grad_fn when read
        "v": "[2] v1 AsStridedBackward0",
        "d": "[4] v1",
        "y.data": "[4] v0",
        "c": "[4] v0 CloneBackward0",
    }


def test_strided_and_transposed_views_cover_the_right_cells() -> None:
    base = torch.arange(6.0).reshape(2, 3)
    layout = tensor_layout({"base": base, "t": base.t(), "col": base[:, 1], "step": base.flatten()[::2]})
    cells = {row.name: sorted(row.cells) for row in layout[0].tensors}
    assert cells == {"base": [0, 1, 2, 3, 4, 5], "t": [0, 1, 2, 3, 4, 5], "col": [1, 4], "step": [0, 2, 4]}
    assert len(layout) == 1


def test_an_empty_tensor_and_an_inference_tensor() -> None:
    with torch.inference_mode():
        frozen = torch.ones(2)
    layout = tensor_layout({"e": torch.ones(0), "f": frozen})
    assert [view.tensors[0].facts for view in layout] == ["[0] v0", "[2] is_inference"]
    assert layout[0].tensors[0].cells == frozenset()


def test_meta_tensors_have_no_values() -> None:
    layout = tensor_layout({"m": torch.ones(3, device="meta")})
    assert layout[0].values is None
    assert layout[0].tensors[0].facts == "[3] v0 meta"


def texts(figure: Figure) -> list[str]:
    return [text.get_text() for text in figure.axes[0].texts]


def test_the_figure_draws_a_strip_per_storage_and_a_row_per_tensor() -> None:
    figure = draw_tensors(views_and_copies(), title="y = a * 2")
    drawn = texts(figure)
    for name in ["a", "y", "v", "d", "y.data", "c"]:
        assert name in drawn
    assert "[2] v0 SliceBackward0" in drawn
    assert drawn.count("1.") == 1
    assert drawn.count("8.") == 2  # a's storage, then y's and c's
    rectangles = [p for p in figure.axes[0].patches if isinstance(p, Rectangle)]
    # 3 storages × 4 cells, then the covered cells: a 4, y 4, v 2, d 4, y.data 4, c 4
    assert len(rectangles) == 12 + 22
    assert figure._suptitle is not None
    assert figure._suptitle.get_text() == "y = a * 2"
    assert to_hex(figure.get_facecolor()) == "#ffffff"  # readable in dark mode


def test_a_long_storage_is_a_bar_with_its_length() -> None:
    big = torch.zeros(100)
    figure = draw_tensors({"big": big, "s": big[10:60:2]})
    assert "× 100" in texts(figure)
    assert not any(re.fullmatch(r"0\.", t) for t in texts(figure))  # no values for 100 cells


def test_every_text_fits_in_the_figure() -> None:
    figure = draw_tensors(views_and_copies(), title="y = a * 2")
    renderer = figure.canvas.get_renderer()
    frame = figure.bbox
    for text in [*figure.axes[0].texts, figure._suptitle]:
        assert text is not None
        extent = text.get_window_extent(renderer)
        assert frame.x0 <= extent.x0
        assert extent.x1 <= frame.x1, text.get_text()
        assert frame.y0 <= extent.y0
        assert extent.y1 <= frame.y1, text.get_text()


def test_nothing_to_draw_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one named tensor"):
        draw_tensors({})


def test_every_text_reads_on_the_card_and_names_keep_their_colours_hue() -> None:
    """WCAG AA (4.5:1) for every letter; a name's light palette colour (orange, sky blue) is darkened."""
    many = {f"t{i}": torch.zeros(2) for i in range(len(PALETTE))}  # a row, and a colour, per tensor
    figure = draw_tensors(many)
    names = {text.get_text(): to_hex(text.get_color()) for text in figure.axes[0].texts}
    for text in figure.axes[0].texts:
        assert contrast(to_hex(text.get_color()), CARD) >= 4.5, (text.get_text(), text.get_color())
    boxes = {to_hex(patch.get_facecolor()) for patch in figure.axes[0].patches}
    for number, name in enumerate(many):
        tint = PALETTE[number]
        assert tint in boxes  # the boxes keep the palette's own colour
        assert names[name] == text_shade(tint)
    assert names["t1"] != PALETTE[1]  # the orange, 2.25:1 on white as it is


def test_a_shade_is_the_colour_itself_where_it_reads_and_never_lighter() -> None:
    for colour in PALETTE:
        shade = text_shade(colour)
        assert contrast(shade, CARD) >= 4.5
        if contrast(colour, CARD) >= 4.5:
            assert shade == colour
        assert all(int(shade[i : i + 2], 16) <= int(colour[i : i + 2], 16) for i in (1, 3, 5))
    assert round(contrast("#000000", "#ffffff"), 6) == 21.0
