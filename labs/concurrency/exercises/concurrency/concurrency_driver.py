"""Runs in the learner's child process (labs._exercise.run_learner): one measured round of the I/O or
the CPU workload — the sequential reference, the learner's concurrent_work.py and the reference
solution (solution/concurrent_work.py), in a rotating order — and returns the times as plain data.

A process pool's workers find the function they run by unpickling "module name + function name",
so the reference must be importable by its name in *every* start method: with `fork` (Linux up to
Python 3.13) a worker inherits sys.modules, but with `forkserver` (Linux from 3.14) and `spawn`
(macOS, Windows) it imports the module afresh from sys.path. The reference is therefore imported
as what it is in the repository, labs.concurrency.exercises.concurrency.solution.concurrent_work:
the `labs` package is on this process's sys.path, and so on its workers' (after the learner's
workspace, which stays first: their concurrent_work is never shadowed).

With forkserver, pool workers are children of the fork server, not of this process, so
RUSAGE_CHILDREN does not see their CPU time; this process's own CPU time during the learner's run
is measured too: work done elsewhere leaves it near zero, work done in threads does not.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def learner() -> Any:
    return importlib.import_module("concurrent_work")


# The reference's module name, the same in this process and in any pool worker (see above).
REFERENCE = "labs.concurrency.exercises.concurrency.solution.concurrent_work"


def reference() -> Any:
    module = importlib.import_module(REFERENCE)
    assert Path(module.__file__ or "").resolve() == HERE / "solution" / "concurrent_work.py", module.__file__
    return module


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = call()
    return time.perf_counter() - started, value


def children_cpu() -> float:
    """CPU seconds used by this process's finished child processes (a process pool's workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def io_round(delays: list[float], rotation: int) -> dict[str, Any]:
    mine, ref = learner(), reference()
    if not inspect.iscoroutinefunction(mine.fetch_all):
        return {"not_async": True}
    runs = {
        "sequential": lambda: asyncio.run(ref.fetch_all_sequential(delays)),
        "learner": lambda: asyncio.run(mine.fetch_all(delays)),
        "reference": lambda: asyncio.run(ref.fetch_all(delays)),
    }
    order = list(runs)[rotation % 3 :] + list(runs)[: rotation % 3]
    times: dict[str, float] = {}
    results: dict[str, Any] = {}
    for which in order:
        times[which], results[which] = timed(runs[which])
    return {"times": times, "results": list(results["learner"]), "expected": list(delays)}


def calibrate(task_s: float) -> int:
    """A crunch() size that takes about `task_s` seconds here, now."""
    crunch = reference().crunch
    n = 20_000
    while True:
        started = time.process_time()  # CPU time: another program's load does not inflate it
        crunch(n)
        elapsed = time.process_time() - started
        if elapsed >= 0.02 or n > 50_000_000:
            return max(1000, int(n * task_s / max(elapsed, 1e-6)))
        n *= 4


def cpu_round(sizes: list[int], workers: int, rotation: int) -> dict[str, Any]:
    mine, ref = learner(), reference()
    runs = {
        "sequential": lambda: ref.crunch_all_sequential(sizes),
        "learner": lambda: mine.crunch_all(sizes, workers),
        "reference": lambda: ref.crunch_all(sizes, workers),
    }
    order = list(runs)[rotation % 3 :] + list(runs)[: rotation % 3]
    times: dict[str, float] = {}
    results: dict[str, Any] = {}
    child_cpu = own_cpu = sequential_cpu = 0.0
    for which in order:
        before, own_before = children_cpu(), time.process_time()
        times[which], results[which] = timed(runs[which])
        if which == "learner":
            child_cpu = children_cpu() - before
            own_cpu = time.process_time() - own_before
        elif which == "sequential":
            sequential_cpu = time.process_time() - own_before
    expected = list(results["sequential"])
    return {
        "times": times,
        "results": list(results["learner"]),
        "expected": expected,
        "children_cpu_s": child_cpu,
        "own_cpu_s": own_cpu,  # this process's CPU during the learner's run (their threads count here)
        "sequential_cpu_s": sequential_cpu,
    }
