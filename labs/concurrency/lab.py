"""동시성 모델 비교: 같은 작업을 sequential / threads / asyncio / processes로 돌려 벽시계 시간을 잰다.

    python -m labs.concurrency --quick
    python -m labs.concurrency --processes 1      # 프로세스 1개면 CPU-bound도 안 빨라진다
    python -m labs.concurrency --cpu-ms 300       # 작업이 길수록 프로세스 시작·통신 비용이 묻힌다

두 가지 작업(workload):
- I/O-bound: 응답을 기다리는 작업 (sleep으로 흉내). 기다리는 동안 CPU는 논다.
- CPU-bound: 순수 Python 계산 루프. 실행하는 내내 GIL(Global Interpreter Lock)을 쥔다.

speedup = t_sequential / t_model. 2배면 같은 일을 절반 시간에 끝냈다는 뜻이다.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from labs._protocol import LabUsageError, parse_args, progress, write_artifact
from labs.concurrency.workloads import cpu_task, io_task, io_task_async, measured, worker_ready

MODELS = ("sequential", "threads", "asyncio", "processes")
WORKLOADS = ("io_bound", "cpu_bound")
HOW = {  # 각 모델을 이 lab에서 어떻게 돌렸나 (표에 보여 준다)
    ("io_bound", "sequential"): "for 루프 + time.sleep",
    ("io_bound", "threads"): "ThreadPoolExecutor + time.sleep",
    ("io_bound", "asyncio"): "asyncio.gather + asyncio.sleep (1 thread)",
    ("io_bound", "processes"): "ProcessPoolExecutor(spawn) + time.sleep",
    ("cpu_bound", "sequential"): "for 루프",
    ("cpu_bound", "threads"): "ThreadPoolExecutor",
    ("cpu_bound", "asyncio"): "asyncio.gather + asyncio.to_thread",
    ("cpu_bound", "processes"): "ProcessPoolExecutor(spawn)",
}

QUICK = {"io_tasks": 8, "io_ms": 30, "cpu_tasks": 8, "cpu_ms": 40, "repeats": 4}
FULL = {"io_tasks": 16, "io_ms": 50, "cpu_tasks": 16, "cpu_ms": 80, "repeats": 6}
LIMITS = {  # 옵션의 허용 범위 (너무 큰 값으로 기계를 멈추지 않도록)
    "io_tasks": (1, 1000), "io_ms": (1, 2000), "cpu_tasks": (1, 256), "cpu_ms": (1, 5000),
    "repeats": (1, 20), "threads": (1, 1000), "processes": (1, 64),
}  # fmt: skip

# speedup이 이 범위 안이면 "sequential과 비슷하다"고 읽는다 (해석용 기준, 측정값이 아님)
SAME_LOW, SAME_HIGH = 1 / 1.3, 1.3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labs.concurrency",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="작은 설정 (약 7초)")
    parser.add_argument("--out", type=Path, default=None, help="결과 폴더 (timings.json을 쓴다)")
    parser.add_argument("--io-tasks", type=int, help="I/O 작업 수 (quick 8, full 16)")
    parser.add_argument("--io-ms", type=int, help="I/O 작업 하나의 대기 시간 ms (quick 30, full 50)")
    parser.add_argument("--cpu-tasks", type=int, help="CPU 작업 수 (quick 8, full 16)")
    parser.add_argument("--cpu-ms", type=int, help="CPU 작업 하나의 목표 계산 시간 ms (quick 40, full 80)")
    parser.add_argument(
        "--repeats", type=int, help="모델마다 반복 측정 횟수; 중앙값을 보고 (quick 4, full 6)"
    )
    parser.add_argument("--threads", type=int, help="스레드 수 (기본: I/O 작업 수)")
    parser.add_argument("--processes", type=int, help="프로세스 수 (기본: 쓸 수 있는 코어 수)")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(build_parser(), argv)
    cfg = dict(QUICK if args.quick else FULL)
    for key in cfg:
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    cores = os.cpu_count() or 1
    usable = usable_cores()
    cfg["threads"] = args.threads if args.threads is not None else cfg["io_tasks"]
    cfg["processes"] = args.processes if args.processes is not None else usable
    for key, (low, high) in LIMITS.items():
        if not low <= cfg[key] <= high:
            raise LabUsageError(f"--{key.replace('_', '-')} must be between {low} and {high}")
    out = Path(args.out).expanduser().resolve() if args.out is not None else None
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LabUsageError(f"cannot use --out {args.out}: {exc.strerror or exc}") from None

    gil_enabled, gil_text = gil_status()

    # CPU 작업의 크기를 이 기계에 맞춘다: 작업 하나가 약 cpu_ms가 되도록 루프 횟수를 정한다
    progress("calibrating", 0.01, "sizing the CPU-bound task for this machine")
    cpu_n = calibrate_cpu_task(cfg["cpu_ms"] / 1000)
    io_args = [cfg["io_ms"] / 1000] * cfg["io_tasks"]
    cpu_args = [cpu_n] * cfg["cpu_tasks"]

    runs: dict[str, dict[str, list[float]]] = {w: {m: [] for m in MODELS} for w in WORKLOADS}
    cores_used_runs: dict[str, dict[str, list[float]]] = {w: {m: [] for m in MODELS} for w in WORKLOADS}
    # spawn: 자식은 새 Python을 띄워 필요한 모듈을 import한다 (fork보다 느리지만 스레드가 있는
    # 부모에서도 안전하고 Windows/macOS와 같은 방식)
    ctx = multiprocessing.get_context("spawn")
    progress("starting processes", 0.03, f"{cfg['processes']} spawn workers")
    with ProcessPoolExecutor(max_workers=cfg["processes"], mp_context=ctx) as pool:
        startup = start_pool(pool, cfg["processes"])
        # 각 job은 (답 목록, 자식 프로세스가 쓴 CPU 초)를 돌려준다
        jobs: dict[str, dict[str, Callable[[], tuple[list, float]]]] = {
            "io_bound": {
                "sequential": lambda: ([io_task(s) for s in io_args], 0.0),
                "threads": lambda: (run_threads(io_task, io_args, cfg["threads"]), 0.0),
                "asyncio": lambda: (asyncio.run(gather_sleeps(io_args)), 0.0),
                "processes": lambda: run_processes(pool, io_task, io_args),
            },
            "cpu_bound": {
                "sequential": lambda: ([cpu_task(n) for n in cpu_args], 0.0),
                "threads": lambda: (run_threads(cpu_task, cpu_args, cfg["threads"]), 0.0),
                "asyncio": lambda: (asyncio.run(gather_in_threads(cpu_task, cpu_args)), 0.0),
                "processes": lambda: run_processes(pool, cpu_task, cpu_args),
            },
        }
        # 반복마다 모든 모델을 번갈아 잰다: 기계가 잠깐 바빠져도 한 모델만 손해 보지 않도록
        total = cfg["repeats"] * len(WORKLOADS) * len(MODELS)
        done = 0
        for repeat in range(cfg["repeats"]):
            # 순서를 A B C D, D C B A, A B C D ...로 뒤집어 가며 잰다 (ABBA). 이 기계(가상 머신)는 몇 초
            # 사이에도 빨라졌다 느려졌다 해서, 늘 같은 순서면 뒤에 재는 모델만 득이나 손해를 본다.
            order = MODELS if repeat % 2 == 0 else MODELS[::-1]
            for workload in WORKLOADS:
                expected = None
                for model in order:
                    progress(
                        workload,
                        0.05 + 0.93 * done / total,
                        f"{model} (repeat {repeat + 1}/{cfg['repeats']})",
                    )
                    # 벽시계 시간과 함께 CPU 시간도 잰다: process_time은 이 프로세스의 모든 스레드가
                    # CPU에서 실행된 시간의 합. CPU 시간 / 벽시계 시간 = 평균 몇 개의 코어를 썼나
                    cpu_start, start = time.process_time(), time.perf_counter()
                    answers, child_cpu = jobs[workload][model]()
                    wall = time.perf_counter() - start
                    cpu = time.process_time() - cpu_start + child_cpu
                    runs[workload][model].append(wall)
                    cores_used_runs[workload][model].append(cpu / wall)
                    # 모델이 달라도 답은 같아야 한다 (빠르기만 다르다)
                    expected = answers if expected is None else expected
                    if answers != expected:
                        raise RuntimeError(f"{workload}/{model} returned different results")
                    done += 1

    # 반복의 중앙값(median)을 쓴다 (benchmark lab과 같은 규칙): 조용한 기계의 짧은 CPU-bound 측정이면
    # 방해가 대개 시간을 늘리므로 min이 가장 깨끗하지만, 이 기계는 속도 자체가 변해서(0.33초 작업이
    # 한 번 0.18초) min이 그런 "운 좋은" 한 번에 끌려간다. 속도가 변하는 기계에서는 median으로 말한다.
    timings = {w: {m: statistics.median(runs[w][m]) for m in MODELS} for w in WORKLOADS}
    speedups = {w: {m: timings[w]["sequential"] / timings[w][m] for m in MODELS} for w in WORKLOADS}
    best = {w: min(MODELS, key=lambda m: timings[w][m]) for w in WORKLOADS}
    cores_used = {w: {m: statistics.median(cores_used_runs[w][m]) for m in MODELS} for w in WORKLOADS}
    workers = {
        "io_bound": {"sequential": 1, "threads": cfg["threads"], "asyncio": cfg["io_tasks"],
                     "processes": cfg["processes"]},
        "cpu_bound": {"sequential": 1, "threads": cfg["threads"], "asyncio": default_executor_threads(),
                      "processes": cfg["processes"]},
    }  # fmt: skip

    result: dict[str, Any] = {
        "timings": timings,
        "speedups": speedups,
        "best": best,
        "gil_enabled": gil_enabled,
        "gil_status": gil_text,
        "cores": cores,
        "usable_cores": usable,
        "workers": workers,
        "cores_used": cores_used,
        "runs": runs,
        "cores_used_runs": cores_used_runs,
        "process_pool_startup_s": startup,
        "settings": {**cfg, "cpu_task_loops": cpu_n},
        "artifacts": {},
    }
    if out is not None:  # 모든 반복의 시간을 파일로도 남긴다 (다른 도구로 다시 분석할 수 있게)
        path = out / "timings.json"
        keep = (
            "timings",
            "speedups",
            "best",
            "runs",
            "cores_used",
            "cores_used_runs",
            "workers",
            "settings",
            "gil_status",
            "cores",
            "usable_cores",
        )
        write_artifact(path, json.dumps({k: result[k] for k in keep}, indent=2))
        result["artifacts"]["timings"] = str(path)
    result["tables"] = [timing_table(result), how_table(), environment_table(result)]
    result["findings"] = io_findings(result) + cpu_findings(result)
    result["summary"] = make_summary(result)
    progress("done", 1.0, "")
    return result


# --- 모델별 실행 방법 ---------------------------------------------------------------------------


def run_threads(fn: Callable[[Any], Any], args: list, workers: int) -> list:
    """스레드 풀: 스레드는 같은 프로세스 안에서 메모리를 공유하며, GIL을 번갈아 쥔다."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, args))


def run_processes(pool: ProcessPoolExecutor, fn: Callable[[Any], Any], args: list) -> tuple[list, float]:
    """프로세스 풀: 인자와 결과는 pickle로 오간다. worker마다 쓴 CPU 시간도 함께 받아 합친다."""
    pairs = list(pool.map(functools.partial(measured, fn), args))
    return [value for value, _ in pairs], sum(cpu for _, cpu in pairs)


async def gather_sleeps(seconds: list[float]) -> list[float]:
    """asyncio: 한 스레드의 event loop가 모든 기다림을 동시에 관리한다 (스레드를 만들지 않는다)."""
    return list(await asyncio.gather(*(io_task_async(s) for s in seconds)))


async def gather_in_threads(fn: Callable[[Any], Any], args: list) -> list:
    """CPU 일은 await할 곳이 없다: coroutine 안에서 그냥 계산하면 event loop 전체가 멈춘다.

    그래서 asyncio.to_thread로 loop의 기본 스레드 풀에 넘긴다. loop는 막히지 않지만,
    계산은 결국 스레드에서 돌므로 threads와 같은 GIL의 제약을 받는다.
    """
    return list(await asyncio.gather(*(asyncio.to_thread(fn, a) for a in args)))


def start_pool(pool: ProcessPoolExecutor, workers: int) -> float:
    """프로세스를 미리 띄워 둔다. 걸린 시간(대기 0.05초 제외)을 프로세스 시작 비용으로 돌려준다.

    측정에는 이미 떠 있는 풀을 쓴다 (서버나 persistent worker처럼). 시작 비용은 따로 보고한다.
    """
    delay = 0.05  # 각 worker가 잠깐 붙잡혀 있어야 작업이 한 worker에 몰리지 않고 모두 뜬다
    start = time.perf_counter()
    list(pool.map(worker_ready, [delay] * workers))
    return max(0.0, time.perf_counter() - start - delay)


def calibrate_cpu_task(target_s: float) -> int:
    """cpu_task(n)이 약 target_s초 걸리는 n을 찾는다 (기계마다 Python 속도가 다르므로)."""
    n = 20_000
    while True:
        elapsed = min(timed(cpu_task, n) for _ in range(3))
        if elapsed >= 0.01 or n >= 1 << 30:
            return max(1_000, int(n * target_s / max(elapsed, 1e-9)))
        n *= 2


def timed(fn: Callable[[Any], Any], arg: Any) -> float:
    start = time.perf_counter()
    fn(arg)
    return time.perf_counter() - start


# --- 환경 -----------------------------------------------------------------------------------------


def gil_status() -> tuple[bool, str]:
    """GIL이 켜져 있나. Python 3.13+는 sys._is_gil_enabled()로 알 수 있다 (free-threaded 빌드는 끌 수 있다)."""
    check = getattr(sys, "_is_gil_enabled", None)
    if check is not None:
        enabled = bool(check())
        return enabled, "enabled" if enabled else "disabled (free-threaded build)"
    if sys.implementation.name == "cpython":
        return True, "enabled (CPython < 3.13)"
    return True, f"enabled ({platform.python_implementation()})"


def usable_cores() -> int:
    """이 프로세스가 실제로 쓸 수 있는 코어 수 (컨테이너·affinity 제한을 반영)."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_executor_threads() -> int:
    """asyncio.to_thread가 쓰는 기본 ThreadPoolExecutor의 크기: min(32, cpu_count + 4)."""
    return min(32, (os.cpu_count() or 1) + 4)


# --- 표와 해석 (모두 측정값에서 계산) ---------------------------------------------------------------


def timing_table(r: dict[str, Any]) -> dict[str, Any]:
    rows = []
    for w in WORKLOADS:
        for m in MODELS:
            times = r["runs"][w][m]
            rows.append([w, m, r["workers"][w][m], r["timings"][w][m], min(times), max(times),
                         r["speedups"][w][m], r["cores_used"][w][m]])  # fmt: skip
    columns = ["workload", "model", "workers", "median s", "min s", "max s", "speedup ×", "cores used"]
    return {
        "title": "벽시계 시간(wall time, 반복의 median)과 speedup = t_sequential / t_model",
        "columns": columns,
        "rows": rows,
    }


def how_table() -> dict[str, Any]:
    rows = [[w, m, HOW[(w, m)]] for w in WORKLOADS for m in MODELS]
    return {"title": "모델별 실행 방법", "columns": ["workload", "model", "how"], "rows": rows}


def environment_table(r: dict[str, Any]) -> dict[str, Any]:
    s = r["settings"]
    rows = [
        ["Python", f"{platform.python_implementation()} {platform.python_version()}"],
        ["GIL", r["gil_status"]],
        ["cores (os.cpu_count)", r["cores"]],
        ["usable cores", r["usable_cores"]],
        ["process start method", "spawn"],
        ["process pool startup s", r["process_pool_startup_s"]],
        ["I/O-bound workload", f"{s['io_tasks']} × {s['io_ms']} ms wait"],
        ["CPU-bound workload", f"{s['cpu_tasks']} × ~{s['cpu_ms']} ms ({s['cpu_task_loops']} loops)"],
        ["repeats (median reported)", s["repeats"]],
    ]
    return {"title": "환경과 설정", "columns": ["item", "value"], "rows": rows}


def io_findings(r: dict[str, Any]) -> list[str]:
    sp, t, s = r["speedups"]["io_bound"], r["timings"]["io_bound"], r["settings"]
    used = r["cores_used"]["io_bound"]
    # 기다리기만 하는 작업은 "동시에 기다릴 수 있는 수"만큼 빨라질 수 있다
    ideal_threads = min(s["io_tasks"], s["threads"])
    ideal_procs = min(s["io_tasks"], s["processes"])
    findings = [
        f"I/O-bound ({s['io_tasks']} × {s['io_ms']} ms 대기, sequential {t['sequential']:.3f}s): "
        f"threads {sp['threads']:.1f}배, asyncio {sp['asyncio']:.1f}배, processes {sp['processes']:.1f}배. "
        f"기다리는 동안에는 GIL을 놓고 CPU도 쓰지 않으므로(threads의 CPU 사용: 코어 {used['threads']:.2f}개분) "
        f"동시에 기다리는 작업 수만큼 빨라진다: threads {s['threads']}개는 최대 {ideal_threads}배 중 "
        f"{sp['threads'] / ideal_threads:.0%}, processes {s['processes']}개는 최대 {ideal_procs}배 중 "
        f"{sp['processes'] / ideal_procs:.0%}.",
    ]
    best = r["best"]["io_bound"]
    light = max(("threads", "asyncio"), key=lambda m: sp[m])
    if best in ("threads", "asyncio"):
        other = "asyncio" if best == "threads" else "threads"
        runs = r["runs"]["io_bound"]
        tie = ranges_overlap(runs[best], runs[other])
        verdict = (
            f"{best}와 {other} ({sp[best]:.1f}배 vs {sp[other]:.1f}배 — 반복마다의 시간 범위가 겹쳐 어느 쪽이 빠르다고 "
            "말할 수 없다, 둘 다 맞는 모델)"
            if tie
            else f"{best} ({sp[best]:.1f}배; {other}는 {sp[other]:.1f}배)"
        )
        findings.append(
            f"I/O-bound에 맞는 모델: {verdict}. 대기가 대부분인 일에는 "
            f"가벼운 동시성이 맞다 — processes는 worker {s['processes']}개만큼만 겹쳐 기다려 "
            f"{sp['processes']:.1f}배에 그쳤다. asyncio는 스레드 하나로 수천 개의 대기를 다룰 수 있다."
        )
    else:
        findings.append(
            f"I/O-bound에서 이번에는 {best}가 가장 빨랐다 ({sp[best]:.1f}배, {light}는 {sp[light]:.1f}배): "
            f"worker 수 설정이 결과를 좌우했다 (--threads, --processes로 바꿔 보자)."
        )
    return findings


def ranges_overlap(a: list[float], b: list[float]) -> bool:
    """Do two sets of repeated timings overlap ([min, max] ranges)? Then neither is clearly faster."""
    return max(a) >= min(b) and max(b) >= min(a)


def cpu_findings(r: dict[str, Any]) -> list[str]:
    sp, t, s = r["speedups"]["cpu_bound"], r["timings"]["cpu_bound"], r["settings"]
    used = r["cores_used"]["cpu_bound"]
    usable = r["usable_cores"]
    findings = []
    for model in ("threads", "asyncio"):
        how = "threads" if model == "threads" else "asyncio(to_thread)"
        n = r["workers"]["cpu_bound"][model]
        if SAME_LOW <= sp[model] <= SAME_HIGH and r["gil_enabled"]:
            if model == "threads":
                why = (f"스레드 {n}개가 함께 쓴 CPU는 코어 {used[model]:.2f}개분: GIL 때문에 한 번에 한 스레드만 "
                       f"Python bytecode를 실행하므로 스레드를 늘려도 계산이 나눠지지 않는다.")  # fmt: skip
            else:
                why = (f"event loop는 스레드 하나이고, to_thread로 넘긴 계산도 결국 스레드 {n}개에서 돌아 같은 GIL에 "
                       f"막힌다(CPU 사용 코어 {used[model]:.2f}개분). to_thread 없이 coroutine 안에서 계산하면 "
                       f"loop가 통째로 멈춘다.")  # fmt: skip
            findings.append(f"CPU-bound: {how} {sp[model]:.2f}배 ≈ sequential. {why}")
        elif sp[model] > SAME_HIGH:
            reason = (
                "GIL이 꺼져 있어(free-threaded) 스레드가 코어를 나눠 쓴다"
                if not r["gil_enabled"]
                else "GIL이 켜져 있는데도 빨라졌다: 작업 안에 GIL을 놓는 부분(I/O, C 확장)이 있는지 보자"
            )
            findings.append(
                f"CPU-bound: {how} {sp[model]:.2f}배, CPU 사용 코어 {used[model]:.2f}개분 — {reason}."
            )
        else:
            findings.append(
                f"CPU-bound: {how} {sp[model]:.2f}배 — sequential보다 느리다: 스레드들이 GIL을 주고받는 비용만 늘었다."
            )
    ideal = min(s["processes"], usable, s["cpu_tasks"])
    busy = used["processes"] < 0.75 * ideal  # worker들이 코어를 다 받지 못했다
    with_startup = t["sequential"] / (t["processes"] + r["process_pool_startup_s"])
    if ideal < 2:
        findings.append(
            f"CPU-bound: processes {sp['processes']:.2f}배 — 쓸 수 있는 코어(또는 --processes)가 {ideal}개라 "
            f"프로세스로도 계산을 나눌 수 없다. 코어가 여러 개인 기계에서 다시 재 보자."
        )
    elif busy:
        findings.append(
            f"CPU-bound: processes {sp['processes']:.2f}배 — worker들이 받은 CPU가 코어 {ideal}개 중 "
            f"{used['processes']:.2f}개분뿐이었다: 다른 프로그램이 CPU를 쓰고 있었다. 병렬화의 이득은 비어 있는 "
            f"코어 수에 달려 있다 (기계가 조용할 때 다시 재 보자)."
        )
    else:
        note = (
            "나머지는 pickle로 주고받는 통신과 작업 배분 비용"
            if sp["processes"] <= ideal
            else "이상보다 크게 나온 것은 측정 잡음: 반복마다 기계의 속도가 달랐다"
        )
        findings.append(
            f"CPU-bound: processes {sp['processes']:.2f}배, CPU 사용 코어 {used['processes']:.2f}개분 — 프로세스마다 "
            f"자기 인터프리터와 GIL이 있어 코어 {usable}개를 실제로 함께 쓴다. 이상적이면 {ideal}배, 효율 "
            f"{sp['processes'] / ideal:.0%} ({note}). CPU-bound에 맞는 모델: processes."
        )
    findings.append(
        f"spawn 프로세스 풀 시작에 {r['process_pool_startup_s']:.3f}s가 걸렸다(위 시간에는 넣지 않음). 넣으면 CPU-bound "
        f"processes는 {with_startup:.2f}배"
        + (": sequential보다도 느려진다" if with_startup < 1 else "")
        + ". 짧은 일에는 프로세스 시작 비용이 이득을 잡아먹으므로, 풀을 한 번 만들어 오래 쓴다."
    )
    return findings


def make_summary(r: dict[str, Any]) -> str:
    io_best, cpu_best = r["best"]["io_bound"], r["best"]["cpu_bound"]
    sp = r["speedups"]
    return (
        f"I/O-bound: {io_best} {sp['io_bound'][io_best]:.1f}배; CPU-bound: {cpu_best} "
        f"{sp['cpu_bound'][cpu_best]:.2f}배, threads {sp['cpu_bound']['threads']:.2f}배 "
        f"(GIL {r['gil_status']}, 코어 {r['usable_cores']}개)"
    )
