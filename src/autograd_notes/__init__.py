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
* :func:`runner_device` is the device the example runs on;
* :func:`note_early_stop` (a download's first call) says where the site
  records the reader's PyTorch release stopping the example early;
* :func:`run_ranks` runs a function on several processes of one process
  group (``gloo``, on this machine) and returns what each returned;
* :func:`explain_errors` (a script) and ``%load_ext autograd_notes``
  (IPython, Jupyter) add, under an autograd error's traceback, the page of
  the site that explains it.

When PyTorch no longer behaves as documented, :class:`BehaviourDrift` is
raised, saying where, what was documented and what happened.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._charts import draw_matrix, draw_series, draw_spread
    from ._device import DEVICE_VARIABLE, RunnerInfo, runner_device, runner_info
    from ._drift import BehaviourDrift
    from ._early_stop import note_early_stop
    from ._expect import expect_error, expect_warning
    from ._explain.hooks import explain_errors, load_ipython_extension, unload_ipython_extension
    from ._graph.drawing import draw_graph
    from ._graph.model import AutogradGraph
    from ._graph.reading import autograd_graph
    from ._ranks import run_ranks
    from ._state import show_state, state_table
    from ._tensors_picture import draw_tensors
    from ._values import check, format_value

# Each name's module, imported when the name is first asked for (PEP 562): the helpers import
# PyTorch and matplotlib (two seconds), which the site build and the records' command line,
# themselves in this package, do not need.
_MODULES = {
    "draw_matrix": "_charts",
    "draw_series": "_charts",
    "draw_spread": "_charts",
    "DEVICE_VARIABLE": "_device",
    "runner_device": "_device",
    "BehaviourDrift": "_drift",
    "note_early_stop": "_early_stop",
    "expect_error": "_expect",
    "expect_warning": "_expect",
    "AutogradGraph": "_graph.model",
    "draw_graph": "_graph.drawing",
    "autograd_graph": "_graph.reading",
    "run_ranks": "_ranks",
    "RunnerInfo": "_device",
    "runner_info": "_device",
    "show_state": "_state",
    "state_table": "_state",
    "draw_tensors": "_tensors_picture",
    "check": "_values",
    "explain_errors": "_explain.hooks",
    "load_ipython_extension": "_explain.hooks",
    "unload_ipython_extension": "_explain.hooks",
    "format_value": "_values",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_MODULES[name]}", __name__), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
    "explain_errors",
    "format_value",
    "load_ipython_extension",
    "note_early_stop",
    "run_ranks",
    "runner_device",
    "runner_info",
    "show_state",
    "state_table",
    "unload_ipython_extension",
]
