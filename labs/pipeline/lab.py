"""Pipeline bottlenecks, measured: find the slowest stage, speed it up, watch the next one appear.

Part 1  a threaded pipeline (load -> preprocess -> compute) with bounded queues: throughput vs the
        1 / slowest-stage prediction, busy / starved / blocked time per stage, the bottleneck
        found from the measurement, then a second run with the bottleneck given more workers.
Part 2  the same idea in PyTorch: a loading-bound training loop and a DataLoader num_workers sweep.
Part 3  checklist item 1 for the part-1 run: memory pattern (tracemalloc), I/O wait share,
        parallel efficiency.

Run `python -m labs.pipeline --help` for the options. The pipeline itself is in stages.py, the
DataLoader part in loader.py (the only module that imports torch).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from labs._protocol import LabUsageError, progress
from labs._protocol import parse_args as parse_lab_args
from labs.pipeline.stages import PipelineRun, chrome_trace, predicted_throughput, run_pipeline, stage_stats

MAX_STAGES = 8
MAX_STAGE_MS = 1000.0
MAX_STAGE_WORKERS = 16
GAIN_THRESHOLD = 0.10  # "returns stop" when one more step of num_workers gains less than this


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------


def _stages(text: str) -> list[float]:
    parts = text.split(",")
    if not 1 <= len(parts) <= MAX_STAGES:
        raise argparse.ArgumentTypeError(f"단계는 1–{MAX_STAGES}개여야 합니다: {text!r}")
    costs = []
    for part in parts:
        try:
            ms = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"쉼표로 구분한 단계별 비용(ms)이어야 합니다 (예: 5,20,10): {text!r}"
            ) from None
        if not 0 <= ms <= MAX_STAGE_MS:
            raise argparse.ArgumentTypeError(f"단계 비용은 0–{MAX_STAGE_MS:g} ms여야 합니다: {text!r}")
        costs.append(ms)
    if max(costs) == 0:
        raise argparse.ArgumentTypeError(f"적어도 한 단계는 비용이 0보다 커야 합니다: {text!r}")
    return costs


def _count(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.strip().isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{low}–{high} 범위의 정수여야 합니다: {text!r}")
        return int(text)

    return parse


def _worker_list(text: str) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"쉼표로 구분한 0 이상의 정수여야 합니다 (예: 0,1,2): {text!r}")
    return sorted({int(p) for p in parts})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labs.pipeline", description="Pipeline bottlenecks and DataLoader num_workers."
    )
    parser.add_argument(
        "--stages",
        type=_stages,
        default=[5.0, 20.0, 10.0],
        help="cost of each stage in ms, comma-separated (default 5,20,10)",
    )
    parser.add_argument(
        "--items",
        type=_count(2, 100_000),
        default=None,
        help="items pushed through the pipeline (default 100, quick 30)",
    )
    parser.add_argument(
        "--queue-size",
        type=_count(0, 10_000),
        default=4,
        help="capacity of each queue between stages; 0 = unbounded (default 4)",
    )
    parser.add_argument(
        "--item-kb",
        type=_count(1, 65_536),
        default=256,
        help="memory each item occupies once loaded, in KB (default 256)",
    )
    parser.add_argument(
        "--after-workers",
        type=_count(1, MAX_STAGE_WORKERS),
        default=None,
        help="workers for the bottleneck stage in the second run (default: enough to "
        "push it clearly below the next slowest stage)",
    )
    parser.add_argument(
        "--dl-workers",
        type=_worker_list,
        default=None,
        help="num_workers values for the DataLoader sweep (default 0,1,2,4.. up to cores)",
    )
    parser.add_argument(
        "--batches",
        type=_count(3, 10_000),
        default=None,
        help="batches per DataLoader setting (default 40, quick 12)",
    )
    parser.add_argument("--no-dataloader", action="store_true", help="skip the DataLoader sweep")
    parser.add_argument("--quick", action="store_true", help="small settings, a few seconds")
    parser.add_argument("--out", type=Path, default=None, help="directory for artifacts")
    return parser


def stage_names(n: int) -> list[str]:
    if n == 1:
        return ["compute"]
    middle = ["preprocess"] if n == 3 else [f"preprocess{i}" for i in range(1, n - 1)]
    return ["load", *middle, "compute"]


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def default_dl_workers(cores: int, quick: bool) -> list[int]:
    """0, 1, 2, 4, ... up to the number of cores (quick: 0 and 2)."""
    if quick:
        return [0, 2]
    values, k = [0, 1], 2
    while k <= cores:
        values.append(k)
        k *= 2
    if values[-1] != cores and cores > 1:
        values.append(cores)
    return values


# ---------------------------------------------------------------------------------------------
# The lab
# ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_lab_args(build_parser(), argv)
    costs_ms: list[float] = args.stages
    names = stage_names(len(costs_ms))
    costs_s = [ms / 1000 for ms in costs_ms]
    items = args.items or (40 if args.quick else 100)
    item_bytes = args.item_kb * 1024
    cores = usable_cores()
    dl_workers = args.dl_workers or default_dl_workers(cores, args.quick)
    if dl_workers[-1] > 64:
        raise LabUsageError("--dl-workers: num_workers는 64 이하로 지정하세요")
    batches = args.batches or (12 if args.quick else 40)

    # Part 1a: the pipeline as given, with tracemalloc watching every allocation of the run.
    workers = [1] * len(names)
    progress("pipeline", 0.0, f"{items} items through {'/'.join(f'{m:g}' for m in costs_ms)} ms stages")
    tracemalloc.start()
    run = run_pipeline(names, costs_s, workers, items, args.queue_size, item_bytes)
    _, peak_bytes = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    before = describe(run)

    # Part 1b: give the measured bottleneck more workers and run again.
    b = names.index(before["bottleneck"])
    extra = args.after_workers or workers_to_pass(costs_s, b)
    after_workers = [extra if i == b else 1 for i in range(len(names))]
    progress("pipeline", 0.3, f"again with {extra} workers on {names[b]}")
    run_after = run_pipeline(names, costs_s, after_workers, items, args.queue_size, item_bytes)
    after = describe(run_after)

    # Part 2: DataLoader num_workers sweep (needs torch; skipped with a finding if it is missing).
    dl: dict[str, Any] = {"rows": [], "note": None}
    if args.no_dataloader:
        dl["note"] = "DataLoader 실험은 --no-dataloader로 건너뛰었습니다."
    else:
        try:
            with redirect_stdout(sys.stderr):  # torch must never write on the protocol stream
                from labs.pipeline import loader
        except ImportError as exc:
            dl["note"] = (
                f"PyTorch를 불러올 수 없어 DataLoader num_workers 실험은 건너뛰었습니다 ({exc}). "
                "pip install torch 후 다시 실행하면 이 부분도 측정합니다."
            )
        else:

            def on_progress(k: int, num_workers: int) -> None:
                progress("dataloader", 0.55 + 0.45 * k / len(dl_workers), f"num_workers={num_workers}")

            with redirect_stdout(sys.stderr):
                dl.update(loader.sweep(dl_workers, batches, batch_size=16, on_progress=on_progress))
    progress("report", 1.0, "")

    result = report(args, run, before, after, peak_bytes, dl, cores)
    if args.out is not None:
        result["artifacts"] = write_artifacts(args.out, run, run_after)
    return result


def workers_to_pass(costs_s: list[float], b: int) -> int:
    """Workers for stage b so that its time per item drops well below (≤ 75 %) the next slowest stage.

    Halving a 20 ms stage next to a 10 ms one would leave a tie (10 vs 10 ms) and no clear answer;
    going clearly past the next stage shows the point of the second run: the bottleneck moves, and
    throughput stops at the next slowest stage however many workers stage b gets.
    """
    others = [c for i, c in enumerate(costs_s) if i != b]
    if not others or max(others) == 0:
        return 2
    return max(2, min(MAX_STAGE_WORKERS, math.ceil(costs_s[b] / (0.75 * max(others)))))


def describe(run: PipelineRun) -> dict[str, Any]:
    """Throughput, the prediction, per-stage stats, the measured bottleneck, the item-1 metrics."""
    stats = stage_stats(run)
    # The bottleneck is the stage with the highest utilisation (busy time per worker): it never
    # waits. Busy time alone would wrongly blame a stage that merely has more workers.
    bottleneck = max(stats, key=lambda name: stats[name]["utilisation"])
    per_item = [c / w for c, w in zip(run.costs_s, run.workers, strict=True)]
    predicted_bottleneck = run.names[per_item.index(max(per_item))]
    tied = [name for name, t in zip(run.names, per_item, strict=True) if t == max(per_item)]
    threads = sum(run.workers)
    busy = sum(s["busy_s"] for s in stats.values())
    waits = sum(s["wait_s"] for s in stats.values())
    alive = sum(r.alive_s for r in run.records)
    cpu = sum(r.cpu_s for r in run.records)
    io_busy = stats[run.names[0]]["busy_s"] if len(run.names) > 1 else 0.0  # "load" is the I/O stage
    # Speedup over doing every stage of every item one after another in one thread (= total busy).
    speedup = busy / run.wall_s
    d = run.done_times
    steady = (len(d) - 1) / (d[-1] - d[0]) if len(d) > 1 and d[-1] > d[0] else None
    return {
        "workers": dict(zip(run.names, run.workers, strict=True)),
        "threads": threads,
        "wall_s": run.wall_s,
        "throughput": run.items / run.wall_s,
        "steady_throughput": steady,
        "predicted_throughput": predicted_throughput(run.costs_s, run.workers),
        "predicted_bottleneck": predicted_bottleneck,
        "tied_bottlenecks": tied,
        "bottleneck": bottleneck,
        "stage_stats": stats,
        "speedup": speedup,
        "parallel_efficiency": speedup / threads,
        "io_wait_share": min(1.0, (waits + io_busy) / alive) if alive > 0 else 0.0,
        "queue_wait_share": min(1.0, waits / alive) if alive > 0 else 0.0,
        "cpu_share": min(1.0, cpu / alive) if alive > 0 else 0.0,
        "fill_s": d[0] if d else None,
    }


def memory_bound_items(n_stages: int, workers: list[int], queue_size: int) -> int | None:
    """Most items that can hold a buffer at once: each queue full, each thread holding one
    (a middle stage two while it copies). None for unbounded queues: then there is no bound."""
    if queue_size == 0:
        return None
    held = sum(w * (2 if 0 < i < n_stages - 1 else 1) for i, w in enumerate(workers))
    return held + (n_stages - 1) * queue_size


def dataloader_predictions(rows: list[dict], load_ms: float, io_ms: float, cores: int) -> list[dict]:
    """What the README's formula predicts for each num_workers, and a bound that counts the cores.

    formula: 1 / (load + step) for num_workers = 0, 1 / max(load / k, step) for k workers.
    cores:   loading's CPU part (load − the sleeping I/O) and every training step need a core, so
             batches/s ≤ cores / (cpu_load + step) however many workers there are.
    """
    cpu_load_ms = max(load_ms - io_ms, 0.0)
    out = []
    for r in rows:
        k, step_ms = r["num_workers"], r["step_ms"]
        formula = 1000 / (load_ms + step_ms) if k == 0 else 1000 / max(load_ms / k, step_ms)
        core_bound = 1000 * cores / (cpu_load_ms + step_ms) if cpu_load_ms + step_ms > 0 else None
        bounded = formula if core_bound is None else min(formula, core_bound)
        out.append(
            {
                "num_workers": k,
                "formula_batches_s": formula,
                "core_bound_batches_s": core_bound,
                "bounded_batches_s": bounded,
                "measured_over_formula": r["batches_per_s"] / formula,
            }
        )
    return out


def dataloader_gap_finding(rows: list[dict], predictions: list[dict], dl: dict, cores: int) -> str:
    """Compare the most-workers measurement with the README formula, and say where the gap comes from."""
    r, pr = rows[-1], predictions[-1]
    text = (
        f"num_workers {r['num_workers']}: 측정 {r['batches_per_s']:.1f} batches/s, README의 식 1/max(로딩/k, 학습) = "
        f"{pr['formula_batches_s']:.1f} ({pr['measured_over_formula']:.0%}). "
    )
    core_bound = pr["core_bound_batches_s"]
    if core_bound is not None and core_bound < pr["formula_batches_s"]:
        cpu_load = dl["load_ms_per_batch"] - dl.get("io_ms_per_batch", 0.0)
        text += (
            f"그 식은 작업자마다 코어가 있다고 가정한다. 로딩의 CPU 부분(≈{cpu_load:.0f} ms/batch, sleep인 I/O 제외)과 "
            f"학습 step(≈{r['step_ms']:.0f} ms)은 코어 {cores}개를 나눠 써야 하므로 상한은 "
            f"{cores} / ({cpu_load:.0f} + {r['step_ms']:.0f} ms) ≈ {core_bound:.1f} batches/s — 측정값은 이 상한의 "
            f"{r['batches_per_s'] / core_bound:.0%}다. 나머지 차이는 배치를 프로세스 사이로 보내는 비용(pickle, 공유 메모리)과 "
            "이 기계의 다른 작업이다."
        )
    elif r["num_workers"] > 0 and r["idle_share"] > 0.2:
        implied_ms = 1000 * r["num_workers"] / r["batches_per_s"]
        try:
            load_average = os.getloadavg()[0]
        except OSError:  # not on every platform
            load_average = None
        text += (
            f"학습 쪽이 여전히 {r['idle_share']:.0%}를 데이터를 기다렸으니 로딩이 병목이고, 측정에서 거꾸로 구한 작업자 한 "
            f"명의 배치 로딩 시간은 k / 측정 = {implied_ms:.0f} ms로, 메인 프로세스 혼자 잰 {dl['load_ms_per_batch']:.0f} ms의 "
            f"{implied_ms / dl['load_ms_per_batch']:.1f}배다. 식은 작업자가 혼자일 때만큼 빠르다고 가정하지만, 작업자들은 "
            f"학습 프로세스와 코어 {cores}개를 나눠 쓰고"
            + (f" (지금 load average {load_average:.1f})" if load_average is not None else "")
            + ", 배치마다 프로세스 경계를 넘는다(pickle, 공유 메모리). 식은 상한이고, 측정이 실제다."
        )
    else:
        text += (
            "학습 쪽이 데이터를 거의 기다리지 않았으니 식의 다른 쪽(학습 step)이 한계다. 남는 차이는 배치가 프로세스 "
            "경계를 넘는 비용(pickle, 공유 메모리)과 prefetch 버퍼가 차기까지의 시간이다."
        )
    return text


def returns_stop(rows: list[dict[str, Any]]) -> int | None:
    """The first num_workers after which the next setting gains less than 10 % batches/s."""
    for cur, nxt in itertools.pairwise(rows):
        if nxt["batches_per_s"] < cur["batches_per_s"] * (1 + GAIN_THRESHOLD):
            return cur["num_workers"]
    return None


# ---------------------------------------------------------------------------------------------
# Report: tables and findings computed from the numbers
# ---------------------------------------------------------------------------------------------


def tie_note(measured: str, candidates: list[str]) -> str:
    """A remark when the measured bottleneck is not the one the costs single out."""
    if len(candidates) > 1:
        return (
            f" 비용이 같은 단계 {', '.join(candidates)}가 모두 병목 후보이고, 이번 측정에서는 {measured}가 "
            "가장 바빴습니다 (측정마다 바뀔 수 있습니다)."
        )
    if measured != candidates[0]:
        return f" 비용으로 예측한 병목은 {candidates[0]}인데 측정은 다릅니다 — 기계가 바빴는지 확인하세요."
    return ""


def stage_table(title: str, run_info: dict[str, Any]) -> dict[str, Any]:
    rows = [
        [name, s["workers"], s["cost_ms"], s["busy_s"], s["starved_s"], s["blocked_s"], s["utilisation"]]
        for name, s in run_info["stage_stats"].items()
    ]
    return {
        "title": title,
        "columns": ["stage", "workers", "cost_ms", "busy_s", "starved_s", "blocked_s", "utilisation"],
        "rows": rows,
    }


def report(
    args: argparse.Namespace,
    run: PipelineRun,
    before: dict[str, Any],
    after: dict[str, Any],
    peak_bytes: int,
    dl: dict[str, Any],
    cores: int,
) -> dict[str, Any]:
    names, costs_ms, items = run.names, args.stages, run.items
    item_bytes = args.item_kb * 1024
    dataloader: list[dict[str, Any]] = dl["rows"]
    findings: list[str] = []
    pred, meas = before["predicted_throughput"], before["throughput"]
    slowest = max(costs_ms)
    findings.append(
        f"측정 처리량 {meas:.1f} items/s, 예측 1/max({', '.join(f'{m:g}' for m in costs_ms)} ms) = "
        f"1/{slowest:g} ms = {pred:.1f} items/s ({meas / pred - 1:+.1%})."
        + (
            f" 첫 항목이 모든 단계를 지나는 데(파이프라인 채우기) {before['fill_s'] * 1000:.0f} ms가 걸려 "
            f"전체 평균이 정상 상태({before['steady_throughput']:.1f} items/s)보다 조금 낮습니다."
            if before["steady_throughput"]
            else ""
        )
    )

    # Who waits for whom: stages before the bottleneck are blocked, stages after it are starved.
    bn = before["bottleneck"]
    stats = before["stage_stats"]
    b = names.index(bn)
    # (Only waits of at least 5 % of the run are worth a sentence.)
    waits = []
    if b > 0 and stats[names[b - 1]]["blocked_s"] > 0.05 * run.wall_s:
        up = names[b - 1]
        waits.append(f"앞 단계 {up}는 큐가 차서 {stats[up]['blocked_s']:.2f} s를 blocked(backpressure)")
    if b < len(names) - 1 and stats[names[b + 1]]["starved_s"] > 0.05 * run.wall_s:
        down = names[b + 1]
        waits.append(f"뒤 단계 {down}는 입력을 기다리며 {stats[down]['starved_s']:.2f} s를 starved")
    findings.append(
        f"측정으로 찾은 병목은 {bn} (utilisation {stats[bn]['utilisation']:.0%}, 쉬지 않고 일함)"
        + (f"; {', '.join(waits)} 상태였습니다." if waits else ".")
        + tie_note(bn, before["tied_bottlenecks"])
    )

    k = after["workers"][bn]  # the bottleneck got k workers in the second run
    new_bn = after["bottleneck"]
    gain = after["throughput"] / meas
    sentence = (
        f"{names[b]}에 작업자 {k}개를 주자({costs_ms[b]:g}/{k} = {costs_ms[b] / k:.1f} ms/item) 처리량이 "
        f"{meas:.1f} → {after['throughput']:.1f} items/s ({gain:.2f}배, 예측 {after['predicted_throughput']:.1f})."
    )
    if new_bn != bn:
        sentence += (
            f" 병목은 {new_bn}({costs_ms[names.index(new_bn)]:g} ms, utilisation "
            f"{after['stage_stats'][new_bn]['utilisation']:.0%})로 옮겨갔습니다 — 병목 단계를 {k}배 빠르게 해도 "
            f"전체는 {gain:.1f}배만 빨라지고, 이제는 {new_bn}가 한계입니다."
        )
    else:
        sentence += f" 병목은 여전히 {new_bn}입니다 — 더 빠르게 만들 여지가 이 단계에 남아 있습니다."
    findings.append(sentence)

    # Checklist item 1: memory, I/O wait, parallel efficiency (all from the first run).
    bound = memory_bound_items(len(names), [1] * len(names), args.queue_size)
    in_flight = peak_bytes / item_bytes
    if bound is not None:
        findings.append(
            f"메모리: tracemalloc peak {peak_bytes / 2**20:.1f} MiB ≈ 항목({args.item_kb} KB) {in_flight:.1f}개 분량. "
            f"큐 크기 {args.queue_size}로 제한했으므로 동시에 메모리에 있는 항목은 최대 {bound}개이고, "
            f"항목 수({items})를 늘려도 peak는 커지지 않습니다."
        )
    else:
        findings.append(
            f"메모리: tracemalloc peak {peak_bytes / 2**20:.1f} MiB ≈ 항목 {in_flight:.1f}개 분량. 큐에 한도가 없어서"
            " 빠른 앞 단계가 병목 앞에 항목을 쌓아 두므로, 항목 수가 늘면 peak도 함께 커집니다."
        )
    findings.append(
        f"I/O 대기: 스레드 시간의 {before['io_wait_share']:.0%}가 "
        + ("I/O(load 단계)나 큐 대기였고, " if len(names) > 1 else "큐 대기였고, ")
        + f"time.thread_time()으로 잰 CPU 사용은 {before['cpu_share']:.0%}"
        + (
            "뿐입니다 — 단계의 일도 sleep(기다림)으로 흉내 냈으므로, 스레드는 거의 내내 CPU 밖에서 기다렸습니다."
            if before["cpu_share"] < 0.5
            else "입니다."
        )
    )
    findings.append(
        f"병렬 효율: 스레드 {before['threads']}개가 한 스레드로 모든 단계를 차례로 처리할 때보다 "
        f"{before['speedup']:.2f}배 빨라 효율은 {before['parallel_efficiency']:.2f}입니다 (개선 후 스레드 "
        f"{after['threads']}개, {after['speedup']:.2f}배, 효율 {after['parallel_efficiency']:.2f}). 단계 비용이 "
        "고를수록 효율이 1에 가까워집니다."
    )

    tables = [
        stage_table(f"단계별 측정 (작업자 각 1, items {items})", before),
        stage_table(f"병목 개선 후 ({names[b]} 작업자 {k})", after),
        {
            "title": "처리량: 예측 1/max(stage) vs 측정",
            "columns": [
                "run",
                "threads",
                "predicted_items_s",
                "measured_items_s",
                "steady_items_s",
                "error_%",
                "bottleneck_predicted",
                "bottleneck_measured",
                "parallel_efficiency",
            ],
            "rows": [
                [
                    label,
                    r["threads"],
                    r["predicted_throughput"],
                    r["throughput"],
                    r["steady_throughput"],
                    100 * (r["throughput"] / r["predicted_throughput"] - 1),
                    r["predicted_bottleneck"],
                    r["bottleneck"],
                    r["parallel_efficiency"],
                ]
                for label, r in (("before", before), ("after", after))
            ],
        },
        {
            "title": "체크리스트 1: 메모리·I/O 대기·병렬 효율 (첫 번째 실행)",
            "columns": ["metric", "value", "how"],
            "rows": [
                ["peak_memory_MiB", peak_bytes / 2**20, "tracemalloc.get_traced_memory() peak"],
                ["items_in_memory_peak", in_flight, "peak ÷ item size"],
                ["items_in_memory_bound", bound, "queues full + one per thread (two while copying)"],
                ["io_wait_share", before["io_wait_share"], "(queue waits + load time) ÷ thread time"],
                ["queue_wait_share", before["queue_wait_share"], "perf_counter around queue.get/put"],
                ["cpu_share", before["cpu_share"], "time.thread_time() ÷ thread wall time"],
                ["parallel_efficiency", before["parallel_efficiency"], "(Σ busy ÷ wall) ÷ threads"],
            ],
        },
    ]

    plots = []
    plateau = None
    predictions: list[dict] = []
    if dataloader:
        plateau = returns_stop(dataloader)
        base = dataloader[0]
        predictions = dataloader_predictions(
            dataloader, dl["load_ms_per_batch"], dl.get("io_ms_per_batch", 0.0), cores
        )
        rows = []
        for i, (r, pr) in enumerate(zip(dataloader, predictions, strict=True)):
            gain_pct = None if i == 0 else 100 * (r["batches_per_s"] / dataloader[i - 1]["batches_per_s"] - 1)
            rows.append(
                [
                    r["num_workers"],
                    r["batches_per_s"],
                    pr["formula_batches_s"],
                    pr["bounded_batches_s"],
                    r["idle_share"],
                    r["step_ms"],
                    r["startup_s"],
                    gain_pct,
                ]
            )
        tables.append(
            {
                "title": f"DataLoader num_workers (batch {dl['batch_size']}, 로딩 ≈ "
                f"{dl['load_ms_per_batch']:.0f} ms/batch)",
                "columns": [
                    "num_workers",
                    "batches_per_s",
                    "formula_batches_s",
                    "core_bounded_s",
                    "idle_share",
                    "step_ms",
                    "startup_s",
                    "gain_%",
                ],
                "rows": rows,
            }
        )
        plots.append(
            {
                "title": "DataLoader: num_workers별 학습 속도",
                "x": [r["num_workers"] for r in dataloader],
                "series": {"batches/s": [r["batches_per_s"] for r in dataloader]},
                "xlabel": "num_workers",
                "ylabel": "batches/s",
            }
        )
        step_ms = statistics.median([r["step_ms"] for r in dataloader])
        load_ms = dl["load_ms_per_batch"]
        best = max(dataloader, key=lambda r: r["batches_per_s"])
        findings.append(
            f"DataLoader: num_workers {base['num_workers']} → {best['num_workers']}에서 "
            f"{base['batches_per_s']:.1f} → {best['batches_per_s']:.1f} batches/s, 학습 쪽이 데이터를 기다린 비율 "
            f"{base['idle_share']:.0%} → {best['idle_share']:.0%}. "
            + (
                f"로딩(≈{load_ms:.0f} ms/batch)이 학습 step(≈{step_ms:.0f} ms)보다 느린 loading-bound 루프라, "
                "작업자가 다음 배치를 미리 로딩하는 만큼 빨라집니다."
                if load_ms > step_ms
                else f"이 기계에서는 학습 step(≈{step_ms:.0f} ms)이 로딩(≈{load_ms:.0f} ms/batch)보다 느려 "
                "compute-bound이므로, 작업자를 늘려도 얻을 것이 적습니다."
            )
        )
        step_cap = 1000 / step_ms
        if plateau is not None:
            findings.append(
                f"이득이 {GAIN_THRESHOLD:.0%} 미만으로 떨어지는 지점: num_workers {plateau} 다음부터입니다. 그 뒤로는 "
                f"학습 step(상한 ≈ {step_cap:.0f} batches/s)이나 CPU 코어({cores}개)가 새 병목입니다."
            )
        else:
            findings.append(
                f"측정한 범위(num_workers ≤ {dataloader[-1]['num_workers']})에서는 매번 {GAIN_THRESHOLD:.0%} 이상 "
                f"빨라졌습니다 — 아직 로딩이 병목입니다 (학습 step만의 상한 ≈ {step_cap:.0f} batches/s)."
            )
        findings.append(dataloader_gap_finding(dataloader, predictions, dl, cores))
        slow_start = max(dataloader, key=lambda r: r["startup_s"])
        if slow_start["num_workers"] > 0:
            findings.append(
                f"num_workers {slow_start['num_workers']}의 첫 배치까지 {slow_start['startup_s']:.1f} s: spawn으로 "
                "시작한 작업자 프로세스마다 torch를 import하는 시간입니다 (처리량 측정에서는 뺐습니다)."
            )
    if dl["note"]:
        findings.append(dl["note"])

    summary = (
        f"병목 {bn}: {meas:.1f} items/s (예측 {pred:.1f}); {names[b]} 작업자 {k}개 → "
        f"{after['throughput']:.1f} items/s, 새 병목 {new_bn}"
    )
    if dataloader:
        summary += (
            f"; DataLoader {dataloader[0]['batches_per_s']:.0f} → "
            f"{max(r['batches_per_s'] for r in dataloader):.0f} batches/s"
        )

    def public(info: dict[str, Any]) -> dict[str, Any]:
        keep = (
            "throughput",
            "predicted_throughput",
            "steady_throughput",
            "bottleneck",
            "predicted_bottleneck",
            "stage_stats",
            "workers",
            "threads",
            "wall_s",
            "speedup",
            "parallel_efficiency",
            "io_wait_share",
        )
        return {key: info[key] for key in keep}

    return {
        "summary": summary,
        "tables": tables,
        "findings": findings,
        "plots": plots,
        "stages_ms": dict(zip(names, costs_ms, strict=True)),
        "items": items,
        "queue_size": args.queue_size,
        "throughput": meas,
        "steady_throughput": before["steady_throughput"],
        "predicted_throughput": pred,
        "predicted_bottleneck": before["predicted_bottleneck"],
        "bottleneck": bn,
        "stage_stats": stats,
        "after": public(after),
        "dataloader": [
            {key: r[key] for key in ("num_workers", "batches_per_s", "idle_share", "step_ms", "startup_s")}
            for r in dataloader
        ],
        "dataloader_predictions": predictions,  # README formula and the core-count bound per row
        "dataloader_returns_stop": plateau,
        "dataloader_skipped": dl["note"],
        "peak_memory_bytes": peak_bytes,
        "memory_bound_bytes": None if bound is None else bound * item_bytes,
        "io_wait_share": before["io_wait_share"],
        "cpu_share": before["cpu_share"],
        "parallel_efficiency": before["parallel_efficiency"],
        "cores": cores,
    }


def write_artifacts(out: Path, run: PipelineRun, run_after: PipelineRun) -> dict[str, str]:
    """A Chrome/Perfetto trace of both pipeline runs (open it in ui.perfetto.dev)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "pipeline_trace.json"
    trace = chrome_trace({"before": run, "after": run_after})
    path.write_text(json.dumps(trace), encoding="utf-8")
    return {"trace": str(path.resolve())}
