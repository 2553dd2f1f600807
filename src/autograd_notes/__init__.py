"""Autograd Notes: helpers that every gallery example imports.

Each documented behaviour is checked while the example runs:

* :func:`expect_error` / :func:`expect_warning` run a block that must raise
  or warn, print a clean traceback and let the example go on;
* :func:`check` prints a value and compares it with the documented one;
* :func:`show_state` prints the hidden autograd state of named tensors;
* :func:`autograd_graph` reads a tensor's graph, with what each node saved
  and at which version, and :func:`draw_graph` draws it;
* :func:`draw_tensors` draws which tensors share memory (views, ``detach()``,
  ``.data``, copies) with their versions and ``grad_fn``;
* :func:`draw_series`, :func:`draw_spread` and :func:`draw_matrix` draw
  values over steps, a spread of results and a small matrix;
* :func:`runner_device` is the device the example runs on.

When PyTorch no longer behaves as documented, :class:`BehaviourDrift` is
raised, saying where, what was documented and what happened.
"""

from ._charts import draw_matrix, draw_series, draw_spread
from ._device import DEVICE_VARIABLE, runner_device
from ._drift import BehaviourDrift
from ._expect import expect_error, expect_warning
from ._graph import AutogradGraph, autograd_graph
from ._graph_drawing import draw_graph
from ._runner import RunnerInfo, runner_info
from ._state import show_state, state_table
from ._tensors_picture import draw_tensors
from ._values import check, format_value

__all__ = [
    "DEVICE_VARIABLE",
    "AutogradGraph",
    "BehaviourDrift",
    "RunnerInfo",
    "autograd_graph",
    "check",
    "draw_graph",
    "draw_matrix",
    "draw_series",
    "draw_spread",
    "draw_tensors",
    "expect_error",
    "expect_warning",
    "format_value",
    "runner_device",
    "runner_info",
    "show_state",
    "state_table",
]
