"""Runs in the learner's child process (labs._exercise.run_learner): one measured round of the I/O or
the CPU workload — the sequential reference, the learner's concurrent_work.py and the reference
solution (solution/concurrent_work.py), in a rotating order — and returns the times as plain data.

A process pool's workers find the function they run by unpickling "module name + function name",
so the reference must be importable by a name of its own in *every* start method: with `fork`
(Linux up to Python 3.13) a worker inherits sys.modules, but with `forkserver` (Linux from 3.14) and
`spawn` (macOS, Windows) it imports the module afresh from sys.path. So the reference solution is
copied, as reference_concurrent_work.py, into a scratch folder put at the end of sys.path (after
the learner's workspace, which stays first: their concurrent_work is never shadowed).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import inspect
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def learner() -> Any:
    return importlib.import_module("concurrent_work")


REFERENCE = "reference_concurrent_work"


def reference() -> Any:
    """The reference solution, importable by name in this process and in its pool's workers."""
    if REFERENCE not in sys.modules:
        scratch = tempfile.mkdtemp(prefix="studyapp-reference-")
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        shutil.copyfile(HERE / "solution" / "concurrent_work.py", Path(scratch) / f"{REFERENCE}.py")
        sys.path.append(scratch)  # spawn and forkserver workers get this process's sys.path
    return importlib.import_module(REFERENCE)


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
    child_cpu = sequential_cpu = 0.0
    for which in order:
        before, own_before = children_cpu(), time.process_time()
        times[which], results[which] = timed(runs[which])
        if which == "learner":
            child_cpu = children_cpu() - before
        elif which == "sequential":
            sequential_cpu = time.process_time() - own_before
    expected = list(results["sequential"])
    return {
        "times": times,
        "results": list(results["learner"]),
        "expected": expected,
        "children_cpu_s": child_cpu,
        "sequential_cpu_s": sequential_cpu,
    }
