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

During the learner's CPU run their module's `crunch` is wrapped so that each call appends
"pid start end" (CLOCK_MONOTONIC, one clock for every process on the machine) to a log: how many
calls ran at once in different processes is then counted, not timed, so a busy machine cannot blur
it. The wrapper reaches forked pool workers (they inherit the module); workers that import the
module afresh (spawn, forkserver) run the original and log nothing — the evidence is then "unseen".

Like with like: while the learner's crunch_all runs, the first process pool it makes (its kind,
ProcessPoolExecutor or multiprocessing.Pool, and its start method) and every process it starts
(BaseProcess.start, which runs in this process for every start method) are recorded. The reference
solution is then run with that start method and pool kind, and the same pool on tiny tasks is timed
too: its start-up and shutdown cost (`overhead_s`), which a spawn pool pays many times over a fork
pool and which the checker's speed requirement allows for.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import multiprocessing
import multiprocessing.pool
import multiprocessing.process
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
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
    """CPU seconds used by this process's finished child processes (a process pool's workers).

    0.0 where `resource` is missing (Windows): the check's other evidence, this process's own CPU
    staying low, then decides alone — the machine's limit, never held against the learner."""
    try:
        import resource  # POSIX only
    except ImportError:
        return 0.0
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


def _logging_crunch(module: Any, log_path: str) -> Callable[[int], Any]:
    """module.crunch, logging each call; it pickles by reference as `module.crunch` like the original."""
    original = module.crunch

    def crunch(n: int) -> Any:
        started = time.monotonic()
        value = original(n)
        line = f"{os.getpid()} {started!r} {time.monotonic()!r}\n".encode()
        handle = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(handle, line)  # one small O_APPEND write: lines from many processes never mix
        finally:
            os.close(handle)
        return value

    crunch.__module__, crunch.__qualname__, crunch.__name__ = module.__name__, "crunch", "crunch"
    return crunch


def most_at_once(calls: list[tuple[int, float, float]]) -> int:
    """The largest number of different processes inside a call at the same moment."""
    events = sorted([(start, 1, pid) for pid, start, _ in calls] + [(end, -1, pid) for pid, _, end in calls])
    running: dict[int, int] = {}
    most = 0
    for _, step, pid in events:  # at equal times an end (-1) sorts first: touching is not overlapping
        running[pid] = running.get(pid, 0) + step
        most = max(most, sum(1 for count in running.values() if count > 0))
    return most


def _read_calls(log_path: str) -> list[tuple[int, float, float]]:
    calls = []
    try:
        with open(log_path, encoding="utf-8") as log:
            for line in log:
                pid, start, end = line.split()
                calls.append((int(pid), float(start), float(end)))
    except FileNotFoundError:
        pass
    return calls


EXECUTOR = "ProcessPoolExecutor"
MP_POOL = "multiprocessing.Pool"


@contextmanager
def watching_pools(seen: dict[str, Any]) -> Iterator[None]:
    """Records in `seen` the first process pool made inside ("pool": kind and start method) and the
    pid of every process started inside ("started"): the pool's workers, whatever the start method."""
    seen["started"] = []
    process_start = multiprocessing.process.BaseProcess.start
    executor_init = ProcessPoolExecutor.__init__
    pool_init = multiprocessing.pool.Pool.__init__

    def start(process: Any) -> None:
        process_start(process)
        seen["started"].append(process.pid)

    def executor(self: Any, *args: Any, **kwargs: Any) -> None:
        executor_init(self, *args, **kwargs)
        context = getattr(self, "_mp_context", None) or multiprocessing.get_context()
        seen.setdefault("pool", {"kind": EXECUTOR, "method": context.get_start_method()})

    def pool(self: Any, *args: Any, **kwargs: Any) -> None:
        pool_init(self, *args, **kwargs)
        if not isinstance(self, multiprocessing.pool.ThreadPool):  # threads: not a process pool
            context = getattr(self, "_ctx", None) or multiprocessing.get_context()
            seen.setdefault("pool", {"kind": MP_POOL, "method": context.get_start_method()})

    multiprocessing.process.BaseProcess.start = start  # type: ignore[method-assign]
    ProcessPoolExecutor.__init__ = executor  # type: ignore[method-assign]
    multiprocessing.pool.Pool.__init__ = pool  # type: ignore[method-assign]
    try:
        yield
    finally:
        multiprocessing.process.BaseProcess.start = process_start  # type: ignore[method-assign]
        ProcessPoolExecutor.__init__ = executor_init  # type: ignore[method-assign]
        multiprocessing.pool.Pool.__init__ = pool_init  # type: ignore[method-assign]


def reference_like(ref: Any, sizes: list[int], workers: int, pool: dict[str, str] | None) -> list[Any]:
    """The reference solution's crunch_all, run with the learner's pool kind and start method (or as
    written, when the learner's pool was not seen): a spawn pool is compared with a spawn pool."""
    if pool is None:
        return list(ref.crunch_all(sizes, workers))
    if pool["kind"] == MP_POOL:
        with multiprocessing.get_context(pool["method"]).Pool(workers) as processes:
            return list(processes.map(ref.crunch, sizes, chunksize=1))
    # The reference's own code, with the default start method switched to the learner's for the call.
    previous = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method(pool["method"], force=True)
    try:
        return list(ref.crunch_all(sizes, workers))
    finally:
        multiprocessing.set_start_method(previous, force=True)


def pool_probe(sizes: list[int], workers: int) -> dict[str, Any]:
    """Before the timed rounds, untimed: the pool the learner's crunch_all makes (kind and start
    method, so every round compares like with like), what that pool costs to start and close here,
    timed warm (the first pool of a process also imports and starts multiprocessing's helpers, a
    cost no later pool pays), and the sequential time of `sizes` from two of them (crunch's time
    grows with n), so the checker can size the tasks before the first counted round."""
    mine, ref = learner(), reference()
    seen: dict[str, Any] = {"started": []}
    with watching_pools(seen):
        mine.crunch_all([1] * len(sizes), workers)  # tiny tasks: only the pool's own cost
    pool = seen.get("pool")
    overheads = [timed(lambda: reference_like(ref, [1] * len(sizes), workers, pool))[0] for _ in range(2)]
    sample = sizes[:2]
    sample_s, _ = timed(lambda: ref.crunch_all_sequential(sample))
    return {
        "pool": pool,
        "overhead_s": statistics.median(overheads),
        "sequential_s": sample_s * sum(sizes) / max(1, sum(sample)),
    }


def cpu_round(
    sizes: list[int], workers: int, rotation: int, like: dict[str, str] | None = None
) -> dict[str, Any]:
    """One round; `like` is the learner's pool seen in an earlier round (the reference may run before
    the learner's code in this round's order)."""
    mine, ref = learner(), reference()
    seen: dict[str, Any] = {"started": []}
    log_dir = tempfile.mkdtemp(prefix="concurrency-calls-")
    log_path = os.path.join(log_dir, "calls.log")
    original = getattr(mine, "crunch", None)
    if callable(original):
        mine.crunch = _logging_crunch(mine, log_path)

    def learner_run() -> Any:
        with watching_pools(seen):
            return mine.crunch_all(sizes, workers)

    runs = {
        "sequential": lambda: ref.crunch_all_sequential(sizes),
        "learner": learner_run,
        "reference": lambda: reference_like(ref, sizes, workers, seen.get("pool") or like),
    }
    order = list(runs)[rotation % 3 :] + list(runs)[: rotation % 3]
    times: dict[str, float] = {}
    results: dict[str, Any] = {}
    child_cpu = own_cpu = sequential_cpu = 0.0
    try:
        for which in order:
            before, own_before = children_cpu(), time.process_time()
            times[which], results[which] = timed(runs[which])
            if which == "learner":
                child_cpu = children_cpu() - before
                own_cpu = time.process_time() - own_before
            elif which == "sequential":
                sequential_cpu = time.process_time() - own_before
    finally:
        if callable(original):
            mine.crunch = original
    pool = seen.get("pool") or like
    # The same pool on tasks that take no time: what starting and closing it costs here, now.
    overhead_s, _ = timed(lambda: reference_like(ref, [1] * len(sizes), workers, pool))
    calls = _read_calls(log_path)
    for name in os.listdir(log_dir):
        os.remove(os.path.join(log_dir, name))
    os.rmdir(log_dir)
    expected = list(results["sequential"])
    return {
        "times": times,
        "results": list(results["learner"]),
        "expected": expected,
        "children_cpu_s": child_cpu,
        "own_cpu_s": own_cpu,  # this process's CPU during the learner's run (their threads count here)
        "sequential_cpu_s": sequential_cpu,
        # counted, not timed: None when no call was seen (workers that import the module afresh)
        "calls_seen": len(calls),
        "most_at_once": most_at_once(calls) if calls else None,
        "caller_pid": os.getpid(),
        "processes": len({pid for pid, _, _ in calls}),
        # every start method: the processes the learner's run started (None: none started, e.g. a
        # pool made once at import) and the pool it made (None: none seen)
        "started": len(seen["started"]) or None,
        "pool": seen.get("pool"),
        "reference_pool": pool,
        "overhead_s": overhead_s,
    }
