"""Each figure's smallest text, measured as it is saved and written into its PNG."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from autograd_notes.site.examples.figure_scraper import TEXT_KEY, add_png_text, png_texts, smallest_text_px


def test_the_smallest_visible_text_counts_tick_labels_included() -> None:
    figure, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.text(0.5, 0.5, "value", fontsize=12)
    ax.tick_params(labelsize=9)
    assert smallest_text_px(figure, 100) == pytest.approx(9 * 100 / 72)
    ax.text(0.1, 0.1, "7 pt", fontsize=7)
    assert smallest_text_px(figure, 200) == pytest.approx(7 * 200 / 72)
    plt.close(figure)


def test_hidden_empty_and_outside_text_does_not_count() -> None:
    figure = plt.figure(figsize=(4, 3))
    figure.text(0.5, 0.5, "shown", fontsize=11)
    figure.text(0.2, 0.2, "hidden", fontsize=3).set_visible(False)
    figure.text(0.3, 0.3, "   ", fontsize=3)
    figure.text(5.0, 5.0, "far outside", fontsize=3)
    assert smallest_text_px(figure, 72) == pytest.approx(11)
    assert smallest_text_px(plt.figure(), 72) is None
    plt.close("all")


def test_a_text_chunk_is_added_and_the_pixels_stay(tmp_path: Path) -> None:
    figure = plt.figure(figsize=(2, 1))
    figure.text(0.1, 0.5, "x.grad", fontsize=10)
    path = tmp_path / "figure.png"
    figure.savefig(path)
    plt.close(figure)
    before = np.asarray(Image.open(path))
    add_png_text(path, TEXT_KEY, "13.89")
    image = Image.open(BytesIO(path.read_bytes()))
    assert image.text[TEXT_KEY] == "13.89"  # Pillow reads the chunk: it is a valid PNG
    assert (np.asarray(image) == before).all()
    assert png_texts(path.read_bytes())[TEXT_KEY] == "13.89"


def test_a_file_that_is_not_a_png_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "figure.svg"
    path.write_text("<svg/>")
    with pytest.raises(ValueError, match=r"figure\.svg: not a PNG"):
        add_png_text(path, TEXT_KEY, "1")
