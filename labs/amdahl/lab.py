"""Amdahl's law, calculated and measured.

Three modes:
  calc      the formulas only: Amdahl, efficiency, Gustafson, the 1/s ceiling (or Karp–Flatt
            from a speedup you measured somewhere else: --speedup X --at P)
  measure   a real CPU-bound job with a serial part of fraction s, run on 1..N processes
  simulate  the same shape of job with sleeps instead of computing: the law shows exactly,
            even on a small or busy machine

Run `python -m labs.amdahl --help` for the options. The formulas are in laws.py, the worker
functions in work.py, the report of measure and simulate mode in report.py.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from labs._protocol import LabUsageError, bounded_float, bounded_int, csv_text, progress, write_artifact
from labs._protocol import parse_args as parse_lab_args
from labs.amdahl import laws, work
from labs.amdahl.report import fmt_limit, summarise

MAX_PROCESSES = 64  # measure mode: more processes than this is a typo, not an experiment
MAX_THREADS = 256  # simulate mode
MAX_SECONDS = 60.0  # --seconds: a one-worker run longer than a minute is a typo
MAX_REPEATS = 100


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"숫자가 아닙니다: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"0 이상 1 이하의 비율이어야 합니다: {text}")
    return value


def _worker_list(text: str) -> list[int]:
    values = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise argparse.ArgumentTypeError(
                f"쉼표로 구분한 양의 정수 목록이어야 합니다 (예: 1,2,4): {text!r}"
            )
        if int(part) < 1:
            raise argparse.ArgumentTypeError(f"작업자 수는 1 이상이어야 합니다: {text!r}")
        values.append(int(part))
    return sorted(set(values))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labs.amdahl", description="Amdahl's law: calculate, measure, simulate."
    )
    parser.add_argument(
        "--mode",
        choices=["measure", "simulate", "calc"],
        default=None,
        help="measure (default), simulate, or calc",
    )
    parser.add_argument(
        "--serial",
        type=_fraction,
        default=None,
        help="serial fraction s of the one-worker run, 0..1 (default 0.2)",
    )
    parser.add_argument(
        "--workers", type=_worker_list, default=None, help="comma-separated worker counts, e.g. 1,2,4,8,16"
    )
    parser.add_argument(
        "--speedup",
        type=bounded_float(0, 1e6, above=True),
        default=None,
        help="calc mode: a measured speedup, to estimate s by Karp–Flatt",
    )
    parser.add_argument(
        "--at",
        type=bounded_int(1, 1_000_000),
        default=None,
        help="calc mode: the number of workers that gave --speedup",
    )
    parser.add_argument(
        "--seconds",
        type=bounded_float(0, MAX_SECONDS, above=True),
        default=None,
        help="length of the one-worker run (measure: 1.0, simulate: 0.5; quick 0.3)",
    )
    parser.add_argument(
        "--repeats",
        type=bounded_int(1, MAX_REPEATS),
        default=None,
        help="runs per worker count; the median is reported (default 5)",
    )
    parser.add_argument("--quick", action="store_true", help="small settings, a few seconds")
    parser.add_argument("--out", type=Path, default=None, help="directory for artifacts")
    return parser


def usable_cores() -> tuple[int, str]:
    """How many CPUs this process may run on, and how we found out.

    os.cpu_count() counts the machine's CPUs; sched_getaffinity counts the ones this process
    is allowed to use (containers and `taskset` restrict it), which is the real limit.
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)), "os.sched_getaffinity"
    return os.cpu_count() or 1, "os.cpu_count"


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_lab_args(build_parser(), argv)
    if (args.speedup is None) != (args.at is None):
        raise LabUsageError("--speedup와 --at은 함께 지정해야 합니다 (예: --speedup 5.5 --at 8)")
    if args.speedup is not None:
        if args.mode not in (None, "calc"):
            raise LabUsageError("--speedup/--at은 --mode calc에서만 쓸 수 있습니다")
        if args.at < 2:
            raise LabUsageError("Karp–Flatt는 작업자 2명 이상에서 정의됩니다: --at 2 이상")
        if args.serial is not None:
            raise LabUsageError("--serial과 --speedup은 함께 쓸 수 없습니다 (--speedup이 s를 추정합니다)")
        args.mode = "calc"
    mode = args.mode or "measure"
    cores, cores_source = usable_cores()

    if mode == "calc":
        workers = args.workers or [1, 2, 4, 8, 16]
        result = run_calc(args, workers)
    else:
        serial = 0.2 if args.serial is None else args.serial
        repeats = args.repeats or 5
        if mode == "measure":
            workers = with_baseline(args.workers or default_measure_workers(cores, args.quick))
            if workers[-1] > MAX_PROCESSES:
                raise LabUsageError(f"--workers: measure 모드는 프로세스 {MAX_PROCESSES}개까지입니다")
            seconds = args.seconds or (0.3 if args.quick else 1.0)
            result = run_measure(serial, workers, seconds, repeats, cores)
        else:
            workers = with_baseline(args.workers or ([1, 2, 4, 8] if args.quick else [1, 2, 4, 8, 16]))
            if workers[-1] > MAX_THREADS:
                raise LabUsageError(f"--workers: simulate 모드는 스레드 {MAX_THREADS}개까지입니다")
            seconds = args.seconds or (0.3 if args.quick else 0.5)
            result = run_simulate(serial, workers, seconds, repeats)
    result["cores"] = cores
    result["cores_source"] = cores_source
    result["cpu_count"] = os.cpu_count()
    if args.out is not None:
        result["artifacts"] = write_artifacts(args.out, result)
    return result


def with_baseline(workers: list[int]) -> list[int]:
    """T(1) is the baseline every speedup is measured against, so 1 is always measured."""
    return workers if workers[0] == 1 else [1, *workers]


def default_measure_workers(cores: int, quick: bool) -> list[int]:
    """1, 2, 4, ... up to twice the cores, so the sweep shows what happens past the cores."""
    limit = max(2, min(2 * cores, 16))
    if quick:
        limit = min(limit, 4)
    workers, p = [], 1
    while p <= limit:
        workers.append(p)
        p *= 2
    return workers


# ---------------------------------------------------------------------------------------------
# calc: the formulas only
# ---------------------------------------------------------------------------------------------


def run_calc(args: argparse.Namespace, workers: list[int]) -> dict[str, Any]:
    karp = {}
    if args.speedup is not None:
        serial = laws.karp_flatt(args.speedup, args.at)
        karp = {args.at: serial}
    else:
        serial = 0.2 if args.serial is None else args.serial
    # Karp–Flatt can come out negative (superlinear speedup, e.g. caches) or above 1;
    # the formulas below need 0 <= s <= 1, so the table uses the clamped value.
    s = min(max(serial, 0.0), 1.0)
    limit = laws.amdahl_limit(s)
    amdahl = {p: laws.amdahl_speedup(s, p) for p in workers}
    # Gustafson's s is the serial share of the run ON p workers. For the same fixed-size program that
    # share is s_p (not s); Gustafson with s_p equals Amdahl. Gustafson with s itself answers another
    # question: the speedup of a problem whose parallel part grew p-fold (weak scaling).
    share_on_p = {p: laws.serial_share_on_p(s, p) for p in workers}
    same_program = {p: laws.gustafson_speedup(share_on_p[p], p) for p in workers}
    gustafson = {p: laws.scaled_speedup(s, p) for p in workers}

    rows: list[list[Any]] = [
        [
            p,
            amdahl[p],
            laws.efficiency(amdahl[p], p),
            share_on_p[p],
            same_program[p],
            gustafson[p],
            amdahl[p] / limit if s > 0 else None,
        ]
        for p in workers
    ]
    rows.append(["∞", limit, 0.0, 1.0 if s > 0 else 0.0, limit, None, 1.0 if s > 0 else None])
    tables = [
        {
            "title": f"공식 계산 (s = 작업자 1명 실행의 직렬 비율 {s:.4g}, 한계 1/s = {fmt_limit(limit)})",
            "columns": [
                "workers",
                "amdahl_speedup",
                "efficiency",
                "serial_share_on_p",
                "gustafson_same_program",
                "scaled_speedup",
                "share_of_limit",
            ],
            "rows": rows,
        }
    ]

    findings = []
    if args.speedup is not None:
        p, x = args.at, args.speedup
        findings.append(
            f"작업자 {p}명에서 속도 향상 {x:g}배 → Karp–Flatt e = "
            f"(1/{x:g} − 1/{p}) / (1 − 1/{p}) = {serial:.4f}."
        )
        if serial < 0:
            findings.append(
                f"e < 0: 속도 향상 {x:g}배가 작업자 수 {p}보다 큽니다(superlinear) — 캐시 효과 등"
                " 직렬 비율 모델 밖의 현상이므로 표는 s = 0으로 계산했습니다."
            )
        elif serial > 1:
            findings.append(
                f"e > 1: 속도 향상 {x:g}배는 1보다 작아 병렬화가 "
                "오히려 느려졌습니다 — 표는 s = 1로 계산했습니다."
            )
        else:
            findings.append(
                "이 e가 순수한 직렬 비율이라면 작업자를 무한히 늘려도 "
                f"1/e = {fmt_limit(limit)}배가 한계이고, "
                f"작업자 {2 * p}명이면 {laws.amdahl_speedup(s, 2 * p):.2f}배입니다."
            )
    biggest = workers[-1]
    if s > 0:
        findings.append(
            f"s = {s:.4g}이면 한계는 1/s = {fmt_limit(limit)}배이고, 작업자 {biggest}명일 때 "
            f"{amdahl[biggest]:.2f}배로 한계의 {amdahl[biggest] / limit:.0%}에 이릅니다 (효율 "
            f"{laws.efficiency(amdahl[biggest], biggest):.0%})."
        )
    else:
        findings.append("s = 0이면 Amdahl 속도 향상은 작업자 수와 같고(S = p) 한계가 없습니다.")
    doubled = [(p, 2 * p) for p in workers if 2 * p in amdahl]
    if doubled:
        p, q = doubled[-1]
        findings.append(
            f"작업자를 {p}명에서 {q}명으로 두 배 늘려도 속도 향상은 {amdahl[p]:.2f}배 → {amdahl[q]:.2f}배, "
            f"{amdahl[q] / amdahl[p] - 1:.0%}만 늘어납니다."
        )
    findings.append(
        f"Gustafson 식 S = p − s′(p − 1)의 s′는 작업자 {biggest}명 실행에서 잰 직렬 비율입니다. 같은 프로그램(문제 "
        f"크기 고정)이라면 s′ = s / (s + (1 − s)/p) = {share_on_p[biggest]:.3f}이고, 그러면 Gustafson도 "
        f"{same_program[biggest]:.2f}배로 Amdahl과 똑같습니다 — 한 프로그램의 속도 향상은 하나입니다."
    )
    findings.append(
        f"Gustafson의 {gustafson[biggest]:.2f}배 = {biggest} − {s:.4g}×({biggest} − 1)는 다른 질문의 답입니다: 병렬 "
        f"부분을 작업자 수만큼 키운 더 큰 문제(weak scaling)를 {biggest}명이 1명이 원래 문제에 쓰던 시간에 풀 때, "
        f"그 큰 문제를 1명이 풀 때보다 몇 배 빠른가. 이때 {biggest}명 실행의 직렬 비율이 바로 s = {s:.4g}입니다."
    )
    summary = (
        f"s = {s:.4g}: 작업자 {biggest}명이면 Amdahl {amdahl[biggest]:.2f}배 (= Gustafson, s′ = "
        f"{share_on_p[biggest]:.3f}), 문제를 키우면 {gustafson[biggest]:.2f}배, 한계 1/s = {fmt_limit(limit)}배"
    )
    return {
        "summary": summary,
        "tables": tables,
        "findings": findings,
        "plots": [
            {
                "title": f"속도 향상 공식 (s = {s:.4g})",
                "x": workers,
                "series": {
                    "amdahl": [amdahl[p] for p in workers],
                    "scaled (Gustafson, s)": [gustafson[p] for p in workers],
                    "ideal": [float(p) for p in workers],
                },
                "xlabel": "workers",
                "ylabel": "speedup (배)",
            }
        ],
        "mode": "calc",
        "serial_fraction": serial,
        "workers": workers,
        "times": {},
        "speedups": {},
        "predicted": amdahl,
        "efficiencies": {p: laws.efficiency(amdahl[p], p) for p in workers},
        "gustafson": gustafson,  # scaled problem, s = serial share of the p-worker run of it
        "serial_share_on_p": share_on_p,
        "gustafson_same_program": same_program,
        "karp_flatt": karp,
        "fitted_serial": None,
        "limit": limit,
    }


# ---------------------------------------------------------------------------------------------
# measure: real CPU work on processes
# ---------------------------------------------------------------------------------------------


def calibrate(seconds: float) -> int:
    """How many spin() iterations take `seconds` on this machine (best of a few short runs)."""
    n = 20_000
    while (elapsed := _time(work.spin, n)) < 0.02:  # grow until the run is long enough to time
        n *= 2
    best = min([elapsed] + [_time(work.spin, n) for _ in range(2)])
    return max(1000, int(n * seconds / best))


def _time(fn: Any, *args: Any) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def split(total: int, parts: int) -> list[int]:
    """Split `total` iterations into `parts` nearly equal chunks (they differ by at most 1)."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def run_measure(
    serial: float, workers: list[int], seconds: float, repeats: int, cores: int
) -> dict[str, Any]:
    progress("calibrate", 0.0, f"{seconds:g} s 분량의 작업 크기를 재는 중")
    total = calibrate(seconds)
    n_serial = round(serial * total)
    n_parallel = total - n_serial

    # Start the worker processes BEFORE any clock runs: with "spawn" every worker is a fresh
    # Python that imports this lab, which costs tens of milliseconds each. That start-up cost is
    # real, but it is paid once, not per job, so it is measured and reported separately.
    ctx = multiprocessing.get_context("spawn")
    progress("start pool", 0.05, f"spawn 프로세스 {workers[-1]}개 시작")
    pool_start = time.perf_counter()
    with ctx.Pool(processes=workers[-1]) as pool:
        pool.map(work.ready, range(workers[-1]), chunksize=1)
        pool_start_s = time.perf_counter() - pool_start

        samples: dict[int, list[tuple[float, float, float]]] = {p: [] for p in workers}
        runs, done = repeats * len(workers), 0
        # Round-robin over the worker counts (1, 2, 4, 1, 2, 4, ...) so that a slow moment of the
        # machine hits every p alike instead of spoiling all the runs of one p.
        for r in range(repeats):
            for p in workers:
                start = time.perf_counter()
                work.spin(n_serial)  # the serial part: only the parent works, the pool waits
                serial_done = time.perf_counter()
                busy = pool.map(work.timed_spin, split(n_parallel, p), chunksize=1)
                end = time.perf_counter()
                samples[p].append((end - start, serial_done - start, statistics.fmean(busy)))
                done += 1
                progress("measure", 0.05 + 0.95 * done / runs, f"repeat {r + 1}/{repeats}, workers {p}")

    times = {p: statistics.median(s[0] for s in samples[p]) for p in workers}
    serial_times = {p: statistics.median(s[1] for s in samples[p]) for p in workers}
    busy_times = {p: statistics.median(s[2] for s in samples[p]) for p in workers}
    effective = {p: min(p, cores) for p in workers}
    result = summarise(serial, workers, times, effective, mode="measure")
    measured_serial_share = serial_times[1] / times[1]
    # How much slower each worker computed its share than the single worker did (per iteration).
    # About 1 while p <= cores and the cores are free; well above 1 when the "cores" are shared:
    # other programs running, or two logical CPUs on one physical core (hyper-threading).
    slowdown = {p: busy_times[p] / (busy_times[1] / p) for p in workers}

    result["tables"].insert(
        1,
        {
            "title": "시간 분해 (median, 초): 직렬 구간은 그대로, 병렬 구간만 줄어든다",
            "columns": [
                "workers",
                "total_s",
                "serial_part_s",
                "parallel_part_s",
                "worker_busy_s",
                "worker_slowdown",
            ],
            "rows": [
                [p, times[p], serial_times[p], times[p] - serial_times[p], busy_times[p], slowdown[p]]
                for p in workers
            ],
        },
    )
    result["tables"][-1]["rows"].insert(1, ["계측: T(1)의 직렬 구간 비율", measured_serial_share])

    findings = result["findings"]
    over = [p for p in workers if p > cores]
    if over:
        p_max = over[-1]
        p_fit = max(p for p in workers if p <= cores)
        findings.append(
            core_limit_finding(cores, p_fit, result["speedups"][p_fit], p_max, result["speedups"][p_max])
        )
        raw = result["karp_flatt_raw"]
        if raw.get(cores) is not None and raw.get(p_max) is not None and raw[p_max] > raw[cores] + 0.05:
            findings.append(
                "Karp–Flatt e를 요청한 작업자 수 p로 계산하면 p = "
                f"{cores}에서 {raw[cores]:.2f}, p = {p_max}에서 "
                f"{raw[p_max]:.2f}로 커집니다 — e가 p와 함께 커지면 직렬 코드가 아니라 p와 함께 커지는 비용"
                "(여기서는 코어 부족과 프로세스 간 통신)이 한계라는 신호입니다."
            )
    fitted = result["fitted_serial"]
    if fitted is not None and fitted - measured_serial_share > 0.02:
        findings.append(
            f"fit이 추정한 s = {fitted:.3f}는 직접 계측한 직렬 구간 비율 {measured_serial_share:.3f}보다 "
            f"{fitted - measured_serial_share:.3f} 큽니다 — 그 차이는 직렬 코드가 아니라 병렬 구간의 오버헤드"
            "(프로세스 간 통신, 같은 코어·캐시 공유로 느려진 "
            "작업자)입니다. 측정에서 얻은 s는 이런 비용을 모두 포함합니다."
        )
    findings.append(
        f"spawn 프로세스 풀 시작 {pool_start_s:.2f} s는 측정에서 뺐습니다 — 작업자 1명 실행 시간 "
        f"{times[1]:.2f} s의 {pool_start_s / times[1]:.0%}로, "
        "짧은 작업이라면 이 고정 비용이 직렬 구간처럼 작용합니다."
    )
    shared = {p: slowdown[p] for p in workers if 2 <= p <= cores}
    if shared and max(shared.values()) > 1.3:
        p_worst = max(shared, key=lambda p: shared[p])
        findings.insert(
            0,
            f"작업자 {p_worst}명(≤ 코어 {cores}개)일 때 각 작업자가 같은 양을 혼자 계산할 때보다 "
            f"{shared[p_worst]:.1f}배 느렸습니다 — 코어를 온전히 쓰지 못했다는 뜻입니다: 다른 프로그램이 CPU를 "
            "쓰고 있었거나, 두 논리 CPU가 한 물리 코어를 나눠 쓰는 hyper-threading일 수 있습니다. 기계가 "
            "조용할 때 다시 재 보세요.",
        )
    if cores < 2:
        findings.append(
            "CPU가 1개뿐이라 프로세스 병렬 효과를 측정할 수 없습니다 — --mode simulate로 법칙을 확인하세요."
        )

    result.update(
        {
            "job_iterations": total,
            "pool_start_s": pool_start_s,
            "measured_serial_share": measured_serial_share,
            "serial_times": serial_times,
            "worker_slowdown": slowdown,
            "repeats": repeats,
            "seconds": seconds,
        }
    )
    return result


# ---------------------------------------------------------------------------------------------
# simulate: sleeps instead of work
# ---------------------------------------------------------------------------------------------


# Two runs of the same work differ by a few percent on a quiet machine; a gain smaller than this
# past the core count is noise, not a gain.
NOISE_MARGIN = 0.05


def core_limit_finding(cores: int, p_fit: int, speedup_fit: float, p_max: int, speedup_max: float) -> str:
    """What the runs past the core count show. Past `cores` workers the speedup cannot rise (p' =
    min(p, cores)); when the measured numbers say it did, the sentence must say so and why (m11: a
    1.13× for 4 workers was reported as "not exceeding" the 0.94× for 2)."""
    limit = f"이 프로세스가 쓸 수 있는 CPU는 {cores}개라서 작업자를 늘려도 p' = min(p, {cores})입니다. "
    if speedup_max <= speedup_fit * (1 + NOISE_MARGIN):
        return (
            limit + f"그래서 작업자 {p_max}명의 속도 향상 {speedup_max:.2f}배는 "
            f"작업자 {p_fit}명의 {speedup_fit:.2f}배를 넘지 못합니다."
        )
    return (
        limit + f"그런데 이번에는 작업자 {p_max}명의 속도 향상 {speedup_max:.2f}배가 작업자 {p_fit}명의 "
        f"{speedup_fit:.2f}배보다 컸습니다 — 코어가 늘지 않았으니 이득이 아니라 측정 잡음입니다"
        f"(작업자 {p_fit}명일 때 다른 프로그램이 CPU를 썼을 가능성이 큽니다). 조용할 때 다시 재 보세요."
    )


def run_simulate(serial: float, workers: list[int], seconds: float, repeats: int) -> dict[str, Any]:
    """Serial part: sleep s*T. Parallel part: p threads each sleep (1-s)*T/p at the same time.

    Sleeping releases the GIL and uses no CPU, so p sleeping threads really do overlap, even on
    one core. The measurement is then exactly Amdahl's model, without the noise of real work.
    """
    samples: dict[int, list[float]] = {p: [] for p in workers}
    # A thread pool started (and all its threads created) before the clock runs.
    with ThreadPoolExecutor(max_workers=workers[-1]) as pool:
        list(pool.map(work.sleep_for, [0.005] * workers[-1]))
        runs, done = repeats * len(workers), 0
        for r in range(repeats):
            for p in workers:
                start = time.perf_counter()
                work.sleep_for(serial * seconds)
                list(pool.map(work.sleep_for, [(1 - serial) * seconds / p] * p))
                samples[p].append(time.perf_counter() - start)
                done += 1
                progress("simulate", done / runs, f"repeat {r + 1}/{repeats}, workers {p}")
    times = {p: statistics.median(samples[p]) for p in workers}
    result = summarise(serial, workers, times, {p: p for p in workers}, mode="simulate")
    result.update({"repeats": repeats, "seconds": seconds})
    return result


def write_artifacts(out: Path, result: dict[str, Any]) -> dict[str, str]:
    """The main table as CSV, for plotting or comparing runs elsewhere."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "amdahl.csv"
    table = result["tables"][0]
    return {"table": write_artifact(path, csv_text([table["columns"], *table["rows"]]))}
