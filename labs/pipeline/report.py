"""The pipeline lab's report: tables, findings (Korean, computed from the numbers), plots and the
result dict, from the two pipeline runs and the DataLoader sweep that lab.py measured.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
from typing import Any

from labs.pipeline.stages import PipelineRun

GAIN_THRESHOLD = 0.10  # "returns stop" when one more step of num_workers gains less than this


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
    # Checklist item 1 (memory) is about the first run: one worker per stage.
    bound = memory_bound_items(len(names), [1] * len(names), args.queue_size)
    in_flight = peak_bytes / item_bytes
    findings = [
        _throughput_finding(before, costs_ms),
        _bottleneck_finding(run, before),
        _after_finding(names, costs_ms, before, after),
        _memory_finding(args, peak_bytes, in_flight, bound, items),
        _io_wait_finding(before, len(names)),
        _efficiency_finding(before, after),
    ]
    bn = before["bottleneck"]
    tables = [
        stage_table(f"단계별 측정 (작업자 각 1, items {items})", before),
        stage_table(f"병목 개선 후 ({bn} 작업자 {after['workers'][bn]})", after),
        _throughput_table(before, after),
        _checklist_table(before, peak_bytes, in_flight, bound),
    ]
    plots = []
    plateau = None
    predictions: list[dict] = []
    if dataloader:
        plateau = returns_stop(dataloader)
        predictions = dataloader_predictions(
            dataloader, dl["load_ms_per_batch"], dl.get("io_ms_per_batch", 0.0), cores
        )
        tables.append(_dataloader_table(dataloader, predictions, dl))
        plots.append(_dataloader_plot(dataloader))
        findings += _dataloader_findings(dataloader, predictions, plateau, dl, cores)
    if dl["note"]:
        findings.append(dl["note"])
    return {
        "summary": _summary(names, before, after, dataloader),
        "tables": tables,
        "findings": findings,
        "plots": plots,
        "stages_ms": dict(zip(names, costs_ms, strict=True)),
        "items": items,
        "queue_size": args.queue_size,
        "throughput": before["throughput"],
        "steady_throughput": before["steady_throughput"],
        "predicted_throughput": before["predicted_throughput"],
        "predicted_bottleneck": before["predicted_bottleneck"],
        "bottleneck": bn,
        "stage_stats": before["stage_stats"],
        "after": _public(after),
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


def _public(info: dict[str, Any]) -> dict[str, Any]:
    """What the result keeps of the second run's `describe`."""
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


def _summary(
    names: list[str], before: dict[str, Any], after: dict[str, Any], dataloader: list[dict[str, Any]]
) -> str:
    bn, new_bn = before["bottleneck"], after["bottleneck"]
    summary = (
        f"병목 {bn}: {before['throughput']:.1f} items/s (예측 {before['predicted_throughput']:.1f}); "
        f"{bn} 작업자 {after['workers'][bn]}개 → {after['throughput']:.1f} items/s, 새 병목 {new_bn}"
    )
    if dataloader:
        summary += (
            f"; DataLoader {dataloader[0]['batches_per_s']:.0f} → "
            f"{max(r['batches_per_s'] for r in dataloader):.0f} batches/s"
        )
    return summary


# ---------------------------------------------------------------------------------------------
# Numbers the report derives
# ---------------------------------------------------------------------------------------------


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


def returns_stop(rows: list[dict[str, Any]]) -> int | None:
    """The first num_workers after which the next setting gains less than 10 % batches/s."""
    for cur, nxt in itertools.pairwise(rows):
        if nxt["batches_per_s"] < cur["batches_per_s"] * (1 + GAIN_THRESHOLD):
            return cur["num_workers"]
    return None


# ---------------------------------------------------------------------------------------------
# Findings: the pipeline runs
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


def _throughput_finding(before: dict[str, Any], costs_ms: list[float]) -> str:
    pred, meas = before["predicted_throughput"], before["throughput"]
    slowest = max(costs_ms)
    return (
        f"측정 처리량 {meas:.1f} items/s, 예측 1/max({', '.join(f'{m:g}' for m in costs_ms)} ms) = "
        f"1/{slowest:g} ms = {pred:.1f} items/s ({meas / pred - 1:+.1%})."
        + (
            f" 첫 항목이 모든 단계를 지나는 데(파이프라인 채우기) {before['fill_s'] * 1000:.0f} ms가 걸려 "
            f"전체 평균이 정상 상태({before['steady_throughput']:.1f} items/s)보다 조금 낮습니다."
            if before["steady_throughput"]
            else ""
        )
    )


def _bottleneck_finding(run: PipelineRun, before: dict[str, Any]) -> str:
    """Who waits for whom: stages before the bottleneck are blocked, stages after it are starved."""
    names = run.names
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
    return (
        f"측정으로 찾은 병목은 {bn} (utilisation {stats[bn]['utilisation']:.0%}, 쉬지 않고 일함)"
        + (f"; {', '.join(waits)} 상태였습니다." if waits else ".")
        + tie_note(bn, before["tied_bottlenecks"])
    )


def _after_finding(
    names: list[str], costs_ms: list[float], before: dict[str, Any], after: dict[str, Any]
) -> str:
    """The second run: the bottleneck got k workers; did the bottleneck move?"""
    bn, new_bn = before["bottleneck"], after["bottleneck"]
    b = names.index(bn)
    k = after["workers"][bn]
    meas = before["throughput"]
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
    return sentence


# Checklist item 1: memory, I/O wait, parallel efficiency (all from the first run).


def _memory_finding(
    args: argparse.Namespace, peak_bytes: int, in_flight: float, bound: int | None, items: int
) -> str:
    if bound is not None:
        return (
            f"메모리: tracemalloc peak {peak_bytes / 2**20:.1f} MiB ≈ 항목({args.item_kb} KB) {in_flight:.1f}개 분량. "
            f"큐 크기 {args.queue_size}로 제한했으므로 동시에 메모리에 있는 항목은 최대 {bound}개이고, "
            f"항목 수({items})를 늘려도 peak는 커지지 않습니다."
        )
    return (
        f"메모리: tracemalloc peak {peak_bytes / 2**20:.1f} MiB ≈ 항목 {in_flight:.1f}개 분량. 큐에 한도가 없어서"
        " 빠른 앞 단계가 병목 앞에 항목을 쌓아 두므로, 항목 수가 늘면 peak도 함께 커집니다."
    )


def _io_wait_finding(before: dict[str, Any], n_stages: int) -> str:
    return (
        f"I/O 대기: 스레드 시간의 {before['io_wait_share']:.0%}가 "
        + ("I/O(load 단계)나 큐 대기였고, " if n_stages > 1 else "큐 대기였고, ")
        + f"time.thread_time()으로 잰 CPU 사용은 {before['cpu_share']:.0%}"
        + (
            "뿐입니다 — 단계의 일도 sleep(기다림)으로 흉내 냈으므로, 스레드는 거의 내내 CPU 밖에서 기다렸습니다."
            if before["cpu_share"] < 0.5
            else "입니다."
        )
    )


def _efficiency_finding(before: dict[str, Any], after: dict[str, Any]) -> str:
    return (
        f"병렬 효율: 스레드 {before['threads']}개가 한 스레드로 모든 단계를 차례로 처리할 때보다 "
        f"{before['speedup']:.2f}배 빨라 효율은 {before['parallel_efficiency']:.2f}입니다 (개선 후 스레드 "
        f"{after['threads']}개, {after['speedup']:.2f}배, 효율 {after['parallel_efficiency']:.2f}). 단계 비용이 "
        "고를수록 효율이 1에 가까워집니다."
    )


# ---------------------------------------------------------------------------------------------
# Findings: the DataLoader sweep
# ---------------------------------------------------------------------------------------------


def _dataloader_findings(
    dataloader: list[dict], predictions: list[dict], plateau: int | None, dl: dict, cores: int
) -> list[str]:
    step_ms = statistics.median([r["step_ms"] for r in dataloader])
    findings = [
        _dataloader_speedup_finding(dataloader, dl["load_ms_per_batch"], step_ms),
        _returns_stop_finding(dataloader, plateau, step_ms, cores),
        dataloader_gap_finding(dataloader, predictions, dl, cores),
    ]
    slow_start = max(dataloader, key=lambda r: r["startup_s"])
    if slow_start["num_workers"] > 0:
        findings.append(
            f"num_workers {slow_start['num_workers']}에서 작업자마다 첫 배치를 내기까지 {slow_start['startup_s']:.1f} s: spawn으로 "
            "시작한 작업자 프로세스마다 torch를 import하는 시간입니다 (처리량 측정에서는 뺐습니다)."
        )
    return findings


def _dataloader_speedup_finding(dataloader: list[dict], load_ms: float, step_ms: float) -> str:
    base = dataloader[0]
    best = max(dataloader, key=lambda r: r["batches_per_s"])
    return (
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


def _returns_stop_finding(dataloader: list[dict], plateau: int | None, step_ms: float, cores: int) -> str:
    step_cap = 1000 / step_ms
    if plateau is not None:
        return (
            f"이득이 {GAIN_THRESHOLD:.0%} 미만으로 떨어지는 지점: num_workers {plateau} 다음부터입니다. 그 뒤로는 "
            f"학습 step(상한 ≈ {step_cap:.0f} batches/s)이나 CPU 코어({cores}개)가 새 병목입니다."
        )
    return (
        f"측정한 범위(num_workers ≤ {dataloader[-1]['num_workers']})에서는 매번 {GAIN_THRESHOLD:.0%} 이상 "
        f"빨라졌습니다 — 아직 로딩이 병목입니다 (학습 step만의 상한 ≈ {step_cap:.0f} batches/s)."
    )


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


# ---------------------------------------------------------------------------------------------
# Tables and plots
# ---------------------------------------------------------------------------------------------


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


def _throughput_table(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {
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
    }


def _checklist_table(
    before: dict[str, Any], peak_bytes: int, in_flight: float, bound: int | None
) -> dict[str, Any]:
    return {
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
    }


def _dataloader_table(dataloader: list[dict], predictions: list[dict], dl: dict) -> dict[str, Any]:
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
    return {
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


def _dataloader_plot(dataloader: list[dict]) -> dict[str, Any]:
    return {
        "title": "DataLoader: num_workers별 학습 속도",
        "x": [r["num_workers"] for r in dataloader],
        "series": {"batches/s": [r["batches_per_s"] for r in dataloader]},
        "xlabel": "num_workers",
        "ylabel": "batches/s",
    }
