"""autograd_graph and draw_graph: the graph below a tensor, what its nodes saved, and its picture."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display needed

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.text import Text
from torch import nn

from autograd_notes import AutogradGraph, autograd_graph, draw_graph
from autograd_notes._graph.drawing import _GAP_X, _PASS_WIDTH, _box_size
from autograd_notes._graph.layout import columns
from autograd_notes._graph.model import SavedTensor


@pytest.fixture(autouse=True)
def close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def add_then_square(value: float = 3.0) -> dict[str, torch.Tensor]:
    x = torch.tensor(value, requires_grad=True)
    y = x + 1
    z = y**2
    return {"x": x, "y": y, "z": z}


def unrolled_chain() -> dict[str, torch.Tensor]:
    a = nn.Parameter(torch.tensor([[2.0]]))
    d = nn.Parameter(torch.tensor(3.0))
    state = a.clone()
    steps = []
    for _ in range(2):
        new = state[[0], :] * d
        state[0] = new
        steps.append(new)
    loss = steps[0].sum() + steps[1].sum()
    return {"a": a, "d": d, "state": state, "e1": steps[0], "e2": steps[1], "loss": loss}


# -- The model ------------------------------------------------------------------------


def test_add_then_square() -> None:
    t = add_then_square()
    assert autograd_graph(t["z"], names=t).text() == (
        "1 PowBackward0 (z)\n"
        "    saved self (y) [] v0\n"
        "    saved exponent=2\n"
        "    → 2 AddBackward0 (y)\n"
        "2 AddBackward0 (y)\n"
        "    saved alpha=1\n"
        "    → 3 leaf x\n"
        "3 leaf x\n"
        "    [] requires_grad=True"
    )


def test_without_names_nothing_is_named() -> None:
    t = add_then_square()
    graph = autograd_graph(t["z"])
    assert [node.title for node in graph.nodes] == ["PowBackward0", "AddBackward0", "leaf"]
    assert graph.nodes[0].saved == (SavedTensor("self", "saved", shape=(), version=0),)
    assert graph.nodes[2].name == "torch::autograd::AccumulateGrad"
    assert graph.nodes[2].is_leaf
    assert (graph.nodes[2].shape, graph.nodes[2].requires_grad) == ((), True)


def test_detach_zero_marks_the_saved_tensor_with_its_versions() -> None:
    t = add_then_square()
    t["y"].detach().zero_()
    graph = autograd_graph(t["z"], names=t)
    (saved,) = graph.nodes[0].saved
    assert saved == SavedTensor("self", "modified", shape=(), version=1, saved_version=0, tensor="y")
    assert graph.nodes[0].modified
    assert not graph.nodes[1].modified
    assert graph.modified == ["PowBackward0 (z): saved self (y) [] v1 ≠ v0"]
    assert graph.nodes[0].lines[0] == "saved self (y) [] v1 ≠ v0 ← modified in place"
    # what the graph predicts is what backward then says
    with pytest.raises(RuntimeError, match=r"output 0 of Add, is at version 1; expected version 0"):
        t["z"].backward()


def test_reading_the_graph_changes_nothing() -> None:
    t = add_then_square()
    autograd_graph(t["z"], names=t)
    t["z"].backward()
    assert t["x"].grad is not None
    assert t["x"].grad.item() == 8.0


def test_edit_through_data_is_not_marked() -> None:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    graph = autograd_graph(out.sum(), names={"a": a, "out": out})
    assert graph.modified == []
    assert graph.nodes[1].lines == ("saved result (out) [3] v0",)


def test_edit_through_detach_marks_a_saved_result() -> None:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out_detached = out.detach()
    out_detached.zero_()
    graph = autograd_graph(out.sum(), names={"a": a, "out": out, "out_detached": out_detached})
    # the detached alias shares the memory but is not what the node saved
    assert graph.modified == ["SigmoidBackward0 (out): saved result (out) [3] v1 ≠ v0"]


def test_linear_combination_saves_nothing_that_the_edit_touches() -> None:
    x = torch.tensor(3.0, requires_grad=True)
    y1 = x + 1
    y2 = x**2
    z = 3 * y1 + 4 * y2
    y2.detach().zero_()
    graph = autograd_graph(z, names={"x": x, "y1": y1, "y2": y2, "z": z})
    assert graph.modified == []
    by_title = {node.title: node for node in graph.nodes}
    assert by_title["PowBackward0 (y2)"].lines == ("saved self (x) [] v0", "saved exponent=2")
    # 3 * y1 and 4 * y2 saved the wrapped numbers, not y1 or y2
    assert [node.lines for node in graph.nodes if node.label == "MulBackward0"] == [
        ("saved other [] v0",),
        ("saved other [] v0",),
    ]


def test_squared_again_the_edited_tensor_is_saved_and_marked() -> None:
    x = torch.tensor(3.0, requires_grad=True)
    y1 = x + 1
    y2 = x**2
    z = 3 * y1 + 4 * y2**2
    y2.detach().zero_()
    graph = autograd_graph(z, names={"y2": y2})
    assert graph.modified == ["PowBackward0: saved self (y2) [] v1 ≠ v0"]


def test_saved_values_are_shown_compactly_and_sizes_left_out() -> None:
    x = torch.ones(2, 3, requires_grad=True)
    graph = autograd_graph(x.softmax(-1).sum())
    assert graph.nodes[1].lines == ("saved result [2, 3] v0", "saved dim=-1")  # not 2**64 - 1
    assert graph.nodes[0].lines == ()  # SumBackward0 saved only the input's sizes


def test_saved_tensors_are_freed_by_backward() -> None:
    t = add_then_square()
    t["z"].backward()
    graph = autograd_graph(t["z"], names=t)
    assert graph.nodes[0].saved == (SavedTensor("self", "freed"),)
    assert graph.nodes[0].lines == ("saved self: freed by backward()", "saved exponent=2")
    assert graph.modified == []


def test_retain_graph_keeps_them() -> None:
    t = add_then_square()
    t["z"].backward(retain_graph=True)
    assert autograd_graph(t["z"]).nodes[0].saved == (SavedTensor("self", "saved", shape=(), version=0),)


def test_a_leaf_edited_under_no_grad() -> None:
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    q = w * w
    with torch.no_grad():
        w.add_(1)
    graph = autograd_graph(q, names={"w": w})
    assert graph.modified == [
        "MulBackward0: saved other (w) [2] v1 ≠ v0",
        "MulBackward0: saved self (w) [2] v1 ≠ v0",
    ]


def test_the_unrolled_copyslices_chain() -> None:
    t = unrolled_chain()
    graph = autograd_graph(t["loss"], names=t)
    assert [node.title for node in graph.nodes] == [
        "AddBackward0 (loss)",
        "SumBackward0",
        "SumBackward0",
        "MulBackward0 (e2)",
        "IndexBackward0",
        "CopySlices",
        "ExpandBackward0",
        "ViewBackward0",
        "MulBackward0 (e1)",
        "IndexBackward0",
        "CloneBackward0",
        "leaf a",
        "leaf d",
    ]
    assert graph.modified == []
    # the multiplications saved copies of the row, not `state` (which no node saved)
    multiplications = [node for node in graph.nodes if node.label == "MulBackward0"]
    assert [node.lines for node in multiplications] == [("saved other (d) [] v0", "saved self [1, 1] v0")] * 2
    assert "state" not in graph.text()
    copy_slices = graph.nodes[5]
    assert copy_slices.name == "torch::autograd::CopySlices"
    assert [graph.nodes[i].title for i in copy_slices.next] == ["ExpandBackward0", "CloneBackward0"]


def test_the_chain_with_a_view_is_marked_before_backward() -> None:
    a = nn.Parameter(torch.tensor([[2.0]]))
    d = nn.Parameter(torch.tensor(3.0))
    state = a.clone()
    steps = []
    for _ in range(2):
        new = state[0:1] * d
        state[0] = new
        steps.append(new)
    graph = autograd_graph(steps[0].sum() + steps[1].sum(), names={"d": d})
    assert graph.modified == [
        "MulBackward0: saved self [1, 1] v2 ≠ v1",
        "MulBackward0: saved self [1, 1] v2 ≠ v0",
    ]


def test_shared_nodes_and_edges_appear_once() -> None:
    x = torch.ones(2, requires_grad=True)
    h = x.exp()
    q = torch.cat([h, h.sin(), x * x]).sum()
    graph = autograd_graph(q, names={"x": x, "h": h})
    titles = [node.title for node in graph.nodes]
    assert titles.count("ExpBackward0 (h)") == 1
    assert titles.count("leaf x") == 1
    square = next(
        node for node in graph.nodes if node.lines == ("saved other (x) [2] v0", "saved self (x) [2] v0")
    )
    assert [graph.nodes[i].title for i in square.next] == ["leaf x"]  # x * x: one edge, not two
    assert all(len(set(node.next)) == len(node.next) for node in graph.nodes)


def test_rows_put_the_root_on_top_and_the_leaves_at_the_bottom() -> None:
    graph = autograd_graph(unrolled_chain()["loss"])
    layers = [node.layer for node in graph.nodes]
    assert layers[0] == 0
    assert layers == sorted(layers)  # nodes are numbered row by row
    bottom = max(layers)
    assert {node.layer for node in graph.nodes if node.is_leaf} == {bottom}
    assert all(graph.nodes[t].layer > node.layer for node in graph.nodes for t in node.next)
    # an edge that skips rows has a slot in each row it passes through
    for index, node in enumerate(graph.nodes):
        for target in node.next:
            for layer in range(node.layer + 1, graph.nodes[target].layer):
                assert (index, target) in graph.rows[layer]
    assert sorted(s for row in graph.rows for s in row if isinstance(s, int)) == list(range(len(graph.nodes)))


def test_names_match_by_identity_and_by_grad_fn() -> None:
    w = nn.Parameter(torch.tensor([1.0, 2.0]))
    v = w * 2
    alias = v.view(2)
    copy = w.detach().clone()
    graph = autograd_graph(alias.sum(), names={"w": w, "v": v, "also v": v, "copy": copy, "alias": alias})
    assert [node.title for node in graph.nodes] == [
        "SumBackward0",
        "ViewBackward0 (alias)",
        "MulBackward0 (v, also v)",
        "leaf w",
    ]


def test_a_custom_function_shows_what_it_saved_for_backward() -> None:
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx: torch.autograd.function.FunctionCtx, inp: torch.Tensor) -> torch.Tensor:
            ctx.save_for_backward(inp)
            ctx.kept = inp  # a plain attribute: not saved, not checked
            return inp * inp

        @staticmethod
        def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
            raise NotImplementedError

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x + 1
    z = Square.apply(y)
    graph = autograd_graph(z, names={"y": y, "z": z})
    assert graph.nodes[0].title == "SquareBackward (z)"
    assert graph.nodes[0].lines == ("saved tensors[0] (y) [3] v0",)
    y.detach().zero_()
    # a list that fails the version check is reported as a whole, with the error's shape and versions
    assert autograd_graph(z).modified == ["SquareBackward: saved tensors [3] v1 ≠ v0"]


def test_a_tensor_without_grad_fn_has_no_graph() -> None:
    with pytest.raises(ValueError, match="has no grad_fn"):
        autograd_graph(torch.ones(2, requires_grad=True))
    with pytest.raises(ValueError, match="has no grad_fn"):
        draw_graph(torch.ones(2))


def test_the_model_holds_no_tensors() -> None:
    t = add_then_square()
    graph = autograd_graph(t["z"], names=t)
    for node in graph.nodes:
        for value in vars(node).values():
            assert not isinstance(value, torch.Tensor)
        for saved in node.saved:
            assert not any(isinstance(v, torch.Tensor) for v in vars(saved).values())


# -- The picture ----------------------------------------------------------------------


def texts(figure: Figure) -> list[str]:
    return [text.get_text() for text in figure.axes[0].texts]


def test_the_figure_shows_every_line_of_the_text_form() -> None:
    t = add_then_square()
    t["y"].detach().zero_()
    graph = autograd_graph(t["z"], names=t)
    figure = draw_graph(graph)
    assert isinstance(figure, Figure)
    patches = figure.axes[0].patches
    assert sum(isinstance(p, FancyBboxPatch) for p in patches) == len(graph.nodes) == 3
    assert sum(isinstance(p, FancyArrowPatch) for p in patches) == 2
    # the same facts as the text form, without its words (the page's text says them, translated)
    assert texts(figure) == [
        "PowBackward0 (z)",
        "⚠ self (y) [] v1 ≠ v0",
        "exponent=2",
        "AddBackward0 (y)",
        "alpha=1",
        "AccumulateGrad (x)",
        "[] requires_grad=True",
    ]
    assert figure._suptitle is None


def test_the_modified_line_and_its_node_are_red() -> None:
    t = add_then_square()
    t["y"].detach().zero_()
    figure = draw_graph(t["z"], names=t)
    red = "#b91c1c"
    colours = {text.get_text(): to_hex(text.get_color()) for text in figure.axes[0].texts}
    assert colours["⚠ self (y) [] v1 ≠ v0"] == red
    assert colours["exponent=2"] != red
    boxes = [p for p in figure.axes[0].patches if isinstance(p, FancyBboxPatch)]
    assert [to_hex(box.get_edgecolor()) == red for box in boxes] == [True, False, False]


def test_nothing_is_marked_when_nothing_changed() -> None:
    figure = draw_graph(add_then_square()["z"])
    assert not any("⚠" in text or "modified" in text for text in texts(figure))


def test_freed_tensors_are_drawn_as_freed() -> None:
    t = add_then_square()
    t["z"].backward()
    drawn = draw_graph(t["z"])
    assert "self ∅" in texts(drawn)
    freed = next(text for text in drawn.axes[0].texts if text.get_text() == "self ∅")
    assert to_hex(freed.get_color()) == "#6b7280"


def test_the_figure_has_no_addresses_and_is_deterministic() -> None:
    first = draw_graph(unrolled_chain()["loss"], title="two steps")
    second = draw_graph(unrolled_chain()["loss"], title="two steps")
    assert texts(first) == texts(second)
    assert [t.get_position() for t in first.axes[0].texts] == [t.get_position() for t in second.axes[0].texts]
    assert tuple(first.get_size_inches()) == tuple(second.get_size_inches())
    for text in [*texts(first), first._suptitle.get_text() if first._suptitle else ""]:
        assert not re.search(r"0x[0-9a-f]+|object at|\bid\b", text), text


def test_the_size_grows_with_the_graph() -> None:
    small = draw_graph(add_then_square()["z"]).get_size_inches()
    large = draw_graph(unrolled_chain()["loss"]).get_size_inches()
    assert large[1] > small[1]
    assert large[0] > small[0]


def test_a_title_is_the_figure_title() -> None:
    figure = draw_graph(add_then_square()["z"], title="z = (x + 1)**2")
    assert figure._suptitle is not None
    assert figure._suptitle.get_text() == "z = (x + 1)**2"
    assert "z = (x + 1)**2" not in texts(figure)


def test_drawing_does_not_show_and_leaves_the_figure_to_pyplot() -> None:
    figure = draw_graph(add_then_square()["z"])
    assert plt.get_fignums() == [figure.number]  # sphinx-gallery's scraper finds it there


def test_every_text_fits_in_its_box_and_in_the_figure() -> None:
    figure = draw_graph(unrolled_chain()["loss"], names=unrolled_chain())
    renderer = figure.canvas.get_renderer()
    frame = figure.bbox
    boxes = [p.get_window_extent(renderer) for p in figure.axes[0].patches if isinstance(p, FancyBboxPatch)]
    for text in figure.axes[0].texts:
        assert isinstance(text, Text)
        extent = text.get_window_extent(renderer)
        assert frame.x0 <= extent.x0, text.get_text()
        assert extent.x1 <= frame.x1, text.get_text()
        assert any(
            box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1
            for box in boxes
        ), text.get_text()


def test_nodes_and_passing_edges_do_not_overlap_in_a_row() -> None:
    graph = autograd_graph(unrolled_chain()["loss"])
    sizes = [_box_size(node) for node in graph.nodes]

    def width(slot: int | tuple[int, int]) -> float:
        return sizes[slot][0] if isinstance(slot, int) else _PASS_WIDTH

    x = columns(graph.rows, lambda n: graph.nodes[n].next, width, _GAP_X)
    for layer, row in enumerate(graph.rows):
        spans = [(x[layer, slot] - width(slot) / 2, x[layer, slot] + width(slot) / 2) for slot in row]
        assert all(left[1] < right[0] for left, right in pairwise(spans)), layer


def test_no_latex_nor_mathtext_even_when_the_settings_ask_for_them() -> None:
    t = add_then_square()
    with matplotlib.rc_context({"text.usetex": True}):
        figure = draw_graph(t["z"], names={"$x$": t["x"]}, title="cost in $")
        figure.canvas.draw()  # would run latex, which a fresh machine lacks
    assert "AccumulateGrad ($x$)" in texts(figure)


def test_draw_graph_takes_a_tensor_or_its_model() -> None:
    t = add_then_square()
    graph = autograd_graph(t["z"], names=t)
    assert isinstance(graph, AutogradGraph)
    assert texts(draw_graph(graph)) == texts(draw_graph(t["z"], names=t))


# -- a modified saved tensor named without SavedTensor.data (PyTorch before 2.10) --------------


def test_a_modified_saved_result_is_named_from_the_version_error() -> None:
    from autograd_notes._graph.reading import _named_by_message

    a = torch.ones(2, requires_grad=True)
    e = a.exp()
    saver = e.grad_fn
    assert saver is not None
    e.mul_(2)  # e's node is now MulBackward0, whose input is the ExpBackward0 that saved it
    names = {"a": a, "e": e}
    # the node as messages before 2.13 name it, and as 2.13 does
    assert _named_by_message(saver, "ExpBackward0", (2,), 1, names) == "e"
    assert _named_by_message(saver, "Exp", (2,), 1, names) == "e"
    assert _named_by_message(saver, "ExpBackward0", (3,), 1, names) is None  # another shape
    assert _named_by_message(saver, "ExpBackward0", (2,), 2, names) is None  # another version


def test_a_modified_saved_leaf_is_named_only_when_one_tensor_fits() -> None:
    from autograd_notes._graph.reading import _named_by_message

    w = torch.ones(3, requires_grad=True)
    b = torch.ones(3)
    y = w * b  # saves b, a leaf that needs no gradient
    saver = y.grad_fn
    assert saver is not None
    b.add_(1)
    assert _named_by_message(saver, None, (3,), 1, {"w": w, "b": b}) == "b"
    # two leaves of that shape at that version: the tensor stays unnamed rather than guessed
    c = torch.zeros(3).add_(1)
    assert _named_by_message(saver, None, (3,), 1, {"w": w, "b": b, "c": c}) is None
