"""Checker of the measure-resources exercise (docs/EXERCISES.md).

The learner's three functions run in child processes (the `probe_*` drivers below) on planted
functions whose answer is known: an allocation of a freshly chosen size, a sleep-heavy and a
CPU-bound function, sleeping and computing tasks for a thread pool.

Noise (README.md, "검사 규칙"):
- memory: a byte count does not depend on load; ±5 %.
- I/O-wait share: the driver measures the same call from outside, in the same run, so the learner's
  number is compared with what this machine really did. A CPU-bound function on a machine too busy
  to give it a core looks like waiting: where Linux reports the time spent in the run queue
  (/proc/self/schedstat) that part is taken out; otherwise it is re-measured (3 tries) and then
  reported undecided.
- parallel efficiency: the driver counts how many tasks really ran at once (no clock involved);
  efficiency bounds that a busy machine can break are re-measured, then undecided, never failed.
"""

from __future__ import annotations

import math
import os
import secrets
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, LearnerResult, learner_function, parse_args, run_learner

LEARNER_FILE = "resources.py"
MIB = 1024 * 1024
MEMORY_TOLERANCE = 0.05
SHARE_AGREEMENT = 0.15  # the learner's share vs the driver's outside measurement
SLEEP_SHARE_MIN = 0.8
CPU_SHARE_MAX = 0.5
SLEEP_EFFICIENCY = (0.6, 1.1)
CPU_EFFICIENCY_MAX = 0.6
TASKS = 8


def _worker_count() -> int:
    """3 workers, or 5 where 3 is this machine's CPU count: never a count the CPU count could stand
    in for, so `speedup / os.cpu_count()` cannot pass on any machine (a 4-CPU laptop included)."""
    cpu_counts = {
        os.cpu_count() or 1,
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1,
    }
    return next(workers for workers in (3, 5, 7) if workers not in cpu_counts)


WORKERS = _worker_count()
TRIES = 3


def settings(quick: bool) -> dict[str, float]:
    if quick:
        return {"alloc_mib_low": 8, "alloc_mib_high": 16, "wait_s": 0.15, "task_s": 0.03}
    return {"alloc_mib_low": 16, "alloc_mib_high": 48, "wait_s": 0.3, "task_s": 0.05}


# -- planted functions (run in the learner's child process) -------------------------------------------


def allocate_and_free(size: int) -> int:
    """Hold `size` bytes at once, touch them, free them: the peak is `size`, afterwards ~0."""
    block = bytearray(size)
    block[::4096] = b"\x01" * len(range(0, size, 4096))
    total = len(block)
    del block
    return total


def sleep_heavy(seconds: float) -> int:
    """Waits (like I/O) for almost all of its time; computes a little."""
    time.sleep(seconds)
    return sum(range(20_000))


def cpu_bound(cpu_seconds: float) -> int:
    """Computes for `cpu_seconds` of CPU time (not wall time: a busy machine stretches the wall)."""
    start = time.process_time()
    total = 0
    while time.process_time() - start < cpu_seconds:
        total += sum(range(2_000))
    return total


class _Concurrency:
    """Counts calls and the most calls in flight at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.calls = 0

    def enter(self) -> None:
        with self.lock:
            self.calls += 1
            self.running += 1
            self.most = max(self.most, self.running)

    def leave(self) -> None:
        with self.lock:
            self.running -= 1


def _calibrate(seconds: float) -> int:
    """How many `sum(range(2000))` make about `seconds` of one thread's computing."""
    loops, elapsed = 1, 0.0
    while elapsed < 0.02:
        loops *= 2
        start = time.perf_counter()
        for _ in range(loops):
            sum(range(2_000))
        elapsed = time.perf_counter() - start
    return max(1, round(loops * seconds / elapsed))


# -- drivers (in the learner's child process) ---------------------------------------------------------


def probe_memory(sizes: list[int]) -> list[dict[str, Any]]:
    import tracemalloc

    peak_memory_bytes = learner_function(LEARNER_FILE, "peak_memory_bytes")
    out = []
    for size in sizes:
        tracing_before = tracemalloc.is_tracing()
        value = peak_memory_bytes(allocate_and_free, size)
        out.append(
            {
                "size": size,
                "value": _number(value),
                "tracing_after": tracemalloc.is_tracing() and not tracing_before,
                "maxrss": _process_peak_rss(),
            }
        )
    return out


def _process_peak_rss() -> int | None:
    """This process's peak resident memory as ru_maxrss reports it (KiB on Linux, bytes on macOS),
    to recognise a learner who returned it; None where the resource module is missing (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def run_queue_s() -> float | None:
    """Seconds this (main) thread has spent runnable but waiting for a CPU, from Linux's
    /proc/self/schedstat; None where the kernel does not tell."""
    try:
        with open("/proc/self/schedstat", encoding="ascii") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def probe_io(wait_s: float) -> dict[str, Any]:
    io_wait_share = learner_function(LEARNER_FILE, "io_wait_share")
    out: dict[str, Any] = {}
    for name, function in (("sleep", sleep_heavy), ("cpu", cpu_bound)):
        queued_start = run_queue_s()
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        value = io_wait_share(function, wait_s)
        cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
        queued_end = run_queue_s()
        queued = None if queued_start is None or queued_end is None else queued_end - queued_start
        out[name] = {
            "value": _number(value),
            "outside": 1.0 - cpu / wall if wall > 0 else 0.0,
            "queued_share": None if queued is None or wall <= 0 else queued / wall,
            "wall_s": wall,
        }
    return out


def _waiting_for_a_cpu(row: dict[str, Any]) -> bool:
    """Is the CPU-bound function's high share explained by time in the run queue (a busy machine)?"""
    queued = row["queued_share"]
    return queued is not None and row["outside"] - queued <= CPU_SHARE_MAX


def probe_parallel(task_s: float, items: int, workers: int) -> dict[str, Any]:
    parallel_efficiency = learner_function(LEARNER_FILE, "parallel_efficiency")
    loops = _calibrate(task_s)
    out: dict[str, Any] = {}
    for name in ("sleep", "cpu"):
        seen = _Concurrency()

        def task(item: int, seen: _Concurrency = seen, kind: str = name) -> int:
            seen.enter()
            try:
                if kind == "sleep":
                    time.sleep(task_s)
                    return item
                total = 0
                for _ in range(loops):
                    total += sum(range(2_000))
                return total
            finally:
                seen.leave()

        start = time.perf_counter()
        value = parallel_efficiency(task, list(range(items)), workers)
        wall = time.perf_counter() - start
        if isinstance(value, dict):
            value = {str(k): _number(v) for k, v in value.items()}
        else:
            value = f"a {type(value).__name__}"
        out[name] = {"value": value, "wall_s": wall, "calls": seen.calls, "most_at_once": seen.most}
    return out


def _number(value: Any) -> Any:
    """A float, or a description of what the learner returned instead."""
    if isinstance(value, bool):
        return f"a bool ({value})"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return f"a {type(value).__name__}"
    return number if math.isfinite(number) else f"{number}"


# -- the requirements --------------------------------------------------------------------------------


def check_memory(check: Checker, result: LearnerResult) -> None:
    if not check.require_ran("peak_memory_bytes() runs", result):
        return
    name = "peak_memory_bytes: the peak of a known allocation"
    shown = []
    for i, row in enumerate(result.value):
        size, value = row["size"], row["value"]
        if isinstance(value, str):
            check.requirement(name, False, f"returned {value}; return the peak as a number of bytes")
            break
        if not (size * (1 - MEMORY_TOLERANCE) <= value <= size * (1 + MEMORY_TOLERANCE) + 64 * 1024):
            maxrss = row.get("maxrss")
            if maxrss and any(abs(value - rss) <= 0.1 * rss for rss in (maxrss, maxrss * 1024)):
                hint = (
                    ": that is the whole process's peak resident memory (resource.getrusage(...).ru_maxrss: "
                    "the interpreter, every import and earlier calls count, it never goes down, and it is "
                    "KiB on Linux but bytes on macOS) — measure only this call's allocations, with tracemalloc"
                )
            elif value < 0.1 * size:
                hint = ": about what is still allocated AFTER the call (current); the function freed its block — report the peak"
            elif i > 0 and abs(value - result.value[0]["size"]) <= MEMORY_TOLERANCE * result.value[0]["size"]:
                hint = ": that is the previous call's peak — measure every call on its own (tracemalloc.stop() or reset_peak())"
            elif value > 1.5 * size:
                hint = (
                    ": more than the function allocated — something else is counted too (the whole process?)"
                )
            else:
                hint = ""
            check.requirement(
                name,
                False,
                f"a function that allocates {size / MIB:.1f} MiB: you measured {value / MIB:.2f} MiB{hint}",
            )
            break
        shown.append(f"{size / MIB:.1f} MiB → {value / MIB:.2f} MiB")
    else:
        check.requirement(name, True, "; ".join(shown) + f" (±{MEMORY_TOLERANCE:.0%})")
    left_on = any(row["tracing_after"] for row in result.value)
    check.require(
        "peak_memory_bytes: stops tracing afterwards",
        not left_on,
        "tracemalloc is off again after every call",
        "tracemalloc is still tracing after your function returned: it slows every later allocation; stop it (try/finally)",
    )


def check_io(check: Checker, workspace: Path, wait_s: float) -> None:
    here = Path(__file__).resolve()
    for attempt in range(1, TRIES + 1):
        result = run_learner(workspace, here, "probe_io", wait_s, timeout_s=30 + 4 * wait_s)
        if not check.require_ran("io_wait_share() runs", result):
            return
        sleep, cpu = result.value["sleep"], result.value["cpu"]
        for row in (sleep, cpu):
            if isinstance(row["value"], str):
                check.requirement(
                    "io_wait_share() returns a share",
                    False,
                    f"returned {row['value']}; return a number in [0, 1]",
                )
                return
        if cpu["outside"] <= CPU_SHARE_MAX or _waiting_for_a_cpu(cpu) or attempt == TRIES:
            break
        check.progress(
            f"the CPU-bound function waited {cpu['outside']:.0%} of its time for a CPU: the machine is busy, measuring again"
        )
    name = "io_wait_share: a sleep-heavy function waits"
    mine, outside = sleep["value"], sleep["outside"]
    if abs(mine - outside) > SHARE_AGREEMENT or mine < SLEEP_SHARE_MIN:
        hint = ""
        if mine <= 0.05:
            hint = ": did you read the same clock twice? CPU time is time.process_time(), wall time time.perf_counter()"
        elif abs((1 - mine) - outside) <= SHARE_AGREEMENT:
            hint = ": that is the CPU share; the waiting share is 1 − CPU time / wall time"
        check.requirement(
            name,
            False,
            f"a function that sleeps {wait_s:g} s: you measured {mine:.2f}, measured from outside {outside:.2f}{hint}",
        )
    else:
        check.requirement(
            name, True, f"{mine:.2f} (measured from outside: {outside:.2f}; needs ≥ {SLEEP_SHARE_MIN})"
        )
    name = "io_wait_share: a CPU-bound function barely waits"
    mine, outside = cpu["value"], cpu["outside"]
    if abs(mine - outside) > SHARE_AGREEMENT:
        check.requirement(
            name, False, f"you measured {mine:.2f}, measured from outside {outside:.2f} in the same run"
        )
    elif outside > CPU_SHARE_MAX and _waiting_for_a_cpu(cpu):
        check.requirement(
            name,
            True,
            f"{mine:.2f}, agreeing with the outside measurement ({outside:.2f}); of that, {cpu['queued_share']:.2f} was "
            "waiting for a CPU on this busy machine (Linux run queue), so the function itself barely waits",
        )
    elif outside > CPU_SHARE_MAX:
        check.undecided(
            name,
            f"the machine was too busy: even measured from outside the CPU-bound function waited {outside:.0%} for a CPU "
            f"in {TRIES} tries (yours {mine:.2f} agrees); close other programs and check again",
        )
    else:
        check.require(
            name,
            mine <= CPU_SHARE_MAX,
            f"{mine:.2f} (from outside {outside:.2f})",
            f"{mine:.2f}: needs ≤ {CPU_SHARE_MAX}",
        )


EFFICIENCY_KEYS = ("serial_s", "parallel_s", "speedup", "efficiency")


def _consistent(check: Checker, row: dict[str, Any], kind: str, items: int, task_s: float) -> bool:
    name = "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers"
    value = row["value"]
    if isinstance(value, str):
        return check.requirement(
            name, False, f"returned {value}; return a dict with {', '.join(EFFICIENCY_KEYS)}"
        )
    missing = [key for key in EFFICIENCY_KEYS if not isinstance(value.get(key), float)]
    if missing:
        return check.requirement(name, False, f"no number for {', '.join(missing)} in {value}")
    serial, parallel, speedup, efficiency = (value[key] for key in EFFICIENCY_KEYS)
    if serial <= 0 or parallel <= 0:
        return check.requirement(
            name, False, f"serial_s {serial:.3g} and parallel_s {parallel:.3g} must be positive"
        )
    if not math.isclose(speedup, serial / parallel, rel_tol=1e-6):
        return check.requirement(
            name, False, f"speedup {speedup:.4g}, but serial_s / parallel_s = {serial / parallel:.4g}"
        )
    if not math.isclose(efficiency, speedup / WORKERS, rel_tol=1e-6):
        hint = (
            ": that is the speedup — divide it by the number of workers"
            if math.isclose(efficiency, speedup, rel_tol=1e-6)
            else ""
        )
        return check.requirement(
            name,
            False,
            f"efficiency {efficiency:.4g} with {WORKERS} workers, but speedup / workers = {speedup / WORKERS:.4g}{hint}",
        )
    if row["calls"] != 2 * items:
        return check.requirement(
            name,
            False,
            f"the task ran {row['calls']} times for {items} items; run every item once serially and once in parallel",
        )
    if kind == "sleep" and serial < items * task_s * 0.95:
        return check.requirement(
            name,
            False,
            f"serial_s {serial:.3f} s, but {items} tasks of {task_s:g} s cannot take less than {items * task_s:.2f} s",
        )
    if serial + parallel > row["wall_s"] + 0.05:
        return check.requirement(
            name,
            False,
            f"serial_s + parallel_s = {serial + parallel:.3f} s is longer than your whole call ({row['wall_s']:.3f} s)",
        )
    return True


def check_parallel(check: Checker, workspace: Path, task_s: float) -> None:
    here = Path(__file__).resolve()
    for attempt in range(1, TRIES + 1):
        result = run_learner(
            workspace, here, "probe_parallel", task_s, TASKS, WORKERS, timeout_s=60 + 40 * task_s
        )
        if not result.ok and "pickle" in (result.error or "").lower():
            result.error = (
                f"{result.error} — use threads (ThreadPoolExecutor): the planted tasks are local functions "
                "a process pool cannot send to its workers"
            )
        if not check.require_ran("parallel_efficiency() runs", result):
            return
        sleep, cpu = result.value["sleep"], result.value["cpu"]
        if not (
            _consistent(check, sleep, "sleep", TASKS, task_s)
            and _consistent(check, cpu, "cpu", TASKS, task_s)
        ):
            return
        sleep_eff, cpu_eff = sleep["value"]["efficiency"], cpu["value"]["efficiency"]
        noisy = (
            sleep["most_at_once"] == WORKERS and sleep_eff < SLEEP_EFFICIENCY[0]
        ) or cpu_eff >= CPU_EFFICIENCY_MAX
        if not noisy or attempt == TRIES:
            break
        check.progress(
            f"efficiencies {sleep_eff:.2f} (sleeping) and {cpu_eff:.2f} (computing) look disturbed by a busy machine: measuring again"
        )
    check.requirement(
        "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers",
        True,
        f"consistent for both task kinds ({WORKERS} workers, {TASKS} tasks)",
    )
    check.require(
        "parallel_efficiency: as many tasks run at once as there are workers",
        sleep["most_at_once"] == WORKERS,
        f"the planted tasks saw {WORKERS} running at the same time",
        (
            f"{sleep['most_at_once']} tasks ran at the same time with {WORKERS} workers: the pool must have "
            "exactly `workers` threads (ThreadPoolExecutor(max_workers=workers))"
        )
        if sleep["most_at_once"] > WORKERS
        else f"at most {sleep['most_at_once']} task(s) ran at the same time with {WORKERS} workers: submit every item before "
        "waiting for results (pool.map), not .result() right after each submit",
    )
    name = "parallel_efficiency: sleeping tasks use every worker"
    low, high = SLEEP_EFFICIENCY
    if sleep_eff > high:
        check.requirement(
            name,
            False,
            f"efficiency {sleep_eff:.2f} > {high}: more than every worker fully used is impossible",
        )
    elif sleep_eff >= low:
        check.requirement(
            name,
            True,
            f"efficiency {sleep_eff:.2f} (speedup {sleep['value']['speedup']:.2f} on {WORKERS} threads)",
        )
    elif sleep["most_at_once"] == WORKERS:
        check.undecided(
            name,
            f"efficiency {sleep_eff:.2f} in {TRIES} tries although {WORKERS} tasks ran at once: the machine is too busy to tell; check again",
        )
    else:
        check.requirement(
            name, False, f"efficiency {sleep_eff:.2f}: needs {low}–{high} for tasks that only wait"
        )
    name = "parallel_efficiency: computing tasks do not scale on threads (GIL)"
    if cpu_eff < CPU_EFFICIENCY_MAX:
        check.requirement(
            name, True, f"efficiency {cpu_eff:.2f} ≈ 1/{WORKERS}: one thread runs Python at a time"
        )
    else:
        check.undecided(
            name,
            f"efficiency {cpu_eff:.2f} in {TRIES} tries; pure-Python work on threads cannot reach that — the timings were disturbed; check again",
        )


def main() -> None:
    args = parse_args()
    with Checker(args) as check:
        chosen = settings(args.quick)
        seed = secrets.randbits(30)
        low, high = int(chosen["alloc_mib_low"]), int(chosen["alloc_mib_high"])
        first = low * MIB + seed % ((high - low) * MIB)
        sizes = [first, first // 4]
        here = Path(__file__).resolve()
        check.progress(
            f"peak memory of functions that allocate {sizes[0] / MIB:.1f} and {sizes[1] / MIB:.1f} MiB"
        )
        check_memory(check, run_learner(args.workspace, here, "probe_memory", sizes, timeout_s=60))
        check.progress(
            f"I/O-wait share of a function that sleeps {chosen['wait_s']:g} s and one that computes {chosen['wait_s']:g} s"
        )
        check_io(check, args.workspace, chosen["wait_s"])
        check.progress(f"parallel efficiency: {TASKS} tasks of {chosen['task_s']:g} s on {WORKERS} threads")
        check_parallel(check, args.workspace, chosen["task_s"])


if __name__ == "__main__":
    main()
