"""A downloaded notebook run as a reader's Jupyter runs it: in a real kernel, from a folder of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nbclient import NotebookClient

__all__ = ["run_notebook"]


def run_notebook(notebook: Any, kernel: str, folder: Path) -> str:
    """Execute ``notebook`` (in place) in ``kernel`` with ``folder`` as its working folder; what its
    code cells printed, every stream joined. A cell that stops raises ``CellExecutionError``."""
    client = NotebookClient(
        notebook, kernel_name=kernel, timeout=600, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    return "\n".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream"
    )
