"""The committed GPU records: every example has one of the lent machine's release, and each says
how it differs from the CPU of that release in the words the site uses."""

from __future__ import annotations

from pathlib import Path

from autograd_notes.records.drift.compare import record_cell
from autograd_notes.records.drift.reasons import OutputReason, output_difference_reason
from autograd_notes.records.history.runners import RunnerRecord, cpu_of, load_runner_records

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(ROOT / "gallery").as_posix() for p in (ROOT / "gallery").glob("*/plot_*.py"))
RELEASE = "2.11.0"
"""The release of the first GPU machine lent (an NVIDIA H200, PyTorch 2.11.0+cu130)."""


def cuda_runs() -> dict[str, RunnerRecord]:
    runs = load_runner_records(ROOT / "records")
    return {
        example: run
        for example, records in runs.items()
        for run in records
        if run.runner.device == "cuda" and run.runner.release == RELEASE
    }


def test_every_example_has_a_cuda_record_of_the_lent_machine() -> None:
    found = cuda_runs()
    assert sorted(found) == EXAMPLES
    assert {run.record["runner"]["device_name"] for run in found.values()} == {"NVIDIA H200"}


def reason(example: str, first_line: int) -> OutputReason:
    runs = load_runner_records(ROOT / "records")[example]
    cuda = cuda_runs()[example]
    cpu = cpu_of(runs, RELEASE)
    assert cpu is not None
    ours, theirs = record_cell(cpu.record, first_line), record_cell(cuda.record, first_line)
    assert ours is not None
    assert theirs is not None
    assert ours["output"] != theirs["output"]
    return output_difference_reason(list(ours["output"]), list(theirs["output"]))


def test_the_cuda_records_differences_are_said_as_the_site_says_them() -> None:
    # a version-check message naming torch.cuda.FloatTensor, other random draws, a behaviour of CUDA
    assert reason("05_inplace/plot_detach_inplace_saved.py", 66) is OutputReason.TENSOR_TYPE
    assert reason("20_function_transforms/plot_batched_gradients.py", 24) is OutputReason.VALUES
    assert (
        reason(
            "07_cpu_vs_gpu/plot_cudnn_rnn_eval_backward.py",
            first_cell_that_differs("07_cpu_vs_gpu/plot_cudnn_rnn_eval_backward.py"),
        )
        is OutputReason.BEHAVIOUR
    )


def first_cell_that_differs(example: str) -> int:
    runs = load_runner_records(ROOT / "records")[example]
    cpu = cpu_of(runs, RELEASE)
    assert cpu is not None
    for cell in cuda_runs()[example].record["cells"]:
        ours = record_cell(cpu.record, cell["lines"][0])
        if ours is not None and ours["output"] != cell["output"]:
            return int(cell["lines"][0])
    raise AssertionError(f"{example}: no cell differs")
