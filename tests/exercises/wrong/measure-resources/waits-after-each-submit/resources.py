"""Measure what a function costs besides time: memory, waiting, and what parallelism buys.

WRONG on purpose: waits for each task right after submitting it (runs serially). peak memory: tracemalloc peak of one call; I/O-wait share: 1 − CPU time /
wall time; parallel efficiency: (serial time / parallel time) / workers, with threads.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def peak_memory_bytes(func: Callable[..., Any], *args: Any) -> int:
    """Call func(*args) and return the peak number of bytes it had allocated at once."""
    tracemalloc.start()
    try:
        func(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()  # also forgets this call's peak, so the next call starts at 0
    return peak


def io_wait_share(func: Callable[..., Any], *args: Any) -> float:
    """Call func(*args) and return the share of its wall-clock time spent not computing (0..1)."""
    wall_start = time.perf_counter()
    cpu_start = time.process_time()
    func(*args)
    cpu = time.process_time() - cpu_start
    wall = time.perf_counter() - wall_start
    if wall <= 0:
        return 0.0
    return min(1.0, max(0.0, 1.0 - cpu / wall))


def parallel_efficiency(task: Callable[[Any], Any], items: list[Any], workers: int) -> dict[str, float]:
    """Time task(item) for every item serially, then on `workers` threads."""
    start = time.perf_counter()
    for item in items:
        task(item)
    serial = time.perf_counter() - start

    with ThreadPoolExecutor(max_workers=workers) as pool:
        start = time.perf_counter()
        for item in items:
            pool.submit(task, item).result()
        parallel = time.perf_counter() - start

    speedup = serial / parallel
    return {"serial_s": serial, "parallel_s": parallel, "speedup": speedup, "efficiency": speedup / workers}
