"""The TensorBoard plugin's views and HTA's analyses in terminal form, from trace documents.

`trace_views(documents)` takes one or more loaded traces (one per rank) and returns plain data:

    tensorboard_overview           the plugin's step time breakdown, computed as the plugin does
    tensorboard_overview_corrected the same with the plugin's two known parsing gaps fixed
    tensorboard_overview_disagrees where the plugin's own numbers are wrong for this trace, and why
    recommendations                the plugin's Overview advice, on the corrected numbers
    operator_view                  self/total time and calls per operator (with input shapes)
    kernel_view                    GPU kernels: calls, total/mean/min/max µs (GPU traces only)
    memory_view                    peak allocated memory per device (traces with profile_memory)
    step_table, step_summary       per ProfilerStep: time, data wait, compute, GPU idle; the slowest
    gpu_time_breakdown …           HTA's analyses (labs.profiler.gpu_analysis), GPU traces only

`compare_views(a, b)` diffs two such reports per operator and per category (HTA's trace diff idea).
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from labs.profiler import gpu_analysis as ga
from labs.profiler import tb_overview as tb
from labs.profiler.trace_analysis import Event, complete_events, link_parents, memory_peaks

_STEP = re.compile(r"^ProfilerStep#(\d+)")
TOP = 10


def _dataloader(name: str) -> bool:
    return "DataLoader" in name or name.startswith("enumerate(DataPipe)")


def operator_view(
    document: dict[str, Any], top: int = TOP, events: list[Event] | None = None
) -> list[dict[str, Any]]:
    """cpu_op events per name (and input shapes when record_shapes=True): the plugin's Operator view.

    `events`: the document's complete events with `link_parents` already run on them, when the
    caller has them (`--trace` does): building and nesting 10⁶ events twice is a third of its time.
    """
    if events is None:
        events = complete_events(document)
        link_parents(events)
    shapes: dict[str, str] = {}
    for raw in document["traceEvents"]:
        if isinstance(raw, dict) and raw.get("cat") == "cpu_op" and isinstance(raw.get("args"), dict):
            dims = raw["args"].get("Input Dims")
            if dims and raw.get("name") not in shapes:
                shapes[str(raw.get("name"))] = str(dims)
    rows: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.cat != "cpu_op":
            continue
        row = rows.setdefault(e.name, {"name": e.name, "calls": 0, "self_ms": 0.0, "total_ms": 0.0})
        row["calls"] += 1
        row["self_ms"] += e.self_dur / 1000
        row["total_ms"] += e.dur / 1000
    ordered = sorted(rows.values(), key=lambda r: (-r["self_ms"], r["name"]))[:top]
    for row in ordered:
        row["input_shapes"] = shapes.get(row["name"])
    return ordered


def kernel_view(document: dict[str, Any], top: int = TOP) -> list[dict[str, Any]]:
    """GPU kernels per name: the plugin's Kernel view."""
    by_name: dict[str, list[float]] = {}
    for raw in document["traceEvents"]:
        if isinstance(raw, dict) and raw.get("ph") == "X" and raw.get("cat") == "kernel":
            dur = raw.get("dur")
            if isinstance(dur, (int, float)) and not isinstance(dur, bool) and dur == dur:
                by_name.setdefault(str(raw.get("name")), []).append(float(dur))
    rows = [
        {
            "name": name,
            "type": ga.kernel_type(name),
            "calls": len(durs),
            "total_ms": sum(durs) / 1000,
            "mean_us": statistics.fmean(durs),
            "min_us": min(durs),
            "max_us": max(durs),
        }
        for name, durs in by_name.items()
    ]
    return sorted(rows, key=lambda r: -r["total_ms"])[:top]


def step_table(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Per ProfilerStep: step time, data wait, compute and (GPU traces) GPU idle."""
    raws = [e for e in document["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X"]
    clean = []
    for e in raws:
        ts, dur = e.get("ts"), e.get("dur")
        if (
            isinstance(ts, (int, float))
            and isinstance(dur, (int, float))
            and dur >= 0
            and ts == ts
            and dur == dur
        ):
            clean.append(e)
    steps = sorted(
        (int(m.group(1)), float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        for e in clean
        if (m := _STEP.match(str(e.get("name", ""))))
    )
    if not steps:
        return []

    # One pass sorts every event into the kinds of time a step is split into.
    data_spans, cpu_spans, gpu_spans, compute_spans = [], [], [], []
    for e in clean:
        cat = e.get("cat")
        if cat not in ("cpu_op", "user_annotation") and cat not in ga.GPU_CATEGORIES:
            continue
        name = str(e.get("name"))
        span = (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        if cat in ("cpu_op", "user_annotation") and _dataloader(name):
            data_spans.append(span)
        elif cat == "cpu_op":
            cpu_spans.append(span)
        if cat in ga.GPU_CATEGORIES:
            gpu_spans.append(span)
            if cat == "kernel" and ga.kernel_type(name) == "computation":
                compute_spans.append(span)
    data = ga.merge(data_spans)
    cpu_ops = ga.subtract(ga.merge(cpu_spans), data)
    gpu = ga.merge(gpu_spans)
    compute_kernels = ga.merge(compute_spans)
    # One sweep per kind of time over all steps, not one scan per step (quadratic in steps).
    windows = [(start, end) for _, start, end in steps]
    data_in = ga.window_totals(data, windows)
    compute_in = ga.window_totals(compute_kernels if gpu else cpu_ops, windows)
    gpu_in = ga.window_totals(gpu, windows) if gpu else None
    rows = []
    for index, (number, start, end) in enumerate(steps):
        length = end - start
        row: dict[str, Any] = {
            "step": number,
            "step_ms": length / 1000,
            "data_wait_ms": data_in[index] / 1000,
            "compute_ms": compute_in[index] / 1000,
            "gpu_idle_pct": None,
        }
        if gpu_in is not None and length > 0:
            row["gpu_idle_pct"] = 100 * (1 - gpu_in[index] / length)
        rows.append(row)
    return rows


def step_summary(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The slowest step, why (the part that grew most against the median step), and the spread."""
    if not rows:
        return None
    times = [r["step_ms"] for r in rows]
    median = statistics.median(times)
    slowest = max(rows, key=lambda r: r["step_ms"])
    parts = {
        "data_wait_ms": statistics.median(r["data_wait_ms"] for r in rows),
        "compute_ms": statistics.median(r["compute_ms"] for r in rows),
    }
    growth = {k: slowest[k] - v for k, v in parts.items()}
    other_growth = (slowest["step_ms"] - median) - sum(growth.values())
    reason = max([*growth.items(), ("other_ms", other_growth)], key=lambda kv: kv[1])[0]
    return {
        "steps": len(rows),
        "median_ms": median,
        "mean_ms": statistics.fmean(times),
        "cv": statistics.pstdev(times) / statistics.fmean(times)
        if len(times) > 1 and statistics.fmean(times)
        else 0.0,
        "slowest_step": slowest["step"],
        "slowest_ms": slowest["step_ms"],
        "slowest_over_median": slowest["step_ms"] / median if median else None,
        "slowest_reason": {"data_wait_ms": "data", "compute_ms": "compute", "other_ms": "other"}[reason],
        "slowest_extra_ms": slowest["step_ms"] - median,
    }


def trace_views(
    documents: list[tuple[str, dict[str, Any]]], top: int = TOP, first_events: list[Event] | None = None
) -> dict[str, Any]:
    """Every view of the first trace (rank 0 or the only file), and GPU analyses of all ranks.

    `first_events`: the first trace's linked complete events, if the caller already built them.
    """
    first = documents[0][1]
    plugin, corrected = tb.overviews(first)
    steps = step_table(first)
    result: dict[str, Any] = {
        "trace_files": [path for path, _ in documents],
        "tensorboard_overview": plugin,
        "tensorboard_overview_corrected": corrected,
        "tensorboard_overview_disagrees": tb.disagreements(plugin, corrected) if plugin and corrected else [],
        "recommendations": tb.recommendations(corrected) if corrected else [],
        "operator_view": operator_view(first, top, first_events),
        "kernel_view": kernel_view(first, top),
        "memory_view": memory_peaks(first),
        "step_table": steps,
        "step_summary": step_summary(steps),
        "gpu": ga.analyse_documents(documents),
    }
    return result


def view_tables(views: dict[str, Any]) -> list[dict[str, Any]]:
    tables = []
    plugin, corrected = views["tensorboard_overview"], views["tensorboard_overview_corrected"]
    if plugin and corrected:
        tables.append(
            {
                "title": f"TensorBoard Overview: 평균 스텝 {plugin['step_ms']:.2f} ms의 분해 (스텝 {plugin['steps']}개)",
                "columns": ["category", "plugin_%", "corrected_%", "corrected_ms"],
                "rows": [
                    [c, plugin["pct"][c], corrected["pct"][c], corrected["ms"][c]]
                    for c in tb.CATEGORIES
                    if plugin["pct"][c] or corrected["pct"][c]
                ],
            }
        )
    if views["step_table"]:
        gpu = any(r["gpu_idle_pct"] is not None for r in views["step_table"])
        columns = ["step", "step_ms", "data_wait_ms", "compute_ms"] + (["gpu_idle_%"] if gpu else [])
        tables.append(
            {
                "title": "스텝별 분석 (모든 기록된 스텝)",
                "columns": columns,
                "rows": [
                    [r["step"], r["step_ms"], r["data_wait_ms"], r["compute_ms"]]
                    + ([r["gpu_idle_pct"]] if gpu else [])
                    for r in views["step_table"]
                ],
            }
        )
    if views["operator_view"]:
        shapes = any(r["input_shapes"] for r in views["operator_view"])
        tables.append(
            {
                "title": "Operator view (self time 순)",
                "columns": ["operator", "calls", "self_ms", "total_ms"]
                + (["input_shapes"] if shapes else []),
                "rows": [
                    [r["name"], r["calls"], r["self_ms"], r["total_ms"]]
                    + ([r["input_shapes"] or ""] if shapes else [])
                    for r in views["operator_view"]
                ],
            }
        )
    if views["kernel_view"]:
        tables.append(
            {
                "title": "Kernel view (GPU)",
                "columns": ["kernel", "type", "calls", "total_ms", "mean_us", "max_us"],
                "rows": [
                    [r["name"][:80], r["type"], r["calls"], r["total_ms"], r["mean_us"], r["max_us"]]
                    for r in views["kernel_view"]
                ],
            }
        )
    gpu = views["gpu"]
    if gpu:
        rows = []
        for r in gpu["ranks"]:
            t = r["gpu_time_breakdown"]
            if t:
                rows.append([r["rank"], t["span_ms"], t["idle_pct"], t["compute_pct"], t["non_compute_pct"]])
        tables.append(
            {
                "title": "GPU 시간 분해 (HTA temporal breakdown)",
                "columns": ["rank", "span_ms", "idle_%", "compute_%", "non_compute_%"],
                "rows": rows,
            }
        )
        tables.append(
            {
                "title": "kernel 종류별 시간 (겹친 시간은 따로)",
                "columns": ["kernel types", "share_%"],
                "rows": [[k, v] for k, v in gpu["kernel_type_pct"].items()],
            }
        )
    if views["memory_view"]:
        tables.append(
            {
                "title": "Memory view: 최대 할당 메모리 (profile_memory)",
                "columns": ["device", "peak_MB"],
                "rows": [[d, mb] for d, mb in views["memory_view"].items()],
            }
        )
    return tables


def view_findings(views: dict[str, Any]) -> list[str]:
    findings = []
    plugin, corrected = views["tensorboard_overview"], views["tensorboard_overview_corrected"]
    if plugin and corrected:
        shown = ", ".join(f"{c} {plugin['pct'][c]:.1f} %" for c in tb.CATEGORIES if plugin["pct"][c] >= 0.05)
        findings.append(
            f"TensorBoard 플러그인이 Overview에 보일 스텝 시간 분해(평균 {plugin['step_ms']:.2f} ms): {shown}."
        )
        for d in views["tensorboard_overview_disagrees"]:
            if d["category"] == "DataLoader":
                findings.append(
                    f"주의 — 플러그인은 DataLoader를 {d['plugin_pct']:.1f} %로 보이지만 트레이스에서 재면 "
                    f"{d['corrected_pct']:.1f} %다: 플러그인은 user_annotation 이벤트를 버리는데 PyTorch 2.x는 "
                    "DataLoader의 __next__를 user_annotation으로 기록한다(kineto #610, #844). 그 시간은 'Other'로 간다 — "
                    "플러그인의 DataLoader 0 %를 믿지 말고 트레이스(Perfetto)에서 enumerate(DataLoader) 구간을 확인하라."
                )
            elif d["category"] == "Runtime":
                findings.append(
                    f"주의 — 플러그인의 Runtime {d['plugin_pct']:.1f} %는 실제 {d['corrected_pct']:.1f} %다: 플러그인은 "
                    "'Runtime' 범주만 알고 kineto가 쓰는 'cuda_runtime'을 모른다. launch 시간은 CPU Exec/Other로 간다."
                )
        findings += views["recommendations"]
    summary = views["step_summary"]
    if summary and summary["steps"] > 1:
        why = {
            "data": "데이터 대기",
            "compute": "계산",
            "other": "그 밖의 시간(동기화, Python, 다른 프로세스)",
        }[summary["slowest_reason"]]
        findings.append(
            f"스텝 {summary['steps']}개: median {summary['median_ms']:.2f} ms, 변동계수 {summary['cv']:.0%}. 가장 느린 "
            f"스텝 #{summary['slowest_step']}는 {summary['slowest_ms']:.2f} ms(median의 "
            f"{summary['slowest_over_median']:.2f}배)이고, 늘어난 {summary['slowest_extra_ms']:.2f} ms는 주로 {why} 때문이다."
        )
    if views["gpu"]:
        findings += ga.gpu_findings(views["gpu"])
    return findings


def compare_views(a: dict[str, Any], b: dict[str, Any], top: int = TOP) -> dict[str, Any]:
    """What changed from trace A to trace B: per operator (self ms per step) and per category."""

    def per_step(view: dict[str, Any]) -> dict[str, float]:
        steps = max(len(view["step_table"]), 1)
        return {r["name"]: r["self_ms"] / steps for r in view["operator_view"]}

    ops_a, ops_b = per_step(a), per_step(b)
    ops = []
    for name in set(ops_a) | set(ops_b):
        before, after = ops_a.get(name, 0.0), ops_b.get(name, 0.0)
        ops.append(
            {"name": name, "a_ms_per_step": before, "b_ms_per_step": after, "delta_ms": after - before}
        )
    ops.sort(key=lambda r: -abs(r["delta_ms"]))
    categories = []
    ca, cb = a["tensorboard_overview_corrected"], b["tensorboard_overview_corrected"]
    if ca and cb:
        for c in tb.CATEGORIES:
            categories.append(
                {
                    "category": c,
                    "a_ms": ca["ms"][c],
                    "b_ms": cb["ms"][c],
                    "delta_ms": cb["ms"][c] - ca["ms"][c],
                }
            )
    gpu = None
    if a["gpu"] and b["gpu"]:
        ta, tb_ = a["gpu"]["ranks"][0]["gpu_time_breakdown"], b["gpu"]["ranks"][0]["gpu_time_breakdown"]
        if ta and tb_:
            gpu = {
                k: {"a": ta[k], "b": tb_[k], "delta": tb_[k] - ta[k]}
                for k in ("idle_pct", "compute_pct", "non_compute_pct")
            }
    step_a = a["step_summary"]["median_ms"] if a["step_summary"] else None
    step_b = b["step_summary"]["median_ms"] if b["step_summary"] else None
    return {
        "operators": ops[:top],
        "categories": categories,
        "gpu": gpu,
        "step_ms": {"a": step_a, "b": step_b},
    }
