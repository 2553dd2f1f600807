"""format_clean_traceback: the example's frames, PyTorch's internals in one line."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from autograd_notes import BehaviourDrift, check
from autograd_notes._traceback import _module_name, format_clean_traceback, is_internal_file

HERE = "tests/helpers/test_traceback.py"
TORCH = Path(torch.__file__).resolve().parent


def this_line() -> int:
    frame = inspect.currentframe()
    assert frame is not None
    assert frame.f_back is not None
    return frame.f_back.f_lineno


def fail_in_helper() -> None:
    raise ValueError("helper failed at 0x7f00aa11bb22 (Triggered internally at /pytorch/x.cpp:1.)")


HELPER_LINE = fail_in_helper.__code__.co_firstlineno + 1


@torch.no_grad()
def decorated() -> None:
    raise KeyError("inside")


DECORATED_LINE = decorated.__wrapped__.__code__.co_firstlineno + 2  # type: ignore[attr-defined]


def caught(function: Callable[[], object]) -> Exception:
    try:
        function()
    except Exception as error:
        return error
    raise AssertionError(f"{function} raised nothing")


def test_own_frames_keep_path_line_function_and_source() -> None:
    try:
        line = this_line() + 1
        fail_in_helper()
    except ValueError as error:
        text = format_clean_traceback(error)
    assert text == "\n".join(
        [
            "Traceback (most recent call last):",
            f'  File "{HERE}", line {line}, in test_own_frames_keep_path_line_function_and_source',
            "    fail_in_helper()",
            f'  File "{HERE}", line {HELPER_LINE}, in fail_in_helper',
            "    " + inspect.getsource(fail_in_helper).splitlines()[1].strip(),
            "ValueError: helper failed at 0x…",
        ]
    )


def test_pytorch_frames_between_own_frames_become_one_line() -> None:
    try:
        line = this_line() + 1
        decorated()
    except KeyError as error:
        text = format_clean_traceback(error)
    assert text.splitlines() == [
        "Traceback (most recent call last):",
        f'  File "{HERE}", line {line}, in test_pytorch_frames_between_own_frames_become_one_line',
        "    decorated()",
        "  [1 frame inside PyTorch: torch.utils._contextlib.decorate_context]",
        f'  File "{HERE}", line {DECORATED_LINE}, in decorated',
        '    raise KeyError("inside")',
        "KeyError: 'inside'",
    ]


def test_trailing_pytorch_frames_name_functions_without_line_numbers() -> None:
    try:
        torch.broadcast_shapes((2,), (3,))
    except RuntimeError as error:
        lines = format_clean_traceback(error).splitlines()
    assert lines[2] == "    torch.broadcast_shapes((2,), (3,))"
    assert lines[3].startswith("  [")
    assert lines[3].endswith("]")
    names = lines[3].removeprefix("  [").removesuffix("]").split(": ", 1)
    functions = names[1].split(" > ")
    assert names[0] == f"{len(functions)} frames inside PyTorch"
    assert functions[0] == "torch.functional.broadcast_shapes"
    assert all(name.startswith("torch.") for name in functions)
    assert "line" not in lines[3]
    assert lines[4].startswith("RuntimeError: Attempting to broadcast a dimension of length 3")
    assert len(lines) == 5


def test_this_package_frames_are_left_out() -> None:
    try:
        check(1, 2)
    except BehaviourDrift as error:
        lines = format_clean_traceback(error).splitlines()
    assert lines[2] == "    check(1, 2)"
    assert lines[3] == f"autograd_notes._drift.BehaviourDrift: behaviour drift at {HERE}:{this_line() - 4}"
    assert not any("inside PyTorch" in line for line in lines)


def test_pseudo_file_frames_have_no_source_line() -> None:
    try:
        exec(compile("raise ValueError('from a string')", "<string>", "exec"))
    except ValueError as error:
        lines = format_clean_traceback(error).splitlines()
    assert lines[-2:] == ['  File "<string>", line 1, in <module>', "ValueError: from a string"]


def test_exception_without_traceback() -> None:
    assert (
        format_clean_traceback(ValueError("alone")) == "Traceback (most recent call last):\nValueError: alone"
    )


def test_explicit_traceback_wins_over_the_exceptions_own() -> None:
    error = caught(fail_in_helper)
    assert format_clean_traceback(error, None) == format_clean_traceback(error, error.__traceback__)
    shorter = format_clean_traceback(error, error.__traceback__.tb_next)  # type: ignore[union-attr]
    assert "in caught" in format_clean_traceback(error)
    assert "in caught" not in shorter
    assert "in fail_in_helper" in shorter


def test_is_internal_file() -> None:
    assert is_internal_file(torch.__file__)
    assert is_internal_file(str(TORCH / "_tensor.py"))
    assert is_internal_file(inspect.getfile(check))
    assert not is_internal_file(__file__)
    assert not is_internal_file("<string>")
    # A sibling whose name starts like torch's folder is not PyTorch.
    assert not is_internal_file(str(TORCH) + "vision" + os.sep + "models.py")


@pytest.mark.parametrize(
    ("relative", "function", "name"),
    [
        ("_tensor.py", "backward", "torch._tensor.backward"),
        ("autograd/__init__.py", "backward", "torch.autograd.backward"),
        ("autograd/graph.py", "_engine_run_backward", "torch.autograd.graph._engine_run_backward"),
    ],
)
def test_module_name_of_pytorch_files(relative: str, function: str, name: str) -> None:
    assert _module_name(str(TORCH / relative), function) == name
