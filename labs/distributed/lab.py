"""The network bottleneck: data-parallel training (DDP) on 1, 2, ... N processes, gloo on 127.0.0.1.

    python -m labs.distributed --quick
    python -m labs.distributed                      # more steps, more message sizes (~1 min)
    python -m labs.distributed --world-size 4       # 1, 2 and 4 processes (time-shared past the cores)
    python -m labs.distributed --bucket-caps 0.1,1,25 --accumulation 8

What runs (worker.py, in every rank; launcher.py starts and stops the ranks):
  scaling        the same global batch on 1, 2, ... N processes: step, compute, all-reduce, overlap
  buckets        bucket_cap_mb: small buckets reduce while backward still runs, one big one cannot
  accumulation   k micro-batches per optimizer step, all-reduce after each vs no_sync() until the last
  model vs batch the communication share for two model widths × two batch sizes per rank
  all-reduce     time vs message size: latency- vs bandwidth-bound, α + S/β
  profiler       torch.profiler on the DDP step: gloo:all_reduce in the trace vs the hook timers
Then step(N) is fitted to compute(N) + comm(N) (Amdahl with a communication term; analysis.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labs._protocol import (
    LabDependencyError,
    LabUsageError,
    bounded_int,
    parse_args,
    progress,
    write_artifact,
)
from labs.distributed import analysis, launcher

MAX_WORLD = 16
BUSY_SHARE = (
    0.75  # ranks that got less CPU time than this share of their cores were starved by other programs
)
TRACE_TOLERANCE = 0.10  # |trace share − timer share| within which the two are said to agree (of the step)
QUICK = {
    "width": 512,
    "depth": 6,
    "global_batch": 64,
    "warmup": 2,
    "phase_warmup": 1,
    "steps": 4,
    "rounds": 2,
    "bucket_caps_mb": [0.25, 25.0],
    "bucket_steps": 3,
    "accumulation": 4,
    "accumulation_steps": 2,
    "grid_widths": [128, 512],
    "grid_batches": [8, 64],
    "grid_steps": 3,
    "sweep_bytes": [4 << 10, 32 << 10, 256 << 10, 1 << 20, 4 << 20],
    "sweep_repeats": 5,
    "profile_steps": 3,
    "timeout_s": 150,
}
FULL = {
    "width": 512,
    "depth": 8,
    "global_batch": 128,
    "warmup": 3,
    "phase_warmup": 2,
    "steps": 15,
    "rounds": 3,
    "bucket_caps_mb": [0.25, 1.0, 4.0, 25.0],
    "bucket_steps": 8,
    "accumulation": 4,
    "accumulation_steps": 6,
    "grid_widths": [128, 512],
    "grid_batches": [8, 128],
    "grid_steps": 6,
    "sweep_bytes": [1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20],
    "sweep_repeats": 11,
    "profile_steps": 4,
    "timeout_s": 500,
}
PREDICT_AT = [1, 2, 4, 8, 16, 32, 64]


def _caps(text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"쉼표로 구분한 MB 값 목록이어야 합니다 (예: 0.25,1,25): {text!r}"
            ) from None
        if not 0.01 <= value <= 1024:
            raise argparse.ArgumentTypeError(f"bucket_cap_mb는 0.01..1024 MB여야 합니다: {text!r}")
        values.append(value)
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labs.distributed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick", action="store_true", help="작은 설정 (2코어에서 약 15~30초, 대부분 torch import)"
    )
    parser.add_argument("--out", type=Path, default=None, help="결과 폴더 (trace와 result.json)")
    parser.add_argument(
        "--world-size",
        type=bounded_int(2, MAX_WORLD),
        default=2,
        help="가장 큰 프로세스 수 N: 1, 2, 4, ... N을 잰다 (기본 2)",
    )
    parser.add_argument("--width", type=bounded_int(16, 4096), help="MLP 폭 (기본 512)")
    parser.add_argument("--depth", type=bounded_int(1, 64), help="Linear 층 수 (quick 6, full 8)")
    parser.add_argument(
        "--batch", type=bounded_int(2, 65536), help="전체(global) 배치 크기 (quick 64, full 128)"
    )
    parser.add_argument(
        "--steps", type=bounded_int(2, 500), help="프로세스 수마다 잰 step 수 (quick 4, full 15)"
    )
    parser.add_argument("--bucket-caps", type=_caps, help="비교할 bucket_cap_mb 목록 (예: 0.25,1,25)")
    parser.add_argument(
        "--accumulation", type=bounded_int(2, 64), help="optimizer step 하나의 micro-batch 수 k (기본 4)"
    )
    return parser


def usable_cores() -> int:
    """CPUs this process may run on (containers and taskset restrict it), not the machine's count."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def world_sizes(largest: int) -> list[int]:
    sizes, n = [], 1
    while n < largest:
        sizes.append(n)
        n *= 2
    return [*sizes, largest]


def total_work(plan: dict[str, Any]) -> float:
    """Units of work the ranks report as they go (worker.Rank.progress), for the progress bar."""
    steps = plan["scaling"]["steps"]
    return (
        sum(steps * (2 if n > 1 else 1) for n in plan["world_sizes"])
        + len(plan["bucket_caps_mb"]) * plan["bucket_steps"]
        + 2 * plan["accumulation_steps"]
        + len(plan["grid_widths"]) * len(plan["grid_batches"]) * plan["grid_steps"]
        + len(plan["sweep_bytes"])
        + plan["profile_steps"]
    )


def make_plan(args: argparse.Namespace, trace_dir: Path) -> dict[str, Any]:
    cfg = dict(QUICK if args.quick else FULL)
    for option, key in (
        ("width", "width"),
        ("depth", "depth"),
        ("batch", "global_batch"),
        ("steps", "steps"),
        ("bucket_caps", "bucket_caps_mb"),
        ("accumulation", "accumulation"),
    ):
        if getattr(args, option) is not None:
            cfg[key] = getattr(args, option)
    world = args.world_size
    if cfg["global_batch"] < world * cfg["accumulation"]:
        raise LabUsageError(
            f"--batch {cfg['global_batch']}는 프로세스 {world}개 × micro-batch {cfg['accumulation']}개보다 작을 수 없습니다"
        )
    plan = {
        "world_sizes": world_sizes(world),
        "loopback_interface": launcher.loopback_interface(),
        "collective_timeout_s": cfg["timeout_s"],
        "width": cfg["width"],
        "depth": cfg["depth"],
        "global_batch": cfg["global_batch"],
        "scaling": {"warmup": cfg["warmup"], "steps": cfg["steps"], "rounds": cfg["rounds"]},
        "phase_warmup": cfg["phase_warmup"],
        "bucket_caps_mb": cfg["bucket_caps_mb"],
        "bucket_steps": cfg["bucket_steps"],
        "accumulation": cfg["accumulation"],
        "accumulation_steps": cfg["accumulation_steps"],
        "grid_widths": cfg["grid_widths"],
        "grid_batches": [max(1, b) for b in cfg["grid_batches"]],
        "grid_steps": cfg["grid_steps"],
        "sweep_bytes": cfg["sweep_bytes"],
        "sweep_repeats": cfg["sweep_repeats"],
        "profile_steps": cfg["profile_steps"],
        "trace_dir": str(trace_dir),
        "timeout_s": cfg["timeout_s"],
    }
    plan["total_work"] = total_work(plan)
    return plan


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(build_parser(), argv)
    if sys.platform == "win32":  # the machine's limit (issue 30), said before any rank starts
        raise LabDependencyError(
            "the distributed lab does not run on Windows (PyTorch's Windows build has no libuv TCPStore, and the "
            "lab hands its store a listening socket): run it under WSL2, Linux or macOS"
        )
    # Only the ranks import torch (1–2 s each, in parallel); the parent just looks it up.
    if importlib.util.find_spec("torch") is None:
        raise LabDependencyError("the distributed lab needs PyTorch: pip install torch")
    out = Path(args.out).expanduser().resolve() if args.out is not None else None
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LabUsageError(f"cannot use --out {args.out}: {exc.strerror or exc}") from None
    with tempfile.TemporaryDirectory(prefix="distributed-lab-") as scratch:
        trace_dir = out if out is not None else Path(scratch)
        plan = make_plan(args, trace_dir)
        cores = usable_cores()
        progress("start", 0.0, f"{args.world_size} processes on 127.0.0.1 (gloo), {cores} usable core(s)")

        def relay(phase: str, fraction: float, message: str) -> None:
            progress(phase, 0.05 + 0.9 * fraction, message)

        try:
            ranks, listening = launcher.run_ranks(args.world_size, plan, plan["timeout_s"], relay)
        except launcher.RankMissingDependency as exc:
            raise LabDependencyError(str(exc)) from None
        except launcher.RankFailed as exc:
            raise RuntimeError(str(exc)) from None
        progress("analysis", 0.96, "reading the trace, fitting step(N) = compute(N) + comm(N)")
        result = build_result(plan, ranks, listening, cores)
        if out is None:  # the traces lived in a temporary folder
            result["artifacts"] = {}
            result["trace"]["file"] = None
        else:
            # The ranks' raw per-step records, to recompute anything here without running again.
            records = out / "rank_records.json"
            write_artifact(records, json.dumps(ranks, ensure_ascii=False))
            result["artifacts"] = {f"trace_rank{r['rank']}": r["profile"]["trace"] for r in ranks}
            result["artifacts"]["records"] = str(records)
    progress("done", 1.0, result["summary"])
    return result


# ---------------------------------------------------------------------------------------------
# From the ranks' records to the result
# ---------------------------------------------------------------------------------------------


def build_result(
    plan: dict[str, Any], ranks: list[dict[str, Any]], listening: list[dict[str, Any]] | None, cores: int
) -> dict[str, Any]:
    rank0 = ranks[0]
    world = len(ranks)
    params = plan["depth"] * (plan["width"] ** 2 + plan["width"])
    grad_bytes = 4 * params
    scaling = scaling_summary(plan, ranks)
    buckets = bucket_summary(rank0)
    accumulation = accumulation_summary(rank0)
    grid = grid_summary(rank0)
    sweep = sweep_summary(plan, rank0, world)
    trace = trace_summary(rank0, scaling[str(world)], world)
    amdahl = amdahl_summary(plan, scaling, sweep, grad_bytes, cores)
    time_shared = [n for n in plan["world_sizes"] if n > cores]
    loopback_only = None if listening is None else all(s["loopback"] for s in listening)
    result: dict[str, Any] = {
        "world_size": world,
        "world_sizes": plan["world_sizes"],
        "usable_cores": cores,
        "cpu_count": os.cpu_count(),
        "time_sharing": bool(time_shared) or cores < 2,
        "time_shared_sizes": time_shared,
        "backend": "gloo",
        "settings": {
            k: plan[k]
            for k in (
                "width",
                "depth",
                "global_batch",
                "bucket_caps_mb",
                "accumulation",
                "grid_widths",
                "grid_batches",
                "sweep_bytes",
                "profile_steps",
            )
        }
        | {"steps": plan["scaling"]["steps"], "warmup": plan["scaling"]["warmup"]},
        "params": params,
        "grad_bytes": grad_bytes,
        "scaling": scaling,
        "speedup": {n: row["speedup"] for n, row in scaling.items()},
        "efficiency": {n: row["efficiency"] for n, row in scaling.items()},
        "buckets": buckets,
        "accumulation": accumulation,
        "grid": grid,
        "allreduce": sweep,
        "trace": trace,
        "amdahl": amdahl,
        "listening": listening,
        "loopback_only": loopback_only,
        "loopback_interface": plan["loopback_interface"],
        "trace_tolerance": TRACE_TOLERANCE,
        "phase_s": rank0["phase_s"],
    }
    result["tables"] = tables(result)
    result["findings"] = findings(result)
    result["plots"] = plots(result)
    top = scaling[str(world)]
    result["summary"] = (
        f"프로세스 {world}개: step {ms(top['step_s'])} = 계산 {ms(top['compute_s'])} + 노출된 통신 "
        f"{ms(top['exposed_s'])} (all-reduce {ms(top['comm_s'])} 중 {top['overlap_fraction']:.0%} 겹침), "
        f"speedup {top['speedup']:.2f}배, 효율 {top['efficiency']:.0%}"
    )
    return result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def scaling_summary(plan: dict[str, Any], ranks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    rank0 = ranks[0]["scaling"]
    t1 = statistics.median(rank0["1"]["nosync"])
    out: dict[str, dict[str, Any]] = {}
    for n in plan["world_sizes"]:
        block = rank0[str(n)]
        nosync = statistics.median(block["nosync"])
        if n == 1:
            row = {
                "steps": len(block["nosync"]),
                "step_s": t1,
                "comm_s": 0.0,
                "exposed_s": 0.0,
                "compute_s": t1,
                "overlap_s": 0.0,
                "buckets": 0,
                "step_spread_s": analysis.spread(block["nosync"]),
            }
            row.update(analysis.shares(row))
        else:
            row = analysis.summarise_steps(block["synced"])
        cpu = sum(r["scaling"][str(n)]["cpu_s"] for r in ranks[:n])
        wall = block["wall_s"]
        row.update(
            {
                "processes": n,
                "batch_per_rank": plan["global_batch"] // n,
                "nosync_compute_s": nosync,
                # compute in the synchronised step minus compute alone: what running the all-reduce
                # next to backward cost the computation (gloo's threads need a CPU too)
                "interference_s": row["compute_s"] - nosync,
                "speedup": t1 / row["step_s"],
                "efficiency": t1 / (n * row["step_s"]),
                "cores_busy": cpu / wall if wall > 0 else 0.0,
            }
        )
        out[str(n)] = row
    return out


def bucket_summary(rank0: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for block in rank0["buckets"]:
        row = analysis.summarise_steps(block["steps"])
        row["bucket_cap_mb"] = block["bucket_cap_mb"]
        rows.append(row)
    return rows


def accumulation_summary(rank0: dict[str, Any]) -> dict[str, Any]:
    block = rank0["accumulation"]
    out: dict[str, Any] = {"k": block["k"], "micro_batch": block["micro_batch"]}
    for name in ("every", "no_sync"):
        row = analysis.summarise_steps(block[name])
        row["allreduce_calls"] = statistics.median(r["allreduce_calls"] for r in block[name])
        out[name] = row
    out["step_ratio"] = out["no_sync"]["step_s"] / out["every"]["step_s"]
    out["comm_ratio"] = (
        out["no_sync"]["comm_s"] / out["every"]["comm_s"] if out["every"]["comm_s"] > 0 else None
    )
    return out


def grid_summary(rank0: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for block in rank0["grid"]:
        row = analysis.summarise_steps(block["steps"])
        row.update(
            width=block["width"],
            params=block["params"],
            grad_bytes=4 * block["params"],
            batch_per_rank=block["batch_per_rank"],
        )
        rows.append(row)
    return rows


def sweep_summary(plan: dict[str, Any], rank0: dict[str, Any], world: int) -> dict[str, Any]:
    sizes = plan["sweep_bytes"]
    times = [statistics.median(rank0["sweep"]["times"][str(s)]) for s in sizes]
    fit = analysis.fit_latency_bandwidth(sizes, times)
    factor = analysis.ring_factor(world)
    rows = []
    for size, t in zip(sizes, times, strict=True):
        model = fit["latency_s"] + size / fit["bandwidth_Bps"]
        rows.append(
            {
                "bytes": size,
                "time_s": t,
                "algbw_Bps": size / t,
                "busbw_Bps": factor * size / t,
                "model_s": model,
                "latency_part": fit["latency_s"] / model if model > 0 else 0.0,
                "bound": "latency" if size < fit["crossover_bytes"] else "bandwidth",
            }
        )
    return {
        "world_size": world,
        "ring_factor": factor,
        "rows": rows,
        **fit,
        "bus_bandwidth_Bps": factor * fit["bandwidth_Bps"],
    }


def trace_summary(rank0: dict[str, Any], timed: dict[str, Any], world: int) -> dict[str, Any]:
    """The profiled steps read twice: from the trace (gloo:all_reduce spans) and from the hook timers."""
    profile = rank0["profile"]
    events = analysis.load_trace(profile["trace"])
    from_trace = analysis.trace_comm_analysis(events)
    records = profile["steps"]
    timer_step = sum(r["step_s"] for r in records)
    timer_comm = sum(r["comm_s"] for r in records)
    timer_exposed = sum(r["exposed_s"] for r in records)
    timer_share = timer_comm / timer_step if timer_step > 0 else 0.0
    gap = timer_share - from_trace["comm_share"]
    # The gap in two measured parts that sum to it: the time collectives sat in gloo's queue
    # (c10d:: op → gloo:* start, from the trace), and what the timers see beyond the trace's
    # queued-to-finished span: the Python call around the c10d op, timed by the hook as dispatch.
    queue_part = from_trace["launch_to_done_share"] - from_trace["comm_share"]
    rest_part = timer_share - from_trace["launch_to_done_share"]
    dispatch_share = sum(r.get("dispatch_s", 0.0) for r in records) / timer_step if timer_step > 0 else 0.0
    agree = abs(gap) <= TRACE_TOLERANCE
    explained = not agree and (
        abs(rest_part) <= TRACE_TOLERANCE or 0 <= rest_part <= dispatch_share + TRACE_TOLERANCE
    )
    overhead = (timer_step / len(records)) / timed["step_s"] if records and timed["step_s"] > 0 else None
    parts = (
        f"큐 대기(trace의 c10d::allreduce_ → gloo:* 시작) {queue_part:+.0%}p, 나머지 {rest_part:+.0%}p — hook이 all_reduce를 "
        f"부른 Python 호출은 step의 {dispatch_share:.0%}를 썼습니다(GIL과 CPU를 기다린 시간 포함)"
    )
    if agree:
        explanation = (
            f"trace의 통신 비율 {from_trace['comm_share']:.0%}와 timer의 {timer_share:.0%}가 허용 오차 "
            f"±{TRACE_TOLERANCE:.0%}p 안에서 일치합니다 (차이 {gap:+.0%}p: {parts})."
        )
    elif explained:
        explanation = (
            f"timer는 통신을 {timer_share:.0%}, trace는 {from_trace['comm_share']:.0%}로 봅니다 (차이 {gap:+.0%}p). trace의 "
            "gloo:* 구간은 gloo 스레드가 실제로 실행한 시간이고, hook timer는 DDP가 bucket을 넘긴 순간부터 결과가 돌아온 "
            f"순간까지 잽니다. 차이 = {parts}. 차이는 실행이 아니라 대기입니다: 바쁜 기계에서는 큐에 든 작업을 가져갈 gloo 스레드와, "
            "Python으로 all_reduce를 부르는 메인 스레드가 GIL과 CPU를 기다립니다."
        )
    else:
        explanation = (
            f"timer {timer_share:.0%}와 trace {from_trace['comm_share']:.0%}가 ±{TRACE_TOLERANCE:.0%}p 넘게 다르고 "
            f"(차이 {gap:+.0%}p = {parts}), 큐 대기와 호출 시간으로도 다 설명되지 않습니다: 두 비율의 분모부터 다릅니다 — "
            f"ProfilerStep#N 구간은 prof.step() 사이 전체(프로파일러의 처리 포함)라 {ms(from_trace['step_s'])}, timer의 step은 "
            f"{ms(timer_step)}입니다. profiler가 이벤트를 기록하는 비용도 step을 늘립니다(보통 step의 "
            + (f"{overhead:.2f}배" if overhead else "측정 안 됨")
            + "). 기계가 한가할 때 기본 설정으로 다시 재 보세요."
        )
    return {
        "file": profile["trace"],
        "steps": from_trace["steps"],
        "trace_step_s": from_trace["step_s"],
        "trace_comm_s": from_trace["comm_s"],
        "trace_comm_sum_s": from_trace["comm_sum_s"],
        "trace_exposed_s": from_trace["exposed_s"],
        "trace_comm_share": from_trace["comm_share"],
        "trace_launch_to_done_share": from_trace["launch_to_done_share"],
        "trace_overlap_fraction": from_trace["overlap_fraction"],
        "trace_queue_wait_s": from_trace["queue_wait_s"],
        "collectives": from_trace["collectives"],
        "collective_names": from_trace["collective_names"],
        "backend_threads": from_trace["backend_threads"],
        "timer_step_s": timer_step,
        "timer_comm_s": timer_comm,
        "timer_exposed_s": timer_exposed,
        "timer_comm_share": timer_share,
        "timer_overlap_fraction": (timer_comm - timer_exposed) / timer_comm if timer_comm > 0 else 0.0,
        "share_gap": gap,
        "gap_queue_share": queue_part,
        "gap_rest_share": rest_part,
        "agree": agree,
        "explained": explained,
        "timer_dispatch_share": dispatch_share,
        "explanation": explanation,
        "profiler_overhead": overhead,
        "world_size": world,
    }


def amdahl_summary(
    plan: dict[str, Any],
    scaling: dict[str, dict[str, Any]],
    sweep: dict[str, Any],
    grad_bytes: int,
    cores: int,
) -> dict[str, Any]:
    """Fit step(N) = compute(N) + c·comm(N) on the process counts that had a core each."""
    fair = [n for n in plan["world_sizes"] if n <= max(cores, 2)]
    measured = {n: scaling[str(n)]["step_s"] for n in fair}
    compute = {n: scaling[str(n)]["nosync_compute_s"] for n in fair}
    world = sweep["world_size"]
    buckets = scaling[str(plan["world_sizes"][-1])]["buckets"]
    fit = analysis.amdahl_with_comm(
        measured,
        compute,
        grad_bytes,
        buckets,
        sweep["latency_s"],
        sweep["bandwidth_Bps"],
        world,
        predict_to=max(PREDICT_AT),
    )
    karp = {str(n): analysis.karp_flatt(scaling[str(n)]["speedup"], n) for n in plan["world_sizes"] if n > 1}
    shown = {*PREDICT_AT, fit["best_n"], *plan["world_sizes"]}
    fit["predicted"] = {str(n): row for n, row in fit["predicted"].items() if n in shown}
    fit["residuals_s"] = {str(n): r for n, r in fit["residuals_s"].items()}
    fit["fitted_on"] = fair
    fit["karp_flatt"] = karp
    fit["grad_bytes"] = grad_bytes
    fit["buckets"] = buckets
    return fit


# ---------------------------------------------------------------------------------------------
# Tables, findings, plots
# ---------------------------------------------------------------------------------------------


def tables(r: dict[str, Any]) -> list[dict[str, Any]]:
    scaling_rows = [
        [
            int(n),
            row["batch_per_rank"],
            row["step_s"] * 1e3,
            row["compute_s"] * 1e3,
            row["exposed_s"] * 1e3,
            row["comm_s"] * 1e3,
            row["overlap_fraction"],
            row["nosync_compute_s"] * 1e3,
            row["speedup"],
            row["efficiency"],
            row["cores_busy"],
        ]
        for n, row in r["scaling"].items()
    ]
    out = [
        {
            "title": "스케일링: 같은 global batch를 N개 프로세스가 나눔 (ms, 중앙값; step = compute + exposed)",
            "columns": [
                "processes",
                "batch/rank",
                "step_ms",
                "compute_ms",
                "exposed_comm_ms",
                "allreduce_ms",
                "overlap",
                "no_sync_compute_ms",
                "speedup",
                "efficiency",
                "cores_busy",
            ],
            "rows": scaling_rows,
        },
        {
            "title": f"bucket_cap_mb (프로세스 {r['world_size']}개)",
            "columns": [
                "bucket_cap_mb",
                "buckets",
                "step_ms",
                "allreduce_ms",
                "exposed_comm_ms",
                "overlap",
                "comm_share",
            ],
            "rows": [
                [
                    b["bucket_cap_mb"],
                    b["buckets"],
                    b["step_s"] * 1e3,
                    b["comm_s"] * 1e3,
                    b["exposed_s"] * 1e3,
                    b["overlap_fraction"],
                    b["comm_share"],
                ]
                for b in r["buckets"]
            ],
        },
    ]
    acc = r["accumulation"]
    out.append(
        {
            "title": f"gradient accumulation: micro-batch {acc['k']}개 ({acc['micro_batch']}행)마다 optimizer step 1번",
            "columns": [
                "variant",
                "allreduce_calls",
                "step_ms",
                "allreduce_ms",
                "exposed_comm_ms",
                "comm_share",
            ],
            "rows": [
                [
                    name,
                    acc[key]["allreduce_calls"],
                    acc[key]["step_s"] * 1e3,
                    acc[key]["comm_s"] * 1e3,
                    acc[key]["exposed_s"] * 1e3,
                    acc[key]["comm_share"],
                ]
                for name, key in (
                    ("매 micro-batch all-reduce", "every"),
                    ("no_sync() 후 마지막에만", "no_sync"),
                )
            ],
        }
    )
    out.append(
        {
            "title": "모델 크기 × 배치 크기: 통신 비율",
            "columns": [
                "width",
                "grad_MB",
                "batch/rank",
                "step_ms",
                "allreduce_ms",
                "exposed_comm_ms",
                "comm_share",
                "exposed_share",
            ],
            "rows": [
                [
                    g["width"],
                    g["grad_bytes"] / 1e6,
                    g["batch_per_rank"],
                    g["step_s"] * 1e3,
                    g["comm_s"] * 1e3,
                    g["exposed_s"] * 1e3,
                    g["comm_share"],
                    g["exposed_share"],
                ]
                for g in r["grid"]
            ],
        }
    )
    sweep = r["allreduce"]
    out.append(
        {
            "title": (
                f"all-reduce 시간 vs 메시지 크기 (프로세스 {sweep['world_size']}개): α = {sweep['latency_s'] * 1e6:.0f} µs, "
                f"β = {sweep['bandwidth_Bps'] / 1e9:.2f} GB/s, 경계 α·β = {sweep['crossover_bytes'] / 1024:.0f} KiB"
            ),
            "columns": ["bytes", "time_us", "model_us", "algbw_GB/s", "busbw_GB/s", "latency_part", "bound"],
            "rows": [
                [
                    row["bytes"],
                    row["time_s"] * 1e6,
                    row["model_s"] * 1e6,
                    row["algbw_Bps"] / 1e9,
                    row["busbw_Bps"] / 1e9,
                    row["latency_part"],
                    row["bound"],
                ]
                for row in sweep["rows"]
            ],
        }
    )
    tr = r["trace"]
    out.append(
        {
            "title": f"profiler trace vs hook timer (같은 {tr['steps']} step, rank 0)",
            "columns": ["source", "step_ms", "comm_ms", "comm_share", "overlap"],
            "rows": [
                [
                    "trace: gloo:all_reduce 실행",
                    tr["trace_step_s"] * 1e3,
                    tr["trace_comm_s"] * 1e3,
                    tr["trace_comm_share"],
                    tr["trace_overlap_fraction"],
                ],
                [
                    "trace: c10d 큐 → 실행 끝",
                    tr["trace_step_s"] * 1e3,
                    tr["trace_launch_to_done_share"] * tr["trace_step_s"] * 1e3,
                    tr["trace_launch_to_done_share"],
                    None,
                ],
                [
                    "hook timer: launch → done",
                    tr["timer_step_s"] * 1e3,
                    tr["timer_comm_s"] * 1e3,
                    tr["timer_comm_share"],
                    tr["timer_overlap_fraction"],
                ],
            ],
        }
    )
    am = r["amdahl"]
    out.append(
        {
            "title": (
                f"Amdahl + 통신: step(N) = {am['fixed_s'] * 1e3:.1f} + {am['split_s'] * 1e3:.1f}/N ms + "
                f"{am['comm_multiplier']:.2f} × comm(N)  (comm = bucket {am['buckets']:g}개 × 지연 + 2(N−1)/N × "
                f"{am['grad_bytes'] / 1e6:.1f} MB / β)"
            ),
            "columns": [
                "processes",
                "step_ms",
                "compute_ms",
                "comm_ms",
                "speedup",
                "efficiency",
                "measured_step_ms",
            ],
            "rows": [
                [
                    int(n),
                    p["step_s"] * 1e3,
                    p["compute_s"] * 1e3,
                    p["comm_s"] * 1e3,
                    p["speedup"],
                    p["efficiency"],
                    r["scaling"][n]["step_s"] * 1e3 if n in r["scaling"] else None,
                ]
                for n, p in sorted(am["predicted"].items(), key=lambda kv: int(kv[0]))
            ],
        }
    )
    if r["listening"] is not None:
        out.append(
            {
                "title": "rank들이 listen한 TCP 소켓 (/proc에서 읽음)",
                "columns": ["pid", "address", "port", "loopback"],
                "rows": [[s["pid"], s["address"], s["port"], s["loopback"]] for s in r["listening"]],
            }
        )
    return out


def findings(r: dict[str, Any]) -> list[str]:
    out: list[str] = []
    world = r["world_size"]
    top, one = r["scaling"][str(world)], r["scaling"]["1"]
    if r["usable_cores"] < 2:
        out.append(
            "이 프로세스가 쓸 수 있는 CPU가 1개뿐입니다: rank들이 한 코어를 번갈아 쓰므로 아래 숫자는 병렬 처리가 아니라 "
            "time-sharing(시분할)을 잽니다 — speedup은 1을 넘기 어렵고, 통신 시간에는 상대 rank가 CPU를 받기를 기다린 시간이 섞입니다."
        )
    elif r["time_shared_sizes"]:
        out.append(
            f"프로세스 {', '.join(map(str, r['time_shared_sizes']))}개는 쓸 수 있는 코어 {r['usable_cores']}개보다 많아 "
            "코어를 나눠 씁니다(time-sharing): 그 행은 병렬 확장이 아니라 시분할을 잽니다. Amdahl fit에서는 뺐습니다."
        )
    # The one-process baseline only computes (no barrier, no communication): on a free core its CPU
    # time equals its wall time. Much less means other programs held the CPU.
    baseline_busy = one["cores_busy"]
    if baseline_busy < BUSY_SHARE and r["usable_cores"] >= 2:
        out.append(
            f"프로세스 1개 기준 측정이 받은 CPU 시간은 벽시계 시간의 {baseline_busy:.0%}뿐이었습니다(계산만 하는 구간이라 "
            "빈 코어라면 100%에 가깝습니다): 다른 프로그램이 CPU를 쓰고 있어 rank들이 코어를 나눠 받았습니다. 이때 speedup·효율은 "
            "병렬 확장보다 time-sharing을 잽니다 — 기계가 조용할 때 다시 재 보세요. 합(step = 계산 + 노출된 통신)은 그래도 맞습니다."
        )
    out.append(
        f"프로세스 {world}개의 step {ms(top['step_s'])} = 계산 {ms(top['compute_s'])} + 노출된 통신 {ms(top['exposed_s'])}. "
        f"all-reduce는 step마다 {ms(top['comm_s'])}(bucket {top['buckets']:g}개) 걸렸고 그중 {top['overlap_fraction']:.0%}는 "
        "backward가 아직 계산하는 동안 끝나(overlap) 숨었습니다."
    )
    out.append(
        f"1개 프로세스 {ms(one['step_s'])} → {world}개 {ms(top['step_s'])}: speedup {top['speedup']:.2f}배, "
        f"효율 t1/(N·tN) = {top['efficiency']:.0%}. " + compute_split_finding(r, world)
    )
    if top["interference_s"] > 0.1 * top["nosync_compute_s"]:
        out.append(
            f"통신과 함께 돈 계산 구간({ms(top['compute_s'])})이 통신 없이 잰 계산(no_sync, {ms(top['nosync_compute_s'])})보다 "
            f"{ms(top['interference_s'])} 깁니다: CPU에서는 gloo 스레드의 합산·복사가 backward와 같은 코어를 나눠 쓰므로 "
            "overlap이 공짜가 아닙니다(GPU+NCCL에서는 통신이 별도 stream·NIC에서 돕니다)."
        )
    buckets = r["buckets"]
    if len(buckets) >= 2:
        best = min(buckets, key=lambda b: b["step_s"])
        most = max(buckets, key=lambda b: b["buckets"])
        fewest = min(buckets, key=lambda b: b["buckets"])
        out.append(
            f"bucket_cap_mb={most['bucket_cap_mb']:g}: bucket {most['buckets']:g}개, 통신의 {most['overlap_fraction']:.0%}가 "
            f"backward와 겹침 / bucket_cap_mb={fewest['bucket_cap_mb']:g}: bucket {fewest['buckets']:g}개, "
            f"{fewest['overlap_fraction']:.0%}. 가장 빠른 step은 bucket_cap_mb={best['bucket_cap_mb']:g} ({ms(best['step_s'])}) — "
            "작은 bucket은 일찍 보내 겹치지만 호출마다 지연(α)을 내고, 큰 bucket은 마지막 gradient까지 기다립니다."
        )
    acc = r["accumulation"]
    out.append(
        f"micro-batch {acc['k']}개를 모아 optimizer step 1번: 매번 all-reduce하면 {acc['every']['allreduce_calls']:g}번 "
        f"({ms(acc['every']['comm_s'])}), no_sync()로 마지막에만 하면 {acc['no_sync']['allreduce_calls']:g}번 "
        f"({ms(acc['no_sync']['comm_s'])}); step은 {ms(acc['every']['step_s'])} → {ms(acc['no_sync']['step_s'])} "
        f"({acc['step_ratio']:.2f}배). 결과 gradient는 같고(합을 한 번에 평균) 통신만 1/{acc['k']}로 줍니다."
    )
    out += grid_findings(r)
    sweep = r["allreduce"]
    latency_rows = [row for row in sweep["rows"] if row["bound"] == "latency"]
    out.append(
        f"all-reduce(프로세스 {sweep['world_size']}개) fit: t(S) ≈ α + S/β, α = {sweep['latency_s'] * 1e6:.0f} µs, "
        f"β = {sweep['bandwidth_Bps'] / 1e9:.2f} GB/s (bus bandwidth {sweep['bus_bandwidth_Bps'] / 1e9:.2f} GB/s). "
        f"α·β = {sweep['crossover_bytes'] / 1024:.0f} KiB보다 작은 메시지({len(latency_rows)}개 크기)는 지연이, 큰 메시지는 "
        f"대역폭이 시간을 정합니다. 이 모델의 gradient {r['grad_bytes'] / 1e6:.1f} MB는 "
        + ("대역폭" if r["grad_bytes"] / max(top["buckets"], 1) >= sweep["crossover_bytes"] else "지연")
        + " 쪽입니다 (bucket 하나 평균 "
        + f"{r['grad_bytes'] / max(top['buckets'], 1) / 1e6:.2f} MB)."
    )
    tr = r["trace"]
    out.append(
        f"profiler trace에는 {', '.join(tr['collective_names']) or '(집합 통신 없음)'}가 gloo 스레드 {tr['backend_threads']}개 위에 "
        f"{tr['collectives']}번 나타납니다. " + tr["explanation"]
    )
    if tr["trace_comm_sum_s"] > tr["trace_comm_s"] * 1.05:
        out.append(
            f"trace의 통신 구간을 그냥 더하면 {ms(tr['trace_comm_sum_s'])}, 겹친 부분을 한 번만 세면 {ms(tr['trace_comm_s'])}: "
            "gloo 스레드 여러 개가 bucket을 동시에 줄이므로 비율은 구간의 합집합으로 재야 합니다."
        )
    am = r["amdahl"]
    more = am["predicted"].get(str(am["best_n"]))
    out.append(
        f"Amdahl + 통신 fit: step(N) = {am['fixed_s'] * 1e3:.1f} ms(나눠지지 않는 계산) + {am['split_s'] * 1e3:.1f}/N ms + "
        f"{am['comm_multiplier']:.2f} × comm(N). comm(N)의 대역폭 항 2(N−1)/N × S/β는 N이 커지면 2S/β로 다가가 줄지 않고, "
        "지연 항은 N과 함께 커집니다 — 계산은 1/N로 줄지만 통신은 그렇지 않아 "
        + (
            f"speedup은 N = {am['best_n']}에서 {am['best_speedup']:.2f}배로 최대가 되고 그 뒤로는 프로세스를 더해도 손해입니다"
            + (
                f" (N = {am['best_n']}: step {ms(more['step_s'])} 중 통신 {ms(more['comm_s'])})."
                if more
                else "."
            )
            if am["best_n"] > 1
            else "이 측정에서는 프로세스 2개부터 이미 통신이 나눠 얻은 계산 시간보다 커서, 1개가 가장 빠릅니다 "
            "(모델을 키우거나 rank당 배치를 늘리면 계산 몫이 커집니다: --batch, --width)."
        )
    )
    if am["karp_flatt"]:
        parts = ", ".join(f"N={n}: {e:.3f}" for n, e in am["karp_flatt"].items())
        out.append(
            f"amdahl lab의 Karp–Flatt e = (1/S − 1/N)/(1 − 1/N)로 보면 {parts}. 순수한 직렬 코드라면 e가 N과 무관하게 "
            "일정하지만, 통신은 N과 함께 커지는 오버헤드라 e를 키웁니다 — 통신을 Amdahl의 직렬 구간처럼 다루되 그 크기가 N에 "
            "따라 변한다는 것이 이 lab의 모델입니다."
            + (
                " e > 1은 프로세스를 늘렸더니 오히려 느려졌다는 뜻입니다(speedup < 1): 직렬 비율로는 읽을 수 없습니다."
                if any(e > 1 for e in am["karp_flatt"].values())
                else ""
            )
        )
    if r["loopback_only"] is None:
        out.append("이 OS에서는 /proc이 없어 listen 소켓을 확인하지 못했습니다 (Linux에서 확인합니다).")
    elif r["loopback_only"]:
        ports = ", ".join(str(s["port"]) for s in r["listening"])
        out.append(
            f"rank들은 127.0.0.1에서만 listen했습니다 (포트 {ports}: rendezvous store 1개와 gloo 연결). store는 127.0.0.1에 "
            f"묶은 소켓을 넘겨받고, gloo는 GLOO_SOCKET_IFNAME={r['loopback_interface']}로 loopback에 묶었습니다."
        )
    else:
        bad = ", ".join(f"{s['address']}:{s['port']}" for s in r["listening"] if not s["loopback"])
        out.append(f"경고: loopback이 아닌 주소에서 listen한 소켓이 있었습니다: {bad}")
    return out


def compute_split_finding(r: dict[str, Any], world: int) -> str:
    """Did the computation split N ways? Compared with t1/N, and why not where it did not."""
    top, one = r["scaling"][str(world)], r["scaling"]["1"]
    ideal = one["step_s"] / world
    ratio = top["nosync_compute_s"] / ideal
    text = f"통신을 빼고(no_sync) 잰 계산은 {ms(top['nosync_compute_s'])}로 t1/{world} = {ms(ideal)}의 {ratio:.2f}배"
    if ratio <= 1.15:
        return text + "입니다: 계산은 거의 이상적으로 나눠졌고, 잃은 시간은 통신입니다."
    if r["time_sharing"] or one["cores_busy"] < BUSY_SHARE:
        return (
            text
            + "입니다: rank들이 코어를 나눠 받아(time-sharing) 각자의 계산이 늘어졌습니다 — 나눠진 일의 양이 아니라 "
            "받은 CPU가 부족했습니다."
        )
    return (
        text
        + "입니다: 모든 rank가 같은 optimizer step(전체 파라미터)과 층마다 같은 고정 비용(연산 launch, 작은 행렬의 "
        "비효율)을 되풀이하므로 그 몫은 나눠지지 않습니다 — Amdahl의 직렬 구간과 같은 역할입니다."
    )


def grid_findings(r: dict[str, Any]) -> list[str]:
    """Communication share vs batch per rank (per width), and how much of a small model's all-reduce is latency."""
    by_width: dict[int, list[dict[str, Any]]] = {}
    for g in r["grid"]:
        by_width.setdefault(g["width"], []).append(g)
    parts = []
    for width, rows in sorted(by_width.items()):
        rows.sort(key=lambda g: g["batch_per_rank"])
        small, large = rows[0], rows[-1]
        if small is large:
            continue
        change = large["comm_share"] - small["comm_share"]
        trend = (
            "줄었습니다"
            if change < -0.02
            else "늘었습니다(잡음이나 CPU 경합)"
            if change > 0.02
            else "거의 같았습니다"
        )
        parts.append(
            f"width {width}(gradient {small['grad_bytes'] / 1e6:.1f} MB): batch {small['batch_per_rank']}→{large['batch_per_rank']}/rank에서 "
            f"통신 비율 {small['comm_share']:.0%}→{large['comm_share']:.0%}로 {trend}"
        )
    out = []
    if parts:
        out.append(
            "; ".join(parts)
            + ". all-reduce는 파라미터 수에만, 계산은 파라미터 수 × rank당 배치에 비례하므로 배치가 클수록 "
            "통신 몫이 작아야 합니다 — 그래서 데이터 병렬은 rank당 배치를 키울 때 잘 확장됩니다."
        )
    sweep = r["allreduce"]
    smallest = min(r["grid"], key=lambda g: g["grad_bytes"], default=None)
    if smallest is not None and smallest["comm_s"] > 0:
        latency = smallest["buckets"] * sweep["latency_s"]
        wire = smallest["grad_bytes"] * sweep["ring_factor"] / sweep["bus_bandwidth_Bps"]
        out.append(
            f"가장 작은 모델(width {smallest['width']}, {smallest['grad_bytes'] / 1e6:.2f} MB): sweep의 α로 보면 bucket "
            f"{smallest['buckets']:g}개 × α = {ms(latency)}, 대역폭 시간 S/β = {ms(wire)} — "
            + (
                "지연이 대역폭보다 커서 작은 모델의 all-reduce는 latency-bound입니다."
                if latency > wire
                else "대역폭 시간이 더 큽니다."
            )
        )
    return out


def plots(r: dict[str, Any]) -> list[dict[str, Any]]:
    am = r["amdahl"]
    predicted = sorted(am["predicted"].items(), key=lambda kv: int(kv[0]))
    sweep = r["allreduce"]
    return [
        {
            "title": "Amdahl + 통신: 예측 speedup vs 측정",
            "x": [int(n) for n, _ in predicted],
            "series": {
                "predicted": [p["speedup"] for _, p in predicted],
                "ideal": [float(n) for n, _ in predicted],
                "measured": [r["scaling"][n]["speedup"] if n in r["scaling"] else None for n, _ in predicted],
            },
            "xlabel": "processes",
            "ylabel": "speedup (배)",
        },
        {
            "title": "all-reduce 시간 vs 메시지 크기",
            "x": [row["bytes"] for row in sweep["rows"]],
            "series": {
                "measured_us": [row["time_s"] * 1e6 for row in sweep["rows"]],
                "alpha_plus_S_over_beta_us": [row["model_s"] * 1e6 for row in sweep["rows"]],
            },
            "xlabel": "bytes",
            "ylabel": "µs",
        },
    ]
