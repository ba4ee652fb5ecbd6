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
import random
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

from labs._exercise import (
    Checker,
    LearnerResult,
    is_close,
    learner_function,
    parse_args,
    reference_function,
    run_learner,
    say,
    short_repr,
)
from labs._exercise.shrink import answer_or_error

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


class _Clock:
    """A clock the checker moves by hand: it stands still unless the planted function advances it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.reads = 0  # a function that never reads it measures with some other clock

    def read(self) -> float:
        self.reads += 1
        return self.now

    def read_ns(self) -> int:
        self.reads += 1
        return round(self.now * 1e9)


def clock_cases(seed: int) -> list[tuple[float, float, float, float]]:
    """(perf_counter at the call, process_time at the call, wall seconds, CPU seconds) of one call:
    the edges first (0 s, a tiny call, CPU = wall, no CPU at all, CPU beyond wall as two busy threads
    make it), then generated calls of several sizes from several clock starts. CPU time never
    exceeds twice the wall time here (two threads) and neither clock goes backwards."""
    cases = [
        (0.0, 0.0, 0.0, 0.0),
        (5.0, 0.25, 0.0, 0.0),
        (5.0, 0.25, 2e-6, 0.0),
        (5.0, 0.25, 2e-6, 1e-6),
        (5.0, 0.25, 0.5, 0.5),
        (5.0, 0.25, 0.5, 0.0),
        (5.0, 0.25, 0.5, 1.0),
        (0.001, 0.002, 0.5, 0.125),
    ]
    rng = random.Random(seed)
    for wall_s in (1e-5, 1e-3, 0.2, 3.0, 120.0):
        for _ in range(3):
            wall = wall_s * rng.uniform(0.5, 2.0)
            cpu = wall * rng.choice((0.0, rng.uniform(0.0, 1.0), rng.uniform(1.0, 2.0)))
            starts = (0.0, rng.uniform(0.0, wall / 2), rng.uniform(1.0, 1e5))
            cases.append((rng.choice(starts), rng.choice(starts), wall, cpu))
    return cases


def probe_io_clocks(seed: int) -> dict[str, Any] | None:
    """io_wait_share with time.perf_counter and time.process_time replaced by clocks this driver
    moves (the planted function advances them by the case's wall and CPU seconds): the first case on
    which the learner's answer differs from the reference's under the same clocks, or None."""
    wall, cpu = _Clock(), _Clock()
    real = (time.perf_counter, time.perf_counter_ns, time.process_time, time.process_time_ns)
    # Replaced before their module is imported, so `from time import perf_counter` gets them too.
    time.perf_counter, time.perf_counter_ns = wall.read, wall.read_ns
    time.process_time, time.process_time_ns = cpu.read, cpu.read_ns
    try:
        learner = learner_function(LEARNER_FILE, "io_wait_share")
        reference = reference_function(__file__, LEARNER_FILE, "io_wait_share")

        def planted(wall_s: float, cpu_s: float) -> None:
            wall.now += wall_s
            cpu.now += cpu_s

        for case in clock_cases(seed):
            wall_start, cpu_start, wall_s, cpu_s = case
            answers = []
            reads = []
            for function in (learner, reference):
                # Each call starts from the case's readings: a call cannot see what came before it.
                wall.now, cpu.now = wall_start, cpu_start
                wall.reads = cpu.reads = 0
                answers.append(answer_or_error(function, planted, wall_s, cpu_s))
                reads.append({"perf_counter": wall.reads, "process_time": cpu.reads})
            (ok, answer), (_, expected) = answers
            if not ok or not is_close(answer, expected):
                unread = [clock for clock, count in reads[0].items() if count == 0]
                found: dict[str, Any] = {"case": list(case), "expected": expected, "unread": unread}
                if not ok:
                    found["raised"] = answer
                elif isinstance(answer, (int, float)) and not isinstance(answer, bool):
                    found["answer"] = float(answer)
                else:
                    found["answer"] = short_repr(answer)
                return found
        return None
    finally:
        time.perf_counter, time.perf_counter_ns, time.process_time, time.process_time_ns = real


def _waiting_for_a_cpu(row: dict[str, Any]) -> bool:
    """Is the CPU-bound function's high share explained by time in the run queue (a busy machine)?"""
    queued = row["queued_share"]
    return queued is not None and row["outside"] - queued <= CPU_SHARE_MAX


class _ShiftedClock:
    """time.perf_counter moved by a constant: its starting point is undefined, only differences
    mean anything, so a right answer cannot depend on where it starts."""

    def __init__(self) -> None:
        self.real, self.real_ns = time.perf_counter, time.perf_counter_ns
        self.zero_ns = 0

    def read(self) -> float:
        return (self.real_ns() - self.zero_ns) / 1e9

    def read_ns(self) -> int:
        return self.real_ns() - self.zero_ns

    def zero_in(self, seconds: float) -> None:
        """Read 0 s `seconds` from now (negative until then)."""
        self.zero_ns = self.real_ns() + round(seconds * 1e9)


def probe_parallel(task_s: float, items: int, workers: int) -> dict[str, Any]:
    clock = _ShiftedClock()
    # Replaced before their module is imported, so `from time import perf_counter` gets it too.
    time.perf_counter, time.perf_counter_ns = clock.read, clock.read_ns
    try:
        return _probe_parallel(clock, task_s, items, workers)
    finally:
        time.perf_counter, time.perf_counter_ns = clock.real, clock.real_ns


def _probe_parallel(clock: _ShiftedClock, task_s: float, items: int, workers: int) -> dict[str, Any]:
    parallel_efficiency = learner_function(LEARNER_FILE, "parallel_efficiency")
    loops = _calibrate(task_s)
    # perf_counter reads 0 s where the sleeping tasks' serial phase can end at the earliest: a
    # timing that is not a difference of two readings (`now % start`, say) then comes out wrong.
    clock.zero_in(items * task_s)
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

        start = clock.real()
        value = parallel_efficiency(task, list(range(items)), workers)
        wall = clock.real() - start
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


def _what_ko(description: str) -> str:
    """What the learner returned, in a Korean sentence: "a list" → "list"."""
    return description[2:] if description.startswith("a ") else description


def check_memory(check: Checker, result: LearnerResult) -> None:
    if not check.require_ran("peak_memory_bytes() runs", result):
        return
    name = "peak_memory_bytes: the peak of a known allocation"
    shown = []
    for i, row in enumerate(result.value):
        size, value = row["size"], row["value"]
        if isinstance(value, str):
            check.requirement(
                name,
                False,
                say(
                    f"returned {value}; return the peak as a number of bytes",
                    f"{_what_ko(value)} 값을 돌려주었습니다. peak를 바이트 수(숫자)로 돌려주세요",
                ),
            )
            break
        if not (size * (1 - MEMORY_TOLERANCE) <= value <= size * (1 + MEMORY_TOLERANCE) + 64 * 1024):
            maxrss = row.get("maxrss")
            if maxrss and any(abs(value - rss) <= 0.1 * rss for rss in (maxrss, maxrss * 1024)):
                hint = say(
                    ": that is the whole process's peak resident memory (resource.getrusage(...).ru_maxrss: "
                    "the interpreter, every import and earlier calls count, it never goes down, and it is "
                    "KiB on Linux but bytes on macOS) — measure only this call's allocations, with tracemalloc",
                    ": 이것은 프로세스 전체의 최대 상주 메모리입니다 (resource.getrusage(...).ru_maxrss: "
                    "인터프리터, 모든 import, 앞선 호출까지 세고, 줄어들지 않으며, 단위는 Linux에서 KiB, "
                    "macOS에서 바이트입니다) — tracemalloc으로 이 호출의 할당만 재세요",
                )
            elif value < 0.1 * size:
                hint = say(
                    ": about what is still allocated AFTER the call (current); the function freed its block — report the peak",
                    ": 호출이 끝난 뒤에도 남아 있는 할당량(current)쯤입니다. 함수는 블록을 이미 해제했습니다 "
                    "— peak를 돌려주세요",
                )
            elif i > 0 and abs(value - result.value[0]["size"]) <= MEMORY_TOLERANCE * result.value[0]["size"]:
                hint = say(
                    ": that is the previous call's peak — measure every call on its own (tracemalloc.stop() or reset_peak())",
                    ": 이것은 앞선 호출의 peak입니다 — 호출마다 따로 재세요 (tracemalloc.stop() 또는 reset_peak())",
                )
            elif value > 1.5 * size:
                hint = say(
                    ": more than the function allocated — something else is counted too (the whole process?)",
                    ": 함수가 할당한 것보다 많습니다 — 다른 것도 함께 세고 있습니다 (프로세스 전체?)",
                )
            else:
                hint = ""
            check.requirement(
                name,
                False,
                say(
                    f"a function that allocates {size / MIB:.1f} MiB: you measured {value / MIB:.2f} MiB{hint}",
                    f"{size / MIB:.1f} MiB를 할당하는 함수에서 여러분이 잰 값은 {value / MIB:.2f} MiB입니다{hint}",
                ),
            )
            break
        shown.append(f"{size / MIB:.1f} MiB → {value / MIB:.2f} MiB")
    else:
        check.requirement(name, True, "; ".join(shown) + f" (±{MEMORY_TOLERANCE:.0%})")
    left_on = any(row["tracing_after"] for row in result.value)
    check.require(
        "peak_memory_bytes: stops tracing afterwards",
        not left_on,
        say("tracemalloc is off again after every call", "호출이 끝날 때마다 tracemalloc이 다시 꺼집니다"),
        say(
            "tracemalloc is still tracing after your function returned: it slows every later allocation; stop it (try/finally)",
            "여러분의 함수가 돌아온 뒤에도 tracemalloc이 계속 추적합니다: 이후의 모든 할당이 느려집니다. "
            "멈추세요 (try/finally)",
        ),
    )


def check_io(check: Checker, workspace: Path, wait_s: float) -> bool:
    """The planted functions' shares; False when io_wait_share gave none (it raised or returned
    something else: that is already reported, and the clock check would only repeat it)."""
    here = Path(__file__).resolve()
    for attempt in range(1, TRIES + 1):
        result = run_learner(workspace, here, "probe_io", wait_s, timeout_s=30 + 4 * wait_s)
        if not check.require_ran("io_wait_share() runs", result):
            return False
        sleep, cpu = result.value["sleep"], result.value["cpu"]
        for row in (sleep, cpu):
            if isinstance(row["value"], str):
                check.requirement(
                    "io_wait_share() returns a share",
                    False,
                    say(
                        f"returned {row['value']}; return a number in [0, 1]",
                        f"{_what_ko(row['value'])} 값을 돌려주었습니다. [0, 1] 범위의 숫자를 돌려주세요",
                    ),
                )
                return False
        if cpu["outside"] <= CPU_SHARE_MAX or _waiting_for_a_cpu(cpu) or attempt == TRIES:
            break
        check.progress(
            say(
                f"the CPU-bound function waited {cpu['outside']:.0%} of its time for a CPU: the machine is busy, measuring again",
                f"계산하는 함수가 시간의 {cpu['outside']:.0%}를 CPU를 기다리며 보냈습니다: 기계가 바빠서 다시 재는 중",
            )
        )
    name = "io_wait_share: a sleep-heavy function waits"
    mine, outside = sleep["value"], sleep["outside"]
    if abs(mine - outside) > SHARE_AGREEMENT or mine < SLEEP_SHARE_MIN:
        hint = ""
        if mine <= 0.05:
            hint = say(
                ": did you read the same clock twice? CPU time is time.process_time(), wall time time.perf_counter()",
                ": 같은 시계를 두 번 읽었나요? CPU 시간은 time.process_time(), wall 시간은 time.perf_counter()입니다",
            )
        elif abs((1 - mine) - outside) <= SHARE_AGREEMENT:
            hint = say(
                ": that is the CPU share; the waiting share is 1 − CPU time / wall time",
                ": 이것은 CPU 비율입니다. 기다린 비율은 1 − CPU 시간 / wall 시간입니다",
            )
        check.requirement(
            name,
            False,
            say(
                f"a function that sleeps {wait_s:g} s: you measured {mine:.2f}, measured from outside {outside:.2f}{hint}",
                f"{wait_s:g} s 동안 자는 함수에서 여러분이 잰 값은 {mine:.2f}, 바깥에서 잰 값은 {outside:.2f}입니다{hint}",
            ),
        )
    else:
        check.requirement(
            name,
            True,
            say(
                f"{mine:.2f} (measured from outside: {outside:.2f}; needs ≥ {SLEEP_SHARE_MIN})",
                f"{mine:.2f} (바깥에서 잰 값: {outside:.2f}; ≥ {SLEEP_SHARE_MIN}이어야 함)",
            ),
        )
    name = "io_wait_share: a CPU-bound function barely waits"
    mine, outside = cpu["value"], cpu["outside"]
    if abs(mine - outside) > SHARE_AGREEMENT:
        check.requirement(
            name,
            False,
            say(
                f"you measured {mine:.2f}, measured from outside {outside:.2f} in the same run",
                f"여러분이 잰 값은 {mine:.2f}인데, 같은 실행에서 바깥에서 잰 값은 {outside:.2f}입니다",
            ),
        )
    elif outside > CPU_SHARE_MAX and _waiting_for_a_cpu(cpu):
        check.requirement(
            name,
            True,
            say(
                f"{mine:.2f}, agreeing with the outside measurement ({outside:.2f}); of that, {cpu['queued_share']:.2f} was "
                "waiting for a CPU on this busy machine (Linux run queue), so the function itself barely waits",
                f"{mine:.2f}, 바깥에서 잰 값({outside:.2f})과 맞습니다. 그중 {cpu['queued_share']:.2f}는 바쁜 기계에서 "
                "CPU를 기다린 시간(Linux run queue)이므로, 함수 자체는 거의 기다리지 않습니다",
            ),
        )
    elif outside > CPU_SHARE_MAX:
        check.undecided(
            name,
            say(
                f"the machine was too busy: even measured from outside the CPU-bound function waited {outside:.0%} for a CPU "
                f"in {TRIES} tries (yours {mine:.2f} agrees); close other programs and check again",
                f"기계가 너무 바빴습니다: {TRIES}번 시도 내내 바깥에서 재도 계산하는 함수가 CPU를 {outside:.0%} "
                f"기다렸습니다 (여러분의 {mine:.2f}도 이와 맞습니다). 다른 프로그램을 닫고 다시 검사하세요",
            ),
        )
    else:
        check.require(
            name,
            mine <= CPU_SHARE_MAX,
            say(f"{mine:.2f} (from outside {outside:.2f})", f"{mine:.2f} (바깥에서 {outside:.2f})"),
            say(f"{mine:.2f}: needs ≤ {CPU_SHARE_MAX}", f"{mine:.2f}: ≤ {CPU_SHARE_MAX}이어야 합니다"),
        )
    return True


CLOCKS = "io_wait_share: 1 − CPU time / wall time, clamped to [0, 1], on the check's clocks"


def _clock_rule(wall_s: float, cpu_s: float) -> tuple[str, str]:
    """What the README says about this call, in both languages."""
    if wall_s == 0:
        return (
            "a call of 0 s wall time (below the clock's resolution) has share 0.0",
            "wall 시간이 0 s인 호출(시계 해상도 미만)의 비율은 0.0입니다",
        )
    if cpu_s > wall_s:
        return (
            "CPU time beyond the wall time (threads computing at once) clamps the share to 0.0",
            "wall 시간보다 긴 CPU 시간(여러 스레드가 함께 계산)은 비율을 0.0으로 자릅니다",
        )
    return "share = 1 − CPU time / wall time", "비율 = 1 − CPU 시간 / wall 시간"


def check_io_clocks(check: Checker, workspace: Path) -> None:
    seed = secrets.randbits(30)
    result = run_learner(workspace, Path(__file__).resolve(), "probe_io_clocks", seed, timeout_s=30)
    if not check.require_ran(CLOCKS, result):
        return
    found, count = result.value, len(clock_cases(seed))
    if found is None:
        check.requirement(
            CLOCKS,
            True,
            say(
                f"the reference's share on all {count} calls (0 s, 2 µs, CPU = wall, no CPU, CPU = 2 × wall, 10 µs–240 s)",
                f"호출 {count}개 모두 참고 답안과 같은 비율 (0 s, 2 µs, CPU = wall, CPU 없음, CPU = 2 × wall, 10 µs–240 s)",
            ),
        )
        return
    wall_start, cpu_start, wall_s, cpu_s = found["case"]
    expected = found["expected"]
    rule_en, rule_ko = _clock_rule(wall_s, cpu_s)
    if found["unread"]:  # seen: their function measured with clocks the check does not move
        unread = " / ".join(f"time.{clock}" for clock in found["unread"])
        rule_en += f"; your function never read {unread}, the clock(s) the check moves"
        rule_ko += f"; 여러분의 함수는 검사기가 움직이는 시계 {unread}를 읽지 않았습니다"
    if "raised" in found:
        theirs_en, theirs_ko = (
            f"your code raised {found['raised']}",
            f"여러분의 코드가 {found['raised']}를 냈습니다",
        )
    else:
        answer = found["answer"]
        shown = f"{answer:.6g}" if isinstance(answer, float) else answer
        theirs_en, theirs_ko = f"you returned {shown}", f"여러분의 답은 {shown}"
    check.requirement(
        CLOCKS,
        False,
        say(
            f"a call of {wall_s:.6g} s wall time and {cpu_s:.6g} s CPU time (perf_counter {wall_start:.6g} → "
            f"{wall_start + wall_s:.6g}, process_time {cpu_start:.6g} → {cpu_start + cpu_s:.6g}): {theirs_en}, "
            f"expected {expected:.6g} — {rule_en}",
            f"wall {wall_s:.6g} s, CPU {cpu_s:.6g} s인 호출 (perf_counter {wall_start:.6g} → "
            f"{wall_start + wall_s:.6g}, process_time {cpu_start:.6g} → {cpu_start + cpu_s:.6g})에서 {theirs_ko}, "
            f"기대값은 {expected:.6g} — {rule_ko}",
        ),
    )


EFFICIENCY_KEYS = ("serial_s", "parallel_s", "speedup", "efficiency")


def _consistent(check: Checker, row: dict[str, Any], kind: str, items: int, task_s: float) -> bool:
    name = "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers"
    value = row["value"]
    if isinstance(value, str):
        return check.requirement(
            name,
            False,
            say(
                f"returned {value}; return a dict with {', '.join(EFFICIENCY_KEYS)}",
                f"{_what_ko(value)} 값을 돌려주었습니다. {', '.join(EFFICIENCY_KEYS)} 키가 있는 dict를 돌려주세요",
            ),
        )
    missing = [key for key in EFFICIENCY_KEYS if not isinstance(value.get(key), float)]
    if missing:
        return check.requirement(
            name,
            False,
            say(
                f"no number for {', '.join(missing)} in {value}",
                f"{value}에 {', '.join(missing)}의 숫자가 없습니다",
            ),
        )
    serial, parallel, speedup, efficiency = (value[key] for key in EFFICIENCY_KEYS)
    if serial <= 0 or parallel <= 0:
        return check.requirement(
            name,
            False,
            say(
                f"serial_s {serial:.3g} and parallel_s {parallel:.3g} must be positive",
                f"serial_s {serial:.3g}, parallel_s {parallel:.3g}: 둘 다 양수여야 합니다",
            ),
        )
    if not math.isclose(speedup, serial / parallel, rel_tol=1e-6):
        return check.requirement(
            name,
            False,
            say(
                f"speedup {speedup:.4g}, but serial_s / parallel_s = {serial / parallel:.4g}",
                f"speedup이 {speedup:.4g}인데 serial_s / parallel_s = {serial / parallel:.4g}입니다",
            ),
        )
    if not math.isclose(efficiency, speedup / WORKERS, rel_tol=1e-6):
        hint = (
            say(
                ": that is the speedup — divide it by the number of workers",
                ": 이것은 speedup입니다 — worker 수로 나누세요",
            )
            if math.isclose(efficiency, speedup, rel_tol=1e-6)
            else ""
        )
        return check.requirement(
            name,
            False,
            say(
                f"efficiency {efficiency:.4g} with {WORKERS} workers, but speedup / workers = {speedup / WORKERS:.4g}{hint}",
                f"worker {WORKERS}개에서 efficiency가 {efficiency:.4g}인데 speedup / workers = "
                f"{speedup / WORKERS:.4g}입니다{hint}",
            ),
        )
    if row["calls"] != 2 * items:
        return check.requirement(
            name,
            False,
            say(
                f"the task ran {row['calls']} times for {items} items; run every item once serially and once in parallel",
                f"item {items}개에 task가 {row['calls']}번 돌았습니다. 모든 item을 직렬로 한 번, 병렬로 한 번 돌리세요",
            ),
        )
    if kind == "sleep" and serial < items * task_s * 0.95:
        return check.requirement(
            name,
            False,
            say(
                f"serial_s {serial:.3f} s, but {items} tasks of {task_s:g} s cannot take less than {items * task_s:.2f} s",
                f"serial_s가 {serial:.3f} s인데, {task_s:g} s짜리 task {items}개는 {items * task_s:.2f} s보다 "
                "빨리 끝날 수 없습니다",
            ),
        )
    batches = math.ceil(items / WORKERS)
    # More threads than workers finish sooner: that slip is the concurrency requirement's to name.
    if kind == "sleep" and row["most_at_once"] <= WORKERS and parallel < batches * task_s * 0.95:
        return check.requirement(
            name,
            False,
            say(
                f"parallel_s {parallel:.3f} s, but {items} tasks of {task_s:g} s on {WORKERS} threads cannot take less "
                f"than {batches * task_s:.2f} s ({batches} rounds)",
                f"parallel_s가 {parallel:.3f} s인데, {task_s:g} s짜리 task {items}개를 스레드 {WORKERS}개로 돌리면 "
                f"{batches * task_s:.2f} s({batches}차례)보다 빨리 끝날 수 없습니다",
            ),
        )
    if serial + parallel > row["wall_s"] + 0.05:
        return check.requirement(
            name,
            False,
            say(
                f"serial_s + parallel_s = {serial + parallel:.3f} s is longer than your whole call ({row['wall_s']:.3f} s)",
                f"serial_s + parallel_s = {serial + parallel:.3f} s가 여러분의 호출 전체({row['wall_s']:.3f} s)보다 깁니다",
            ),
        )
    return True


def check_parallel(check: Checker, workspace: Path, task_s: float) -> None:
    here = Path(__file__).resolve()
    for attempt in range(1, TRIES + 1):
        result = run_learner(
            workspace, here, "probe_parallel", task_s, TASKS, WORKERS, timeout_s=60 + 40 * task_s
        )
        if not result.ok and "pickle" in (result.error or "").lower():
            result.error = say(
                f"{result.error} — use threads (ThreadPoolExecutor): the planted tasks are local functions "
                "a process pool cannot send to its workers",
                f"{result.error} — 스레드(ThreadPoolExecutor)를 쓰세요: 심어 둔 task는 지역 함수라서 "
                "프로세스 풀이 worker에게 보낼 수 없습니다",
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
            say(
                f"efficiencies {sleep_eff:.2f} (sleeping) and {cpu_eff:.2f} (computing) look disturbed by a busy machine: measuring again",
                f"efficiency {sleep_eff:.2f}(자는 task)와 {cpu_eff:.2f}(계산 task)가 바쁜 기계 때문에 흐트러진 것 "
                "같습니다: 다시 재는 중",
            )
        )
    check.requirement(
        "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers",
        True,
        say(
            f"consistent for both task kinds ({WORKERS} workers, {TASKS} tasks)",
            f"두 종류의 task 모두 맞습니다 (worker {WORKERS}개, task {TASKS}개)",
        ),
    )
    check.require(
        "parallel_efficiency: as many tasks run at once as there are workers",
        sleep["most_at_once"] == WORKERS,
        say(
            f"the planted tasks saw {WORKERS} running at the same time",
            f"심어 둔 task가 동시에 {WORKERS}개 도는 것을 보았습니다",
        ),
        say(
            f"{sleep['most_at_once']} tasks ran at the same time with {WORKERS} workers: the pool must have "
            "exactly `workers` threads (ThreadPoolExecutor(max_workers=workers))",
            f"worker {WORKERS}개인데 task {sleep['most_at_once']}개가 동시에 돌았습니다: 풀의 스레드는 정확히 "
            "`workers`개여야 합니다 (ThreadPoolExecutor(max_workers=workers))",
        )
        if sleep["most_at_once"] > WORKERS
        else say(
            f"at most {sleep['most_at_once']} task(s) ran at the same time with {WORKERS} workers: submit every item before "
            "waiting for results (pool.map), not .result() right after each submit",
            f"worker {WORKERS}개인데 동시에 돈 task는 많아야 {sleep['most_at_once']}개였습니다: 결과를 기다리기 전에 "
            "item을 모두 submit하세요 (pool.map). submit할 때마다 바로 .result()를 부르지 마세요",
        ),
    )
    name = "parallel_efficiency: sleeping tasks use every worker"
    low, high = SLEEP_EFFICIENCY
    if sleep_eff > high:
        check.requirement(
            name,
            False,
            say(
                f"efficiency {sleep_eff:.2f} > {high}: more than every worker fully used is impossible",
                f"efficiency {sleep_eff:.2f} > {high}: 모든 worker를 꽉 채워 쓴 것보다 클 수는 없습니다",
            ),
        )
    elif sleep_eff >= low:
        check.requirement(
            name,
            True,
            say(
                f"efficiency {sleep_eff:.2f} (speedup {sleep['value']['speedup']:.2f} on {WORKERS} threads)",
                f"efficiency {sleep_eff:.2f} (스레드 {WORKERS}개에서 speedup {sleep['value']['speedup']:.2f})",
            ),
        )
    elif sleep["most_at_once"] == WORKERS:
        check.undecided(
            name,
            say(
                f"efficiency {sleep_eff:.2f} in {TRIES} tries although {WORKERS} tasks ran at once: the machine is too busy to tell; check again",
                f"task {WORKERS}개가 동시에 돌았는데도 {TRIES}번 시도에서 efficiency가 {sleep_eff:.2f}입니다: "
                "기계가 너무 바빠 판단할 수 없습니다. 다시 검사하세요",
            ),
        )
    else:
        check.requirement(
            name,
            False,
            say(
                f"efficiency {sleep_eff:.2f}: needs {low}–{high} for tasks that only wait",
                f"efficiency {sleep_eff:.2f}: 기다리기만 하는 task라면 {low}–{high}이어야 합니다",
            ),
        )
    name = "parallel_efficiency: computing tasks do not scale on threads (GIL)"
    if cpu_eff < CPU_EFFICIENCY_MAX:
        check.requirement(
            name,
            True,
            say(
                f"efficiency {cpu_eff:.2f} ≈ 1/{WORKERS}: one thread runs Python at a time",
                f"efficiency {cpu_eff:.2f} ≈ 1/{WORKERS}: 한 번에 한 스레드만 Python을 실행합니다",
            ),
        )
    else:
        check.undecided(
            name,
            say(
                f"efficiency {cpu_eff:.2f} in {TRIES} tries; pure-Python work on threads cannot reach that — the timings were disturbed; check again",
                f"{TRIES}번 시도에서 efficiency가 {cpu_eff:.2f}입니다. 순수 Python 작업은 스레드로 그 값에 닿을 수 "
                "없습니다 — 시간 측정이 흐트러졌습니다. 다시 검사하세요",
            ),
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
            say(
                f"peak memory of functions that allocate {sizes[0] / MIB:.1f} and {sizes[1] / MIB:.1f} MiB",
                f"{sizes[0] / MIB:.1f} MiB와 {sizes[1] / MIB:.1f} MiB를 할당하는 함수의 peak 메모리 재는 중",
            )
        )
        check_memory(check, run_learner(args.workspace, here, "probe_memory", sizes, timeout_s=60))
        check.progress(
            say(
                f"I/O-wait share of a function that sleeps {chosen['wait_s']:g} s and one that computes {chosen['wait_s']:g} s",
                f"{chosen['wait_s']:g} s 자는 함수와 {chosen['wait_s']:g} s 계산하는 함수의 I/O 대기 비율 재는 중",
            )
        )
        if check_io(check, args.workspace, chosen["wait_s"]):
            check.progress(
                say(
                    "io_wait_share on calls whose wall and CPU time the check sets (its own clocks), against the reference",
                    "검사기가 wall·CPU 시간을 정하는 호출(검사기의 시계)에서 io_wait_share를 참고 답안과 비교하는 중",
                )
            )
            check_io_clocks(check, args.workspace)
        check.progress(
            say(
                f"parallel efficiency: {TASKS} tasks of {chosen['task_s']:g} s on {WORKERS} threads",
                f"parallel efficiency 재는 중: {chosen['task_s']:g} s짜리 task {TASKS}개, 스레드 {WORKERS}개",
            )
        )
        check_parallel(check, args.workspace, chosen["task_s"])


if __name__ == "__main__":
    main()
