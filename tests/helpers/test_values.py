"""check and format_value: print a value, compare it with the documented one."""

from __future__ import annotations

import inspect

import pytest
import torch

from autograd_notes import BehaviourDrift, check, format_value

HERE = "tests/helpers/test_values.py"

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def next_line() -> int:
    frame = inspect.currentframe()
    assert frame is not None
    assert frame.f_back is not None
    return frame.f_back.f_lineno + 1


# -- format_value ---------------------------------------------------------------------


def test_format_value_of_a_cpu_tensor_is_its_repr() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert format_value(x) == "tensor([1., 2.], requires_grad=True)"
    assert format_value(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"


def test_format_value_strips_the_device_of_a_non_cpu_tensor() -> None:
    meta = torch.empty(3, device="meta")
    assert "device='meta'" in repr(meta)
    assert format_value(meta) == "tensor(..., size=(3,))"


@pytest.mark.gpu
@needs_cuda
def test_format_value_strips_the_cuda_device() -> None:
    x = torch.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    assert format_value(x) == "tensor([1., 2.], requires_grad=True)"


def test_format_value_of_an_autograd_node_is_its_name() -> None:
    y = torch.ones(2, requires_grad=True) * 2
    assert y.grad_fn is not None
    assert " object at 0x" in repr(y.grad_fn)
    assert format_value(y.grad_fn) == "MulBackward0"


def test_format_value_hides_addresses() -> None:
    class Thing:
        def __repr__(self) -> str:
            return "<Thing object at 0x7f00aa11bb22> near 0x7f00aa11bb23  "

    assert format_value(Thing()) == "<Thing> near 0x…"
    assert format_value(None) == "None"
    assert format_value([1.5, "a"]) == "[1.5, 'a']"


# -- check: identities and names ---------------------------------------------------


def test_check_none_and_booleans_by_identity(capsys: pytest.CaptureFixture[str]) -> None:
    x = torch.ones(1, requires_grad=True)
    check(x.grad, None, label="x.grad")
    check(x.requires_grad, True, label="x.requires_grad")
    check(False, False)
    assert capsys.readouterr().out == "x.grad: None\nx.requires_grad: True\nFalse\n"


@pytest.mark.parametrize(
    ("value", "expected", "shown"),
    [(0, False, "0"), (1, True, "1"), (torch.tensor(True), True, "tensor(True)"), (0, None, "0")],
)
def test_check_none_and_booleans_are_not_merely_equal(value: object, expected: object, shown: str) -> None:
    with pytest.raises(BehaviourDrift) as info:
        check(value, expected)
    assert info.value.documented == repr(expected)
    assert info.value.observed == f"{shown} (not the same object)"


def test_check_string_against_an_autograd_node_name(capsys: pytest.CaptureFixture[str]) -> None:
    x = torch.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    check(node, "MulBackward0", label="y.grad_fn")
    check("plain", "plain")
    assert capsys.readouterr().out == "y.grad_fn: MulBackward0\n'plain'\n"


def test_check_wrong_node_name_is_drift() -> None:
    x = torch.ones(2, requires_grad=True)
    line = next_line() + 1
    with pytest.raises(BehaviourDrift) as info:
        check((x + 1).grad_fn, "MulBackward0", label="y.grad_fn")
    drift = info.value
    assert str(drift.location) == f"{HERE}:{line}"
    assert drift.documented == "y.grad_fn: 'MulBackward0'"
    assert drift.observed == "AddBackward0 (not equal)"
    assert "MulBackward0" in str(drift)
    assert "AddBackward0" in str(drift)


# -- check: numbers and tensors ----------------------------------------------------------


def test_check_tensor_against_a_list_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    check(y, [2.0, 4.0], label="y")
    check(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), [[1, 2], [3, 4]])
    assert capsys.readouterr().out == (
        "y: tensor([2., 4.], grad_fn=<MulBackward0>)\ntensor([[1., 2.],\n        [3., 4.]])\n"
    )


def test_check_tensor_against_a_tensor_of_the_same_dtype() -> None:
    value = torch.tensor([0.5, 0.25], dtype=torch.float64)
    check(value, torch.tensor([0.5, 0.25], dtype=torch.float64))
    with pytest.raises(BehaviourDrift, match="dtype"):
        check(value, torch.tensor([0.5, 0.25], dtype=torch.float32))


def test_check_python_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    check(3, 3)
    check(0.1 + 0.2, 0.3, label="sum")
    check(2, 2.0)
    assert capsys.readouterr().out == "3\nsum: 0.30000000000000004\n2\n"
    with pytest.raises(BehaviourDrift, match="Scalars are not equal! Expected 3 but got 2"):
        check(2, 3)


def test_check_integer_value_is_not_truncated_to_pass() -> None:
    with pytest.raises(BehaviourDrift) as info:
        check(3, 3.5)
    assert info.value.documented == "3.5"
    assert info.value.observed.startswith("3 (Scalars are not close!")
    with pytest.raises(BehaviourDrift, match="not close"):
        check(torch.tensor([1, 2]), [1.5, 2])
    check(torch.tensor([1, 2]), [1.0, 2.0])


def test_check_tolerances() -> None:
    value = torch.tensor([1.0, 2.0])
    with pytest.raises(BehaviourDrift, match="Tensor-likes are not close"):
        check(value, [1.05, 2.0])
    check(value, [1.05, 2.0], rtol=0.1, atol=0.0)
    check(torch.tensor(0.0), 1e-3, rtol=0.0, atol=1e-2)
    with pytest.raises(BehaviourDrift):
        check(torch.tensor(0.0), 1e-1, rtol=0.0, atol=1e-2)


def test_check_tensor_mismatch_is_drift_with_both_values(capsys: pytest.CaptureFixture[str]) -> None:
    k = torch.tensor([4.0])
    line = next_line() + 1
    with pytest.raises(BehaviourDrift) as info:
        check(k, [5.0], label="k.grad")
    text = str(info.value)
    assert text.startswith(f"behaviour drift at {HERE}:{line}\n")
    assert "  documented: k.grad: [5.0]\n" in text
    assert "  observed:   tensor([4.]) (Tensor-likes are not close! Mismatched elements: 1 / 1" in text
    assert f"PyTorch {torch.__version__}" in text
    assert capsys.readouterr().out == "k.grad: tensor([4.])\n"


def test_check_shape_mismatch_is_drift() -> None:
    with pytest.raises(BehaviourDrift, match="shape"):
        check(torch.zeros(2), [0.0, 0.0, 0.0])


@pytest.mark.parametrize(("value", "name"), [("text", "str"), (True, "bool"), (object(), "object")])
def test_check_non_numeric_value_against_a_number_is_drift(value: object, name: str) -> None:
    with pytest.raises(BehaviourDrift) as info:
        check(value, 1)
    assert info.value.observed.endswith(f"(expected a tensor, a number or a list of numbers, got {name})")


def test_check_returns_nothing_so_a_notebook_cell_shows_the_value_once() -> None:
    assert check(torch.tensor([1.0]), [1.0]) is None  # type: ignore[func-returns-value]


def test_check_non_numeric_expectation_by_equality(capsys: pytest.CaptureFixture[str]) -> None:
    check(["x", "w"], ["x", "w"], label="names")
    check(("cpu", 2), ("cpu", 2))
    assert capsys.readouterr().out == "names: ['x', 'w']\n('cpu', 2)\n"
    with pytest.raises(BehaviourDrift) as info:
        check(["w", "x"], ["x", "w"], label="names")
    assert info.value.documented == "names: ['x', 'w']"
    assert info.value.observed == "['w', 'x'] (not equal)"


def test_check_an_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    check([], [], label="modified")
    check(torch.empty(0), [])  # a tensor is still compared as one
    assert capsys.readouterr().out == "modified: []\ntensor([])\n"
    with pytest.raises(BehaviourDrift) as info:
        check(["x"], [], label="modified")
    assert info.value.observed == "['x'] (not equal)"


def test_lists_of_numbers_are_compared_as_tensors(capsys: pytest.CaptureFixture[str]) -> None:
    check([1.0, 2.0], [1.0, 2.0], label="pair")
    assert capsys.readouterr().out == "pair: [1.0, 2.0]\n"
    with pytest.raises(BehaviourDrift):
        check((1, 2), [1.0, 2.5])
    with pytest.raises(BehaviourDrift):
        check(["a"], [1.0])
