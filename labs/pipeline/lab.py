"""Pipeline bottlenecks, measured: find the slowest stage, speed it up, watch the next one appear.

Part 1  a threaded pipeline (load -> preprocess -> compute) with bounded queues: throughput vs the
        1 / slowest-stage prediction, busy / starved / blocked time per stage, the bottleneck
        found from the measurement, then a second run with the bottleneck given more workers.
Part 2  the same idea in PyTorch: a loading-bound training loop and a DataLoader num_workers sweep.
Part 3  checklist item 1 for the part-1 run: memory pattern (tracemalloc), I/O wait share,
        parallel efficiency.

Run `python -m labs.pipeline --help` for the options. The pipeline itself is in stages.py, the
DataLoader part in loader.py (the only module that imports torch), the tables and findings in report.py.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from labs._protocol import LabUsageError, progress, write_artifact
from labs._protocol import parse_args as parse_lab_args
from labs.pipeline.report import report
from labs.pipeline.stages import PipelineRun, chrome_trace, predicted_throughput, run_pipeline, stage_stats

MAX_STAGES = 8
MAX_STAGE_MS = 1000.0
MAX_STAGE_WORKERS = 16


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


def write_artifacts(out: Path, run: PipelineRun, run_after: PipelineRun) -> dict[str, str]:
    """A Chrome/Perfetto trace of both pipeline runs (open it in ui.perfetto.dev)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "pipeline_trace.json"
    trace = chrome_trace({"before": run, "after": run_after})
    return {"trace": write_artifact(path, json.dumps(trace))}
