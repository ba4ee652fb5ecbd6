"""The workload of the measure and simulate modes.

Worker functions live here, at module level of an importable module, because the "spawn"
start method starts a fresh Python in each worker process, which imports this module by name
and looks the function up there (a function defined in __main__ or inside another function
cannot be found that way).
"""

from __future__ import annotations

import os
import time


def spin(n: int) -> int:
    """CPU-bound pure-Python arithmetic: n loop iterations, no I/O, no sleeping.

    Pure Python holds the GIL while it runs, so threads cannot run this in parallel; separate
    processes can (each has its own interpreter and its own GIL).
    """
    x = 0
    for i in range(n):
        x = (x * 31 + i) % 1_000_003
    return x


def timed_spin(n: int) -> float:
    """Run spin(n) and return how long it took inside the worker (seconds)."""
    start = time.perf_counter()
    spin(n)
    return time.perf_counter() - start


def ready(_: object = None) -> int:
    """A no-op task used to start every worker process before the clock starts."""
    return os.getpid()


def sleep_for(seconds: float) -> float:
    """Simulated work: sleeping releases the GIL, so threads sleep at the same time."""
    start = time.perf_counter()
    time.sleep(seconds)
    return time.perf_counter() - start
