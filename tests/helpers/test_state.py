"""state_table and show_state: the hidden autograd state of named tensors."""

from __future__ import annotations

import warnings

import pytest
import torch

from autograd_notes import show_state, state_table


def rows(table: str) -> dict[str, list[str]]:
    """The table's cells by tensor name (columns split on runs of two spaces or more)."""
    lines = table.splitlines()
    cells = [[cell for cell in line.split("  ") if cell] for line in lines]
    return {row[0].strip(): [cell.strip() for cell in row[1:]] for row in cells[1:]}


def detach_and_view() -> dict[str, torch.Tensor]:
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = w * 3
    d = y.detach()
    v = y[1:]
    y.sum().backward()
    return {"w": w, "y": y, "d": d, "v": v}


def test_table_of_detach_and_view() -> None:
    assert state_table(**detach_and_view()) == (
        "tensor  requires_grad  is_leaf  grad_fn         _version  grad        shares storage with\n"
        "w       True           True     None            0         [3.0, 3.0]  -\n"
        "y       True           False    MulBackward0    0         -           d, v\n"
        "d       False          True     None            0         None        y, v\n"
        "v       True           False    SliceBackward0  0         -           y, d"
    )


def test_rows_follow_the_order_given() -> None:
    tensors = detach_and_view()
    table = state_table(v=tensors["v"], w=tensors["w"])
    assert [line.split()[0] for line in table.splitlines()] == ["tensor", "v", "w"]
    assert rows(table)["v"][-1] == "-"  # y and d are not named here


def test_in_place_change_bumps_the_shared_version_counter() -> None:
    tensors = detach_and_view()
    tensors["d"].add_(1)
    table = rows(state_table(**tensors))
    assert {name: row[3] for name, row in table.items()} == {"w": "0", "y": "1", "d": "1", "v": "1"}


def test_retain_grad_shows_the_grad_of_a_non_leaf() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    assert rows(state_table(x=x, y=y)) == {
        "x": ["True", "True", "None", "0", "[8.0, 16.0]", "-"],
        "y": ["True", "False", "MulBackward0", "0", "[4.0, 8.0]", "-"],
    }


def test_scalar_grads_are_rounded_and_large_tensors_compact() -> None:
    third = torch.tensor(1.0, requires_grad=True)
    big = torch.ones(2, 4, dtype=torch.float64, requires_grad=True)
    (third / 3 + big.sum()).backward()
    table = rows(state_table(third=third, big=big))
    assert table["third"][4] == "0.3333"
    assert table["big"][4] == "<(2, 4) float64>"


def test_six_elements_are_still_shown() -> None:
    six = torch.zeros(6, requires_grad=True)
    six.sum().backward()
    assert rows(state_table(six=six))["six"][4] == "[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]"


def test_empty_tensors_share_no_storage() -> None:
    table = rows(state_table(a=torch.empty(0), b=torch.empty(0)))
    assert table["a"][-1] == "-"
    assert table["b"][-1] == "-"


def test_non_leaf_does_not_warn() -> None:
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None  # reading it directly warns
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = state_table(y=y)
    assert caught == []
    assert rows(table)["y"][4] == "-"


def test_show_state_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    tensors = detach_and_view()
    show_state(**tensors)
    assert capsys.readouterr().out == state_table(**tensors) + "\n"


def test_complex_gradients_are_shown_rounded_part_by_part() -> None:
    z = torch.tensor([1.0 + 2.0j, -0.123456j], requires_grad=True)
    (z.abs() ** 2).sum().backward()
    row = state_table(z=z).splitlines()[-1]
    assert "[(2+4j), -0.2469j]" in row, row
