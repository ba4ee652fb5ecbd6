"""The DataLoader part: a loading-bound training loop and a num_workers sweep.

This module imports torch at the top, so lab.py imports it only when the sweep runs (and turns a
missing torch into a finding instead of a failure). The Dataset class lives at module level of an
importable module because DataLoader workers started with "spawn" import it by name.

A training loop with a DataLoader is a two-stage pipeline: [load a batch] -> [train step].
With num_workers=0 the main process does both, one after the other, so a step waits for every
batch. With num_workers=k, k worker processes load batches ahead while the main process trains,
and the loop runs at the pace of the slower stage: max(load time / k, step time).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch
from torch.utils.data import DataLoader, Dataset

# One sample costs IO_MS of waiting plus DECODE_ITERS of pure-Python work (about 2 ms in all here);
# a batch of 16 then takes ~30 ms to load, several times one training step of the MLP below.
IO_MS = 1.5
DECODE_ITERS = 600
FEATURES = 1024
HIDDEN = 2048


def decode(n: int) -> int:
    """Pure-Python CPU work standing in for parsing or augmenting a sample."""
    x = 0
    for i in range(n):
        x = (x * 31 + i) % 1_000_003
    return x


class SlowDataset(Dataset):
    """Each sample costs io_ms of waiting (a disk or network read: sleep) plus decode_iters of
    pure-Python CPU work (parsing, augmentation), then becomes a random feature vector."""

    def __init__(self, length: int, features: int, io_ms: float, decode_iters: int) -> None:
        self.length = length
        self.features = features
        self.io_s = io_ms / 1000
        self.decode_iters = decode_iters

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        time.sleep(self.io_s)  # I/O: waiting, no CPU
        decode(self.decode_iters)  # CPU work: needs a core
        generator = torch.Generator().manual_seed(index)
        return torch.randn(self.features, generator=generator), index % 10


def make_step(features: int, hidden: int) -> Callable[[tuple[torch.Tensor, torch.Tensor]], None]:
    """A small MLP and one SGD training step on a batch."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10)
    )
    # Plain SGD written out: p <- p - lr * grad. (torch.optim.SGD does the same, but constructing
    # the first optimizer in a process costs ~1.5 s of lazy imports, which would blur this lab.)
    lr = 0.01

    def step(batch: tuple[torch.Tensor, torch.Tensor]) -> None:
        x, y = batch
        model.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad

    return step


def measure(
    num_workers: int,
    batches: int,
    batch_size: int,
    features: int = FEATURES,
    hidden: int = HIDDEN,
    io_ms: float = IO_MS,
    decode_iters: int = DECODE_ITERS,
) -> dict[str, float]:
    """Train for `batches` batches and time where the training loop spends its time.

    The first batch from every worker is timed separately ("startup": starting the worker
    processes, each of which imports torch; one that starts late would otherwise show up as
    waiting in the loop), then the steady loop is timed:
        wait  time in next(iterator): the training side is idle, waiting for data
        step  time in the training step
    """
    warmup = max(1, num_workers)
    dataset = SlowDataset((batches + warmup) * batch_size, features, io_ms, decode_iters)
    loader = DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        # Same start method as the rest of the labs (portable; the default differs per OS).
        multiprocessing_context="spawn" if num_workers > 0 else None,
    )
    step = make_step(features, hidden)
    begin = time.perf_counter()
    iterator = iter(loader)
    for _ in range(warmup):  # batches go round the workers in turn: one from each
        step(next(iterator))
    startup = time.perf_counter() - begin

    wait = work = 0.0
    count = 0
    loop_start = loop_end = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        try:
            batch = next(iterator)
        except StopIteration:  # the iterator now shuts its workers down: not part of the loop's time
            break
        t1 = time.perf_counter()
        step(batch)
        loop_end = time.perf_counter()
        wait += t1 - t0
        work += loop_end - t1
        count += 1
    total = loop_end - loop_start
    del iterator
    return {
        "num_workers": num_workers,
        "batches": count,
        "batches_per_s": count / total,
        "idle_share": min(1.0, wait / total),
        "wait_s": wait,
        "step_s": work,
        "step_ms": 1000 * work / count,
        "startup_s": startup,
    }


def sample_load_ms(io_ms: float = IO_MS, decode_iters: int = DECODE_ITERS, samples: int = 20) -> float:
    """What loading one sample costs in the main process (sleep + decode), measured."""
    dataset = SlowDataset(samples, 8, io_ms, decode_iters)
    start = time.perf_counter()
    for i in range(samples):
        dataset[i]
    return 1000 * (time.perf_counter() - start) / samples


def sweep(
    worker_counts: list[int], batches: int, batch_size: int, on_progress: Callable[[int, int], None]
) -> dict[str, object]:
    """measure() for each num_workers, plus the load cost of one batch for comparison."""
    torch.set_num_threads(1)  # one thread for the training step: a stable step time on a small machine
    rows = []
    for k, num_workers in enumerate(worker_counts):
        on_progress(k, num_workers)
        rows.append(measure(num_workers, batches, batch_size))
    return {
        "rows": rows,
        "load_ms_per_batch": batch_size * sample_load_ms(),
        "io_ms_per_batch": batch_size * IO_MS,  # the sleeping part of loading: needs no core
        "batch_size": batch_size,
    }
