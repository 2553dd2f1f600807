"""The model of an autograd graph: its nodes, what each saved for backward, and its text.

An :class:`AutogradGraph` holds the nodes below a tensor, root first, row
by row (:class:`GraphNode`), each with the tensors it saved for backward
and what became of them (:class:`SavedTensor`: saved, modified in place
since, or freed). :meth:`AutogradGraph.text` writes the graph as lines of
text (what tests and ``check`` compare). :func:`.reading.autograd_graph`
builds the model from PyTorch's nodes, numbered row by row in the order
:mod:`.layout` arranges them, and :func:`.drawing.draw_graph`
draws the same lines as a matplotlib figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .layout import Slot

__all__ = ["AutogradGraph", "GraphNode", "SavedTensor", "Status"]

_PREFIX = "torch::autograd::"

Status = Literal["saved", "modified", "freed"]


@dataclass(frozen=True)
class SavedTensor:
    """A tensor that a node saved for backward, and what became of it.

    ``status`` is ``"saved"`` (backward can use it), ``"modified"`` (changed
    in place since it was saved: backward will raise) or ``"freed"`` (a
    backward without ``retain_graph`` released it). ``version`` is the
    tensor's version counter now, ``saved_version`` the one the node
    recorded (the same unless modified); both are ``None`` once freed.
    ``tensor`` names the caller's tensors that it is, if any.
    """

    name: str
    status: Status
    shape: tuple[int, ...] | None = None
    version: int | None = None
    saved_version: int | None = None
    tensor: str | None = None

    @property
    def summary(self) -> str:
        """The facts on one line: ``saved self (y) [] v1 ≠ v0``."""
        if self.status == "freed":
            return f"saved {self.name}: freed by backward()"
        named = f" ({self.tensor})" if self.tensor else ""
        shape = f" [{', '.join(map(str, self.shape))}]" if self.shape is not None else ""
        now = f" v{self.version}" if self.version is not None else ""
        if self.status == "modified":
            before = f" ≠ v{self.saved_version}" if self.saved_version is not None else ""
            return f"saved {self.name}{named}{shape}{now}{before}"
        return f"saved {self.name}{named}{shape}{now}"

    @property
    def line(self) -> str:
        """The line shown under the node: the summary, and why it matters if modified."""
        if self.status == "modified":
            return f"{self.summary} ← modified in place"
        return self.summary

    @property
    def drawn(self) -> str:
        """The line in the picture, code and symbols only: ``self (y) [] v1 ≠ v0``, ``self ∅`` once freed."""
        if self.status == "freed":
            return f"{self.name} ∅"
        return self.summary.removeprefix("saved ")


@dataclass(frozen=True)
class GraphNode:
    """One node of the graph: a ``grad_fn`` node, or a leaf (``AccumulateGrad``).

    ``name`` is ``node.name()``; ``tensor`` names the caller's tensors whose
    ``grad_fn`` it is (for a leaf: the leaf tensor itself). ``values`` are
    the non-tensor values it saved, as ``alpha=1``. ``next`` holds the
    indices, in :attr:`AutogradGraph.nodes`, of the nodes it sends gradients
    to; ``layer`` is its row in the picture (0 for the root).
    """

    name: str
    layer: int
    is_leaf: bool = False
    tensor: str | None = None
    shape: tuple[int, ...] | None = None
    requires_grad: bool | None = None
    saved: tuple[SavedTensor, ...] = ()
    values: tuple[str, ...] = ()
    next: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        """The name without PyTorch's C++ namespace: ``CopySlices``."""
        return self.name.removeprefix(_PREFIX)

    @property
    def title(self) -> str:
        """The heading of the node: ``PowBackward0 (z)``, or ``leaf x`` for a leaf."""
        if self.is_leaf:
            return f"leaf {self.tensor}" if self.tensor else "leaf"
        return f"{self.label} ({self.tensor})" if self.tensor else self.label

    @property
    def drawn_title(self) -> str:
        """The heading in the picture: PyTorch's node name, with the tensor: ``AccumulateGrad (x)``."""
        return f"{self.label} ({self.tensor})" if self.tensor else self.label

    @property
    def drawn_lines(self) -> tuple[str, ...]:
        """The lines in the picture: :attr:`lines` without words (``self (y) [3] v0``, ``alpha=1``)."""
        if self.is_leaf:
            return self.lines
        return tuple(s.drawn for s in self.saved) + self.values

    @property
    def lines(self) -> tuple[str, ...]:
        """The lines under the title: a leaf's shape, or what the node saved."""
        if self.is_leaf:
            shape = f"[{', '.join(map(str, self.shape or ()))}]"
            return (f"{shape} requires_grad={self.requires_grad}",)
        return tuple(s.line for s in self.saved) + tuple(f"saved {v}" for v in self.values)

    @property
    def modified(self) -> bool:
        """Whether a tensor this node saved was modified in place since."""
        return any(s.status == "modified" for s in self.saved)


@dataclass(frozen=True)
class AutogradGraph:
    """The graph below a tensor, root first, row by row (see :func:`autograd_graph`).

    ``rows`` is the arrangement of the picture: for each layer, left to
    right, the nodes and the edges that pass through it on their way to a
    lower row.
    """

    nodes: tuple[GraphNode, ...]
    rows: tuple[tuple[Slot, ...], ...]

    @property
    def modified(self) -> list[str]:
        """Every saved tensor modified in place since it was saved, as ``node: saved ...``.

        Empty when backward can read everything it saved.
        """
        return [
            f"{node.title}: {saved.summary}"
            for node in self.nodes
            for saved in node.saved
            if saved.status == "modified"
        ]

    def text(self) -> str:
        """The graph as text: each node numbered, its lines, and the nodes it sends gradients to.

        The same lines as the picture, for tests, checks and readers::

            1 PowBackward0 (z)
                saved self (y) [] v1 ≠ v0 ← modified in place
                saved exponent=2
                → 2 AddBackward0 (y)
        """
        out = []
        for index, node in enumerate(self.nodes, start=1):
            out.append(f"{index} {node.title}")
            out.extend(f"    {line}" for line in node.lines)
            out.extend(f"    → {target + 1} {self.nodes[target].title}" for target in node.next)
        return "\n".join(out)
