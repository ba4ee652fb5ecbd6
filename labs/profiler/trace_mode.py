"""`--trace PATH` and `--compare A B`: reports on traces a learner recorded, without running a model.

Pure json/gzip: torch is not imported. The plugin-style views and GPU analyses come from views.py;
the operator, layer and data-loading tables and findings are the ones a profiled run reports
(report.py).
"""

from __future__ import annotations

import os
from typing import Any

from labs._protocol import LabUsageError, progress
from labs.profiler import trace_analysis, views
from labs.profiler.report import (
    bottleneck_finding,
    data_finding,
    layers_table,
    ops_for_result,
    ops_table,
    top_op_findings,
    viewer_finding,
)


def trace_documents(path: str) -> list[tuple[str, dict[str, Any]]]:
    """A trace file, or every trace in a directory (one per rank; a lab run dir: its num_workers=0 run)."""
    if not os.path.isdir(path):
        return [(path, trace_analysis.load_trace(path))]
    names = sorted(
        n
        for n in os.listdir(path)
        if n.endswith((".json", ".json.gz")) and os.path.isfile(os.path.join(path, n))
    )
    lab_run = [n for n in names if n.startswith("workers0_cycle")]  # `python -m labs.profiler --out DIR`
    names = lab_run or names
    if not names:
        raise LabUsageError(f"{path}: no .json or .json.gz trace files in this directory")
    return [(os.path.join(path, n), trace_analysis.load_trace(os.path.join(path, n))) for n in names]


def add_views(
    result: dict[str, Any],
    documents: list[tuple[str, dict[str, Any]]],
    top: int,
    first_events: list[trace_analysis.Event] | None = None,
) -> dict[str, Any]:
    """Put the plugin-style views and GPU analyses into a result (keys, tables and findings)."""
    found = views.trace_views(documents, top=top, first_events=first_events)
    result.update(found)
    if found["gpu"]:
        first = found["gpu"]["ranks"][0]
        result["gpu_time_breakdown"] = first["gpu_time_breakdown"]
        result["kernel_type_pct"] = found["gpu"]["kernel_type_pct"]
    result["tables"] = [*result.get("tables", []), *views.view_tables(found)]
    result["findings"] = [*result.get("findings", []), *views.view_findings(found)]
    return found


# =========================================================================== --compare A B


def compare_traces(path_a: str, path_b: str, top: int) -> dict[str, Any]:
    progress("compare", 0.1, f"{path_a}와 {path_b} 읽는 중")
    a = views.trace_views(trace_documents(path_a), top=100)
    b = views.trace_views(trace_documents(path_b), top=100)
    diff = views.compare_views(a, b, top=top)
    progress("compare", 0.9, "연산자와 범주 비교 중")
    findings = _compare_findings(diff)
    return {
        "mode": "compare",
        "summary": " · ".join(findings[:2]) or "비교할 스텝이 없습니다",
        "tables": _compare_tables(diff),
        "findings": findings,
        "artifacts": {},
        "compare": diff,
        "a": path_a,
        "b": path_b,
    }


def _compare_tables(diff: dict[str, Any]) -> list[dict[str, Any]]:
    tables = [
        {
            "title": "연산자별 self time 변화 (스텝당 ms, B − A)",
            "columns": ["operator", "A ms/step", "B ms/step", "Δ ms"],
            "rows": [
                [r["name"], r["a_ms_per_step"], r["b_ms_per_step"], r["delta_ms"]] for r in diff["operators"]
            ],
        }
    ]
    if diff["categories"]:
        tables.append(
            {
                "title": "스텝 시간 분해 변화 (Overview 범주, 스텝당 ms)",
                "columns": ["category", "A ms", "B ms", "Δ ms"],
                "rows": [
                    [c["category"], c["a_ms"], c["b_ms"], c["delta_ms"]]
                    for c in diff["categories"]
                    if c["a_ms"] or c["b_ms"]
                ],
            }
        )
    return tables


def _compare_findings(diff: dict[str, Any]) -> list[str]:
    findings = []
    sa, sb = diff["step_ms"]["a"], diff["step_ms"]["b"]
    if sa and sb:
        findings.append(f"스텝 median: A {sa:.2f} ms → B {sb:.2f} ms ({sb / sa:.2f}배).")
    if diff["operators"]:
        top_change = diff["operators"][0]
        findings.append(
            f"가장 크게 변한 연산자: {top_change['name']} {top_change['a_ms_per_step']:.2f} → "
            f"{top_change['b_ms_per_step']:.2f} ms/step ({top_change['delta_ms']:+.2f})."
        )
    if diff["categories"]:
        biggest = max(diff["categories"], key=lambda c: abs(c["delta_ms"]))
        findings.append(
            f"가장 크게 변한 범주: {biggest['category']} {biggest['a_ms']:.2f} → {biggest['b_ms']:.2f} ms/step."
        )
    if diff["gpu"]:
        g = diff["gpu"]["idle_pct"]
        findings.append(f"GPU idle: A {g['a']:.1f} % → B {g['b']:.1f} % ({g['delta']:+.1f} %p).")
    return findings


# =========================================================================== --trace PATH


def analyse_trace_file(path: str, top: int) -> dict[str, Any]:
    """Report on a learner's own trace."""
    progress("trace", 0.1, f"{path} 읽는 중")
    documents = trace_documents(path)
    # The first trace is parsed once and its events built and nested once, for every table:
    # a 10⁶-event trace is read in seconds, not minutes (nothing here may be quadratic either).
    first_path, first = documents[0]
    events = trace_analysis.complete_events(first, source=first_path)
    trace_analysis.link_parents(events)
    analysis = trace_analysis.analyse_events(events, top=top, linked=True)
    analysis["memory_peak_mb"] = trace_analysis.memory_peaks(first)
    progress("trace", 0.9, f"이벤트 {analysis['events']}개 분석")
    tables = _trace_tables(analysis)
    findings = _trace_findings(path, analysis)
    return {
        "mode": "trace",
        "summary": _trace_summary(analysis),
        "tables": tables,
        "findings": findings,
        "artifacts": {},
        "trace_path": os.path.abspath(path),
        "steps": analysis["steps"],
        "step_ms": analysis["step_ms"],
        "step_durations_ms": analysis["step_durations_ms"],
        "top_ops": ops_for_result(analysis["top_ops"]),
        "annotations": analysis["annotations"],
        "layers": analysis["layers"],
        "bottleneck": analysis["bottleneck"],
        "data_loading_share": analysis["data_loading_share"],
        "top_kernels": analysis["top_kernels"],
        "memory_peak_mb": analysis["memory_peak_mb"],
        "events": analysis["events"],
        "device": "cuda" if analysis["top_kernels"] else "cpu",
        "trace_files": [p for p, _ in documents],
        "tensorboard_dir": None,
    } | _with_views(tables, findings, documents, top, events)


def _trace_findings(path: str, analysis: dict[str, Any]) -> list[str]:
    steps, step_ms, share = analysis["steps"], analysis["step_ms"], analysis["data_loading_share"]
    findings = [_steps_finding(steps, step_ms)]
    findings += top_op_findings(analysis["top_ops"])
    if analysis["bottleneck"]:
        findings.append(bottleneck_finding(analysis["layers"], analysis["bottleneck"], step_ms))
    if share is not None:
        findings.append(data_finding(share, None))
    elif steps:
        findings.append("DataLoader 이벤트가 없어 데이터 로딩 비율은 계산하지 않았습니다.")
    if analysis["top_kernels"]:
        kernel = analysis["top_kernels"][0]
        findings.append(
            f"GPU 이벤트(kernel/memcpy)가 있습니다: 합계 {analysis['device_ms']:.2f} ms, 가장 긴 것은 "
            f"{kernel['name']} ({kernel['total_ms']:.2f} ms, {kernel['calls']}회)."
        )
    if analysis["annotations"]:
        label = analysis["annotations"][0]
        findings.append(
            f"user annotation(record_function) 중 총 시간 1위는 {label['name']} ({label['total_ms']:.2f} ms, "
            f"{label['calls']}회)입니다."
        )
    findings.append(viewer_finding(path, None))
    return findings


def _steps_finding(steps: list[int], step_ms: float | None) -> str:
    if steps:
        return f"ProfilerStep 이벤트 {len(steps)}개(#{steps[0]}–#{steps[-1]})를 찾았습니다. 평균 스텝 시간 {step_ms:.2f} ms."
    return (
        "ProfilerStep#N 이벤트가 없습니다: schedule과 prof.step() 없이 기록한 트레이스라 스텝 단위 분석(스텝 시간, "
        "데이터 로딩 비율)은 생략합니다."
    )


def _trace_tables(analysis: dict[str, Any]) -> list[dict[str, Any]]:
    tables = [ops_table("self time 상위 연산자", analysis["top_ops"], None)]
    if analysis["layers"]:
        tables.append(layers_table(analysis["layers"], analysis["layers_mean"], analysis["step_ms"]))
    if analysis["annotations"]:
        tables.append(
            {
                "title": "user annotation (record_function) 총 시간",
                "columns": ["label", "total_ms", "calls"],
                "rows": [[r["name"], r["total_ms"], r["calls"]] for r in analysis["annotations"]],
            }
        )
    if analysis["top_kernels"]:
        tables.append(
            {
                "title": "GPU kernel/memcpy 총 시간",
                "columns": ["kernel", "total_ms", "calls"],
                "rows": [[r["name"], r["total_ms"], r["calls"]] for r in analysis["top_kernels"]],
            }
        )
    return tables


def _trace_summary(analysis: dict[str, Any]) -> str:
    steps, step_ms, share = analysis["steps"], analysis["step_ms"], analysis["data_loading_share"]
    top_name = analysis["top_ops"][0]["name"] if analysis["top_ops"] else "-"
    parts = [f"트레이스 분석: 스텝 {len(steps)}개" + (f", 평균 {step_ms:.2f} ms" if step_ms else "")]
    parts.append(f"self time 1위 {top_name}")
    if share is not None:
        parts.append(f"데이터 로딩 {share:.0%}")
    return " · ".join(parts)


def _with_views(tables, findings, documents, top, first_events) -> dict[str, Any]:
    extra: dict[str, Any] = {"tables": tables, "findings": findings}
    found = add_views(extra, documents, top, first_events)
    if found["tensorboard_overview"]:
        extra["tensorboard_overview_runs"] = {
            os.path.basename(documents[0][0]): found["tensorboard_overview"]
        }
    return extra
