"""Read the autograd graph below a tensor from PyTorch's nodes: :func:`autograd_graph`.

:func:`autograd_graph` walks ``tensor.grad_fn`` through ``next_functions``
and records, for every node, what it saved for backward and at which
version, without running backward. A saved tensor that was modified in
place since it was saved is marked, so the graph predicts the error that
``backward()`` would raise. The result is the model of :mod:`.model`, its
nodes numbered row by row in the order :mod:`.layout` arranges them.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping

import torch
from torch.autograd.graph import Node

from .layout import arrange, layers
from .model import AutogradGraph, GraphNode, SavedTensor

__all__ = ["autograd_graph"]

_MODIFIED = "modified by an inplace operation"
_FREED = "backward through the graph a second time"
# "... [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead"
# (a leaf has no "which is output ... of ..." part)
_VERSIONS = re.compile(
    r"\[[\w.]+ \[(?P<shape>[\d, ]*)\]\](?:, which is output \d+ of (?P<node>\w+))?,? "
    r"is at version (?P<now>\d+); expected version (?P<saved>\d+) instead"
)


def _same_tensor(saved: torch.Tensor, named: torch.Tensor) -> bool:
    """Whether ``saved`` (as unpacked from a node) is the caller's ``named`` tensor.

    A saved input comes back as the very tensor; a saved output (``result``)
    as another tensor over the same memory, which must require a gradient
    (``detach()`` and ``.data`` aliases do not, and are not the saved tensor).
    """
    if saved is named:
        return True
    if not named.requires_grad or named.layout != torch.strided or saved.layout != torch.strided:
        return False
    storage = named.untyped_storage()
    return (
        storage.nbytes() > 0
        and storage.data_ptr() == saved.untyped_storage().data_ptr()
        and named.device == saved.device
        and named.dtype == saved.dtype
        and named.storage_offset() == saved.storage_offset()
        and named.shape == saved.shape
        and named.stride() == saved.stride()
    )


def _names_of(tensor: torch.Tensor | None, names: Mapping[str, torch.Tensor]) -> str | None:
    if tensor is None:
        return None
    found = [name for name, named in names.items() if _same_tensor(tensor, named)]
    return ", ".join(found) or None


def _modified(
    node: Node, attribute: str, label: str, message: str, names: Mapping[str, torch.Tensor]
) -> SavedTensor:
    """A saved tensor whose reading failed the version check, with the versions the error gives."""
    raw = getattr(node, f"_raw{attribute}" if attribute.startswith("_") else f"_raw_{attribute}", None)
    # SavedTensor.data skips the check (where PyTorch has it): to measure and name the tensor
    unchecked = getattr(raw, "data", None)
    tensor = unchecked if isinstance(unchecked, torch.Tensor) else None
    match = _VERSIONS.search(message)
    shape = tuple(tensor.shape) if tensor is not None else None
    if shape is None and match:
        shape = tuple(int(n) for n in match["shape"].split(",") if n.strip())
    version = int(match["now"]) if match else (tensor._version if tensor is not None else None)
    named = _names_of(tensor, names)
    if tensor is None and match is not None and shape is not None:
        named = _named_by_message(node, match["node"], shape, int(match["now"]), names)
    return SavedTensor(
        name=label,
        status="modified",
        shape=shape,
        version=version,
        saved_version=int(match["saved"]) if match else None,
        tensor=named,
    )


def _node_kind(name: str) -> str:
    """``SigmoidBackward0`` and ``Sigmoid`` (the name in messages since PyTorch 2.13) alike: ``Sigmoid``."""
    return re.sub(r"Backward\d*$", "", name)


def _output_of(tensor: torch.Tensor, kind: str | None, saver: Node) -> bool:
    """Whether ``tensor`` is (or was, before an in-place edit) an output of a ``kind`` node.

    ``kind`` ``None`` (the error names no node) stands for a leaf. A saved
    *result* is an output of the node that saved it (``saver``); an in-place
    edit since then gave the tensor a new node, whose inputs lead to it.
    """
    grad_fn = tensor.grad_fn
    if kind is None or grad_fn is None:
        return kind is None and grad_fn is None
    if _node_kind(grad_fn.name()) == _node_kind(kind):
        return True
    return _node_kind(saver.name()) == _node_kind(kind) and any(
        parent is saver for parent, _ in grad_fn.next_functions
    )


def _named_by_message(
    saver: Node, node: str | None, shape: tuple[int, ...], version: int, names: Mapping[str, torch.Tensor]
) -> str | None:
    """Name a modified saved tensor from the version error alone (PyTorch before 2.10).

    Without ``SavedTensor.data`` the tensor cannot be read; the error still
    says its shape, its version now, and the node it is an output of (none
    for a leaf). The one named tensor that fits all three is it; when none
    or several fit, the tensor stays unnamed rather than guessed.
    """
    fits = [
        name
        for name, named in names.items()
        if tuple(named.shape) == shape and named._version == version and _output_of(named, node, saver)
    ]
    return fits[0] if len(fits) == 1 else None


def _saved(node: Node, names: Mapping[str, torch.Tensor]) -> tuple[list[SavedTensor], list[str]]:
    """What ``node`` saved for backward: its tensors, and its other values as ``name=value``."""
    listed = dir(node)
    attributes = [a for a in listed if a.startswith("_saved_")]
    if "saved_tensors" in listed:  # a custom torch.autograd.Function's ctx.save_for_backward
        attributes.append("saved_tensors")
    tensors: list[SavedTensor] = []
    values: list[str] = []
    for attribute in attributes:
        label = attribute.removeprefix("_saved_").removeprefix("saved_")
        try:
            value = getattr(node, attribute)
        except RuntimeError as error:
            message = str(error)
            if _MODIFIED in message:
                tensors.append(_modified(node, attribute, label, message, names))
            elif _FREED in message:
                tensors.append(SavedTensor(name=label, status="freed"))
            else:
                raise
            continue
        if isinstance(value, torch.Tensor):
            tensors.append(_present(label, value, names))
        elif isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
            tensors.extend(
                _present(f"{label}[{i}]", v, names)
                for i, v in enumerate(value)
                if isinstance(v, torch.Tensor)
            )
        elif isinstance(value, (bool, int, float, str)) and "sym_" not in label:
            # sizes, strides and numels (``self_sym_sizes``) are bookkeeping, not values
            if isinstance(value, int) and not isinstance(value, bool) and value >= 2**63:
                value -= 2**64  # a negative int64 (dim=-1) that the binding returns as unsigned
            values.append(f"{label}={value!r}")
    return tensors, values


def _present(label: str, tensor: torch.Tensor, names: Mapping[str, torch.Tensor]) -> SavedTensor:
    """A saved tensor that passed the version check: its version now is the one it was saved at."""
    return SavedTensor(
        name=label,
        status="saved",
        shape=tuple(tensor.shape),
        version=tensor._version,
        tensor=_names_of(tensor, names),
    )


def _leaf(node: Node) -> torch.Tensor | None:
    """The leaf tensor of an ``AccumulateGrad`` node (``None`` for any other node)."""
    variable = getattr(node, "variable", None)
    return variable if isinstance(variable, torch.Tensor) else None


def _walk(root: Node) -> tuple[list[Node], list[list[int]]]:
    """Every node below ``root``, breadth first, each once, and the (deduplicated) edges of each."""
    nodes = [root]
    index = {id(root): 0}  # the nodes are kept alive in ``nodes``, so their ids stay unique
    edges: list[list[int]] = [[]]
    queue = deque([root])
    while queue:
        node = queue.popleft()
        source = index[id(node)]
        for child, _ in node.next_functions:
            if child is None:  # an input that needs no gradient
                continue
            if id(child) not in index:
                index[id(child)] = len(nodes)
                nodes.append(child)
                edges.append([])
                queue.append(child)
            if index[id(child)] not in edges[source]:
                edges[source].append(index[id(child)])
    return nodes, edges


def autograd_graph(tensor: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None) -> AutogradGraph:
    """Return the autograd graph below ``tensor``, with what each node saved and at which version.

    Nothing is run: the nodes are read through ``grad_fn``,
    ``next_functions`` and their ``_saved_*`` attributes. Reading a saved
    tensor that was modified in place since it was saved fails PyTorch's
    version check, exactly as backward would; that tensor is recorded as
    ``"modified"``, with the version it was saved at and the one it has now.
    ``names`` maps names to the caller's tensors (matched by identity, or
    for a non-leaf by its ``grad_fn``), to label leaves, nodes and saved
    tensors. Raises :class:`ValueError` if ``tensor`` has no ``grad_fn``.
    """
    names = dict(names or {})
    if tensor.grad_fn is None:
        raise ValueError(
            "the tensor has no grad_fn (a leaf, or it does not require a gradient): "
            "there is no graph below it to draw"
        )
    found, edges = _walk(tensor.grad_fn)
    row_of = layers(edges, {i for i, node in enumerate(found) if _leaf(node) is not None})
    rows = arrange(row_of, edges)
    order = [slot for row in rows for slot in row if isinstance(slot, int)]
    renumber = {old: new for new, old in enumerate(order)}
    nodes = []
    for old in order:
        node = found[old]
        variable = _leaf(node)
        following = tuple(sorted(renumber[t] for t in edges[old]))
        if variable is not None:
            nodes.append(
                GraphNode(
                    name=node.name(),
                    layer=row_of[old],
                    is_leaf=True,
                    tensor=", ".join(n for n, t in names.items() if t is variable) or None,
                    shape=tuple(variable.shape),
                    requires_grad=variable.requires_grad,
                    next=following,
                )
            )
            continue
        saved, values = _saved(node, names)
        nodes.append(
            GraphNode(
                name=node.name(),
                layer=row_of[old],
                tensor=", ".join(n for n, t in names.items() if t.grad_fn is node) or None,
                saved=tuple(saved),
                values=tuple(values),
                next=following,
            )
        )
    return AutogradGraph(
        nodes=tuple(nodes),
        rows=tuple(
            tuple(
                renumber[slot] if isinstance(slot, int) else (renumber[slot[0]], renumber[slot[1]])
                for slot in row
            )
            for row in rows
        ),
    )
