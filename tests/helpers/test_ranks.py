"""run_ranks: a page's function on two real processes of one gloo group, and what comes back."""

from __future__ import annotations

import os
import threading
import time
import warnings

import pytest
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from autograd_notes import run_ranks
from autograd_notes._ranks.shipping import pack, unpack
from autograd_notes._traceback import format_clean_traceback

# What the workers below name, as a page would have them: a value, a helper, a class
OFFSET = torch.tensor([10.0, 20.0])
LOCK = threading.Lock()


def doubled(x: torch.Tensor) -> torch.Tensor:
    return 2 * x


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


def summed(rank: int, world_size: int) -> list[float]:
    value = doubled(OFFSET[rank : rank + 1]) + rank
    dist.all_reduce(value)
    print(f"sum {value.item():g}")
    return [value.item(), float(rank), float(world_size)]


def averaged_by_ddp(rank: int, world_size: int) -> list[float]:
    torch.manual_seed(0)  # the same start on every rank
    model = DistributedDataParallel(Tiny())
    model(torch.full((1, 2), float(rank + 1))).sum().backward()
    return model.module.linear.weight.grad.flatten().tolist()


def fails_on_one(rank: int, world_size: int) -> None:
    if rank == 1:
        raise ValueError("no such thing on rank one")
    dist.barrier()  # waits for rank 1, which never comes


def fails_everywhere(rank: int, world_size: int) -> None:
    time.sleep(0.5 * (world_size - rank))  # the highest rank fails first
    raise ValueError(f"the same on every rank, but for its number: {rank}")


def sleeps(rank: int, world_size: int) -> None:
    time.sleep(600)


def warns(rank: int, world_size: int) -> None:
    warnings.warn("a rank's own warning", UserWarning, stacklevel=1)


def exits(rank: int, world_size: int) -> None:
    os._exit(3)


def returns_a_function(rank: int, world_size: int) -> object:
    return lambda: rank


def uses_a_lock(rank: int, world_size: int) -> bool:
    return LOCK.locked()


def never_exits(rank: int, world_size: int) -> int:
    # a thread that is not a daemon: the process cannot end, as a rank stuck leaving its group
    # (destroy_process_group on PyTorch 2.4 and 2.5) could not
    threading.Thread(target=time.sleep, args=(600,)).start()
    return rank


def test_each_rank_runs_in_its_own_process_and_the_results_come_in_rank_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = run_ranks(summed, world_size=2)
    # 2 * 10 + 0 and 2 * 20 + 1, summed across the two processes
    assert results == [[61.0, 0.0, 2.0], [61.0, 1.0, 2.0]]
    assert capsys.readouterr().out.splitlines() == ["[rank0]: sum 61", "[rank1]: sum 61"]


def test_a_class_of_the_page_and_an_imported_wrapper_run_on_the_ranks() -> None:
    first, second = run_ranks(averaged_by_ddp, world_size=2)
    assert first == second  # DDP averaged the two ranks' gradients
    assert first == pytest.approx([1.5, 1.5])  # the mean of inputs 1 and 2, weighted by d(sum)/d(out) = 1


def test_a_failing_rank_stops_the_others_and_its_error_comes_back_with_its_lines() -> None:
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"^no such thing on rank one$") as caught:
        run_ranks(fails_on_one, world_size=2, timeout=120)
    assert time.monotonic() - started < 60  # rank 0 was stopped, not left in its barrier
    text = format_clean_traceback(caught.value).splitlines()
    assert "  [rank 1 of 2]" in text
    assert not [line for line in text if "autograd_notes._ranks" in line]  # the machinery is left out
    assert text[text.index("  [rank 1 of 2]") - 1] == "    run_ranks(fails_on_one, world_size=2, timeout=120)"
    after = text[text.index("  [rank 1 of 2]") + 1 :]
    assert after[0].endswith(", in fails_on_one")
    assert after[1] == '    raise ValueError("no such thing on rank one")'
    assert after[-1] == "ValueError: no such thing on rank one"


def test_ranks_that_raise_the_same_error_are_named_by_the_lowest_rank() -> None:
    # whichever finishes first, the page shows the same traceback at every run
    with pytest.raises(ValueError, match=r"^the same on every rank, but for its number: 0$") as caught:
        run_ranks(fails_everywhere, world_size=2)
    assert "  [rank 0 of 2]" in format_clean_traceback(caught.value).splitlines()


def test_ranks_that_do_not_finish_in_time_are_stopped() -> None:
    with pytest.raises(TimeoutError, match=r"^rank 0, 1 of 2 had not finished after 20 s and was stopped$"):
        run_ranks(sleeps, world_size=2, timeout=20)


def test_a_rank_that_answered_and_cannot_exit_does_not_hold_the_page() -> None:
    # PyTorch 2.4 and 2.5 recorded a TimeoutError that the page's function never caused
    started = time.monotonic()
    assert run_ranks(never_exits, world_size=2, timeout=60) == [0, 1]
    assert time.monotonic() - started < 40


def test_a_warning_of_the_ranks_is_warned_again_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_ranks(warns, world_size=2)
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, "a rank's own warning")]


def test_a_rank_that_dies_says_how() -> None:
    with pytest.raises(RuntimeError, match=r"^rank [01] exited with code 3: "):
        run_ranks(exits, world_size=2)


def test_a_result_that_cannot_travel_is_named() -> None:
    refused = r"^returns_a_function\(\) returned a function, which cannot be sent back"
    with pytest.raises(TypeError, match=refused):
        run_ranks(returns_a_function, world_size=2)


def test_a_value_that_cannot_travel_is_named_before_any_rank_starts() -> None:
    refused = r"^cannot send 'LOCK' \(lock\) to another process: .*uses_a_lock\(\)"
    with pytest.raises(TypeError, match=refused):
        run_ranks(uses_a_lock)


def test_what_is_sent_is_the_source_and_what_it_names() -> None:
    package = pack(summed)
    assert package.modules == {"dist": "torch.distributed"}
    assert [d.name for d in package.definitions] == ["doubled", "summed"]  # the page's order
    assert set(package.values) == {"OFFSET"}
    function = unpack(package)
    assert function is not summed
    assert function.__code__.co_firstlineno == summed.__code__.co_firstlineno
    assert pack(averaged_by_ddp).imported["DistributedDataParallel"] == (
        "torch.nn.parallel.distributed",
        "DistributedDataParallel",
    )


def test_a_function_that_cannot_be_sent_as_source_is_refused() -> None:
    scale = 2.0

    def closure(rank: int, world_size: int) -> float:
        return scale * rank

    with pytest.raises(TypeError, match=r"^closure\(\) uses variables of the function around it \(scale\)"):
        run_ranks(closure)
    with pytest.raises(TypeError, match=r"^run_ranks needs a function defined with def, not"):
        run_ranks(print)  # type: ignore[arg-type]
