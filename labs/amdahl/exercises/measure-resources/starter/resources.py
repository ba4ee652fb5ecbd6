"""Measure what a function costs besides time: memory, waiting, and what parallelism buys.

Three measurements every performance analysis starts with:

1. Peak memory. `tracemalloc` (standard library) traces every allocation Python makes;
   `tracemalloc.get_traced_memory()` returns (current, peak) bytes since tracing started.
   The PEAK matters: a function may allocate 50 MB, free it and return — current is ~0 again.

2. I/O-wait share. Wall-clock time (`time.perf_counter()`) runs on while a function waits for a
   disk, the network or a `sleep`; CPU time (`time.process_time()`, CPU seconds of this process)
   does not. So
       I/O-wait share = 1 − CPU time / wall time      (≈ 1: waiting, ≈ 0: computing)
   On a busy machine a computing function also waits — for a CPU core — so its share rises.

3. Parallel efficiency. Run the same work serially and with n workers:
       speedup    = serial time / parallel time
       efficiency = speedup / n                       (1 = every worker fully used)
   With THREADS (concurrent.futures.ThreadPoolExecutor) waiting work overlaps well, but pure
   Python computation does not: the GIL lets one thread run Python at a time, so its
   efficiency falls towards 1/n.

Check your work with:  studyapp exercise check measure-resources
"""

from __future__ import annotations

# The tools you need, imported for you (noqa: they are unused until you write the TODOs).
import time  # noqa: F401
import tracemalloc  # noqa: F401
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor  # noqa: F401
from typing import Any


def peak_memory_bytes(func: Callable[..., Any], *args: Any) -> int:
    """Call func(*args) and return the peak number of bytes it had allocated at once."""
    # TODO 1: start tracing, call the function, read the peak, stop tracing — every call
    # measured on its own (a second call must not see the first call's peak). Use try/finally
    # so tracing stops even when func raises.
    raise NotImplementedError("TODO: tracemalloc peak of one call")


def io_wait_share(func: Callable[..., Any], *args: Any) -> float:
    """Call func(*args) and return the share of its wall-clock time spent not computing (0..1)."""
    # TODO 2: read time.perf_counter() and time.process_time() before and after the call.
    # Two different clocks: wall time includes waiting, CPU time does not.
    # Clamp the result to [0, 1] (the clocks tick at different resolutions).
    raise NotImplementedError("TODO: 1 − CPU time / wall time")


def parallel_efficiency(task: Callable[[Any], Any], items: list[Any], workers: int) -> dict[str, float]:
    """Time task(item) for every item serially, then on `workers` threads.

    Returns {"serial_s", "parallel_s", "speedup", "efficiency"}.
    """
    # TODO 3: serial: a plain loop over items, timed with time.perf_counter().
    # TODO 4: parallel: ThreadPoolExecutor(max_workers=workers) and pool.map(task, items) —
    #   submit everything first, then wait; calling .result() right after each submit would
    #   run the items one by one again.
    # TODO 5: speedup = serial / parallel; efficiency = speedup / workers.
    raise NotImplementedError("TODO: serial vs threaded timing")
