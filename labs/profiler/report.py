"""The report of a profiled run (lab.py's `run_model`): the result dict, its tables, findings
(Korean, computed from the numbers), plots and summary. The tables and findings that `--trace`
reports too (top operators, layers, data loading, where to view a trace) live here as well.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
from pathlib import Path
from typing import Any

CYCLE_KEYS = ("cycle", "steps", "trace", "tensorboard_trace", "table", "trace_bytes", "handler_ms")


def build_report(
    args, settings, device, tensorboard_dir, scheduled, planted, baseline, main_run, workers_run
):
    handler = main_run["handler"]
    analysis = main_run["analysis"]
    records = main_run["records"]
    top_ops = analysis["top_ops"]
    key_averages = _key_averages(handler.cycles)
    workers = _workers_summary(workers_run)
    first_cycle = handler.cycles[0]
    result: dict[str, Any] = {
        "mode": "run",
        "device": device,
        "quick": args.quick,
        "batch_size": settings.batch_size,
        "threads": args.threads,
        "schedule": {"wait": args.wait, "warmup": args.warmup, "active": args.active, "repeat": args.repeat},
        "total_steps": len(records),
        "scheduled_steps": scheduled,
        "steps": sorted({s for cycle in handler.cycles for s in cycle["steps"]}),
        "step_ms": analysis["step_ms"],
        "handler_calls": handler.calls,
        "cycles": [{key: cycle[key] for key in CYCLE_KEYS} for cycle in handler.cycles],
        "second_export_error": handler.second_export_error,
        "phases": _phases(records),
        "step_records": records,
        "top_ops": ops_for_result(top_ops),
        "key_averages_top": sorted(
            ({"name": n, **v} for n, v in key_averages.items()), key=lambda r: (-r["self_ms"], r["name"])
        )[: args.top],
        "annotations": analysis["annotations"],
        "layers": analysis["layers"],
        "bottleneck": analysis["bottleneck"],
        "planted_layer": planted[0],
        "planted_description": planted[1],
        "data_loading_share": analysis["data_loading_share"],
        **_step_timing(baseline, records, scheduled),
        "workers_run": workers,
        "trace_path": first_cycle["trace"],
        "tensorboard_dir": str(tensorboard_dir),
        "tensorboard_files": [c["tensorboard_trace"] for c in handler.cycles],
        "memory_peak_mb": analysis["memory_peak_mb"],
        "artifacts": _artifacts(handler, tensorboard_dir, workers_run),
    }
    if args.memory:
        result["memory_by_op"] = first_cycle["memory"]
    if args.shapes:
        result["shapes"] = first_cycle["shapes"]
    if args.stack:
        result["stacks"] = first_cycle["stacks"]

    result["tables"] = _run_tables(result, top_ops, key_averages, analysis, records, scheduled)
    result["findings"] = _run_findings(result, args, top_ops, analysis)
    result["plots"] = _plots(baseline, records, workers_run, args.workers)
    result["summary"] = _summary(result, top_ops)
    return result


# --------------------------------------------------------------------------- the numbers


def _step_timing(
    baseline: list[dict[str, Any]], records: list[dict[str, Any]], scheduled: list[int]
) -> dict[str, Any]:
    """Warm-up and profiler overhead, in the order the result lists them."""
    # Warm-up: the first unprofiled step against the rest (wall = waiting for data + compute).
    later = baseline[1:] or baseline
    # Overhead: recorded steps (profiler collecting events) against the unprofiled steps that
    # follow the last cycle in the same loop. The profiler slows the operators, not the sleeping
    # Dataset, so compare the compute part (step minus data wait) too.
    recorded = [r for r in records if r["step"] in scheduled]
    after = [r for r in records if r["step"] > max(scheduled)]
    profiled_step_ms = statistics.fmean(r["wall_ms"] for r in recorded)
    unprofiled_step_ms = statistics.fmean(r["wall_ms"] for r in after)
    return {
        "first_step_ms": baseline[0]["wall_ms"],
        "later_step_ms": statistics.fmean(r["wall_ms"] for r in later),
        "baseline_steps_ms": [r["wall_ms"] for r in baseline],
        "profiled_step_ms": profiled_step_ms,
        "unprofiled_step_ms": unprofiled_step_ms,
        "unprofiled_steps": [r["step"] for r in after],
        "overhead_ratio": profiled_step_ms / unprofiled_step_ms,
        "overhead_ratio_compute": statistics.fmean(r["compute_ms"] for r in recorded)
        / statistics.fmean(r["compute_ms"] for r in after),
        "first_compute_ms": baseline[0]["compute_ms"],
        "later_compute_ms": statistics.fmean(r["compute_ms"] for r in later),
    }


def _phases(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Steps, mean wall time and the slowest prof.step() call per schedule phase."""
    phases: dict[str, dict[str, Any]] = {}
    for record in records:
        phase = phases.setdefault(record["phase"], {"steps": 0, "wall_ms": [], "prof_step_ms": []})
        phase["steps"] += 1
        phase["wall_ms"].append(record["wall_ms"])
        phase["prof_step_ms"].append(record["prof_step_ms"])
    for phase in phases.values():
        phase["mean_ms"] = statistics.fmean(phase.pop("wall_ms"))
        phase["max_prof_step_ms"] = max(phase.pop("prof_step_ms"))
    return phases


def _key_averages(cycles: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """key_averages() summed over the cycles, to set beside the trace's self times."""
    key_averages: dict[str, dict[str, float]] = {}
    for cycle in cycles:
        for name, row in cycle["key_averages"].items():
            total = key_averages.setdefault(name, {"self_ms": 0.0, "calls": 0, "device_ms": 0.0})
            total["self_ms"] += row["self_ms"]
            total["calls"] += row["calls"]
            total["device_ms"] += row["device_ms"]
    return key_averages


def _workers_summary(workers_run: dict[str, Any] | None) -> dict[str, Any] | None:
    if workers_run is None:
        return None
    w_analysis = workers_run["analysis"]
    return {
        "num_workers": workers_run["num_workers"],
        "data_loading_share": w_analysis["data_loading_share"],
        "step_ms": w_analysis["step_ms"],
        "first_step_ms": workers_run["records"][0]["wall_ms"],  # includes starting the workers
        "steps": w_analysis["steps"],
        "handler_calls": workers_run["handler"].calls,
        "trace_path": workers_run["handler"].cycles[0]["trace"],
    }


def _artifacts(handler: Any, tensorboard_dir: Path, workers_run: dict[str, Any] | None) -> dict[str, str]:
    first_cycle = handler.cycles[0]
    artifacts = {
        "trace": first_cycle["trace"],
        "key_averages": first_cycle["table"],
        "tensorboard": str(tensorboard_dir),
    }
    for cycle in handler.cycles[1:]:
        artifacts[f"trace_cycle{cycle['cycle']}"] = cycle["trace"]
    if workers_run is not None:
        artifacts["trace_workers"] = workers_run["handler"].cycles[0]["trace"]
        artifacts["key_averages_workers"] = workers_run["handler"].cycles[0]["table"]
    return artifacts


def _plots(
    baseline: list[dict[str, Any]],
    records: list[dict[str, Any]],
    workers_run: dict[str, Any] | None,
    num_workers: int,
) -> list[dict[str, Any]]:
    return [
        {
            "title": "스텝별 시간 (프로파일러 없이) — 첫 스텝의 초기화 비용",
            "x": list(range(len(baseline))),
            "series": {"unprofiled": [r["wall_ms"] for r in baseline]},
            "xlabel": "step",
            "ylabel": "ms",
        },
        {
            "title": "스텝별 시간 (프로파일 중)",
            "x": [r["step"] for r in records],
            "series": {"num_workers=0": [r["wall_ms"] for r in records]}
            | (
                {f"num_workers={num_workers}": [r["wall_ms"] for r in workers_run["records"]]}
                if workers_run
                else {}
            ),
            "xlabel": "step",
            "ylabel": "ms",
        },
    ]


def _summary(result: dict[str, Any], top_ops: list[dict[str, Any]]) -> str:
    bottleneck, layers = result["bottleneck"], result["layers"]
    share, workers = result["data_loading_share"], result["workers_run"]
    top_name = top_ops[0]["name"] if top_ops else "-"
    parts = [
        f"병목 층 {bottleneck} (forward {layers[bottleneck]:.1f} ms/step)"
        if bottleneck
        else "layer: 라벨 없음"
    ]
    if share is not None:
        text = f"데이터 대기 {share:.0%}"
        if workers and workers["data_loading_share"] is not None:
            text += f" → num_workers={workers['num_workers']}에서 {workers['data_loading_share']:.0%}"
        parts.append(text)
    parts.append(f"self CPU 1위 {top_name}")
    parts.append(f"프로파일러 오버헤드 {result['overhead_ratio']:.2f}×")
    return " · ".join(parts)


# --------------------------------------------------------------------------- tables


def ops_for_result(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"name": r["name"], "self_ms": r["self_ms"], "calls": r["calls"], "total_ms": r["total_ms"]}
        for r in rows
    ]


def ops_table(
    title: str,
    rows: list[dict[str, Any]],
    key_averages: dict[str, dict[str, float]] | None,
    device: bool = False,
) -> dict:
    """Operators by self time; beside them key_averages()' numbers for the same name, if given."""
    columns = ["operator", "self_ms", "total_ms", "calls"]
    if key_averages is not None:
        columns.append("key_averages_self_ms")
        if device:
            columns.append("device_ms")
    table_rows = []
    for row in rows:
        cells = [row["name"], row["self_ms"], row["total_ms"], row["calls"]]
        if key_averages is not None:
            cells.append(key_averages.get(row["name"], {}).get("self_ms"))
            if device:
                cells.append(key_averages.get(row["name"], {}).get("device_ms"))
        table_rows.append(cells)
    return {"title": title, "columns": columns, "rows": table_rows}


def layers_table(layers: dict[str, float], layers_mean: dict[str, float], step_ms: float | None) -> dict:
    rows = []
    for label, ms in sorted(layers.items(), key=lambda kv: -kv[1]):
        rows.append([label, ms, layers_mean.get(label), ms / step_ms if step_ms else None])
    return {
        "title": "층별 forward 시간 (record_function 라벨, 스텝당)",
        "columns": ["layer", "median_ms", "mean_ms", "share_of_step"],
        "rows": rows,
    }


def _run_tables(result, top_ops, key_averages, analysis, records, scheduled) -> list[dict]:
    tables = [
        ops_table(
            f"self CPU 시간 상위 연산자 (num_workers=0, 기록된 {len(result['steps'])} 스텝 합)",
            top_ops,
            key_averages,
            device=result["device"] == "cuda",
        ),
        layers_table(result["layers"], analysis["layers_mean"], result["step_ms"]),
        _steps_table(records, scheduled),
        _workers_table(result, records),
        _warmup_table(result),
    ]
    if result.get("memory_by_op"):
        tables.append(_memory_table(result["memory_by_op"]))
    if result.get("shapes"):
        tables.append(_shapes_table(result["shapes"]))
    if result.get("stacks"):
        tables.append(_stacks_table(result["stacks"]))
    return tables


def _steps_table(records: list[dict[str, Any]], scheduled: list[int]) -> dict:
    return {
        "title": "schedule 단계별 스텝 (wall_ms = data_ms 데이터 대기 + 학습; prof_step_ms = prof.step() 호출)",
        "columns": ["step", "phase", "wall_ms", "data_ms", "prof_step_ms", "in_trace"],
        "rows": [
            [
                r["step"],
                r["phase"],
                r["wall_ms"],
                r["data_ms"],
                r["prof_step_ms"],
                "yes" if r["step"] in scheduled else "",
            ]
            for r in records
        ],
    }


def _workers_table(result: dict[str, Any], records: list[dict[str, Any]]) -> dict:
    workers = result["workers_run"]
    rows = [[0, result["step_ms"], result["data_loading_share"], records[0]["wall_ms"]]]
    if workers:
        rows.append(
            [
                workers["num_workers"],
                workers["step_ms"],
                workers["data_loading_share"],
                workers["first_step_ms"],
            ]
        )
    return {
        "title": "DataLoader num_workers 비교 (프로파일된 스텝)",
        "columns": ["num_workers", "step_ms", "data_loading_share", "first_step_ms"],
        "rows": rows,
    }


def _warmup_table(result: dict[str, Any]) -> dict:
    return {
        "title": "워밍업과 프로파일러 오버헤드 (wall time)",
        "columns": ["measure", "ms"],
        "rows": [
            ["baseline 첫 스텝 (프로파일러 없음)", result["first_step_ms"]],
            ["baseline 이후 스텝 평균", result["later_step_ms"]],
            ["기록 중인 스텝 평균 (RECORD*)", result["profiled_step_ms"]],
            ["사이클 뒤 스텝 평균 (NONE, 같은 루프)", result["unprofiled_step_ms"]],
            ["baseline 첫 스텝의 계산 (데이터 대기 제외)", result["first_compute_ms"]],
            ["baseline 이후 스텝 계산 평균", result["later_compute_ms"]],
        ],
    }


def _memory_table(memory_by_op: list[dict[str, Any]]) -> dict:
    return {
        "title": "연산자별 메모리 (profile_memory, self CPU MB; 음수 = 해제)",
        "columns": ["operator", "self_cpu_mb", "cpu_mb", "calls"],
        "rows": [[r["name"], r["self_cpu_mb"], r["cpu_mb"], r["calls"]] for r in memory_by_op],
    }


def _shapes_table(shapes: list[dict[str, Any]]) -> dict:
    return {
        "title": "상위 연산자의 입력 shape (record_shapes)",
        "columns": ["operator", "input_shapes", "self_ms", "calls"],
        "rows": [[r["name"], r["input_shapes"], r["self_ms"], r["calls"]] for r in shapes],
    }


def _stacks_table(stacks: list[dict[str, Any]]) -> dict:
    return {
        "title": "상위 연산자를 부른 내 코드 (with_stack)",
        "columns": ["operator", "self_ms", "calls", "origin"],
        "rows": [[r["name"], r["self_ms"], r["calls"], r["origin"]] for r in stacks],
    }


# --------------------------------------------------------------------------- findings (Korean)


def top_op_findings(top_ops: list[dict[str, Any]]) -> list[str]:
    if not top_ops:
        return []
    total = sum(r["self_ms"] for r in top_ops)
    first = top_ops[0]
    share = first["self_ms"] / total if total else 0.0
    return [
        f"self time 1위 연산자는 {first['name']}: {first['self_ms']:.2f} ms ({first['calls']}회) — 표에 보인 "
        f"상위 {len(top_ops)}개 연산자의 self time을 더한 값 중 {share:.0%}(전체 실행 시간 대비가 아니다). self time은 자식 연산을 뺀 시간이라 실제로 일한 곳을, "
        "total time은 호출한 쪽까지 포함한 시간을 가리킵니다."
    ]


def bottleneck_finding(layers: dict[str, float], bottleneck: str, step_ms: float | None) -> str:
    others = [ms for label, ms in layers.items() if label != bottleneck]
    text = f"forward가 가장 긴 층은 {bottleneck} ({layers[bottleneck]:.2f} ms/step)"
    if others and sum(others) > 0:
        text += f"로, 나머지 {len(others)}개 층을 합한 {sum(others):.2f} ms의 {layers[bottleneck] / sum(others):.1f}배입니다"
    else:
        text += "입니다"
    if step_ms:
        text += f" (스텝 시간의 {layers[bottleneck] / step_ms:.0%}, backward는 별도)"
    return text + "."


def data_finding(share: float, workers: dict[str, Any] | None) -> str:
    if share >= 0.3:
        verdict = "데이터 로딩이 병목입니다 — GPU/CPU가 데이터를 기다립니다"
    elif share >= 0.1:
        verdict = "데이터 로딩이 눈에 띄는 비중입니다"
    else:
        verdict = "데이터 로딩은 병목이 아닙니다"
    text = f"스텝 시간 중 DataLoader 대기(enumerate(DataLoader)) 비율 {share:.0%}: {verdict}."
    if workers and workers["data_loading_share"] is not None:
        w_share = workers["data_loading_share"]
        text += (
            f" num_workers={workers['num_workers']}로 바꾸자 {w_share:.0%}"
            f"(스텝 {workers['step_ms']:.1f} ms)로 {'줄었습니다' if w_share < share else '줄지 않았습니다'}: "
            "워커 프로세스가 다음 배치를 미리 만들어 학습과 겹치기 때문입니다."
        )
    return text


def viewer_finding(trace: str, tensorboard_dir: str | None) -> str:
    text = f"타임라인 보기: {trace} 를 ui.perfetto.dev에 끌어다 놓거나 chrome://tracing에서 Load 하세요 (.gz도 열립니다)."
    if tensorboard_dir:
        installed = importlib.util.find_spec("torch_tb_profiler") is not None
        text += (
            f" TensorBoard: tensorboard --logdir {tensorboard_dir} (torch-tb-profiler 플러그인 "
            f"{'설치됨' if installed else '미설치'}; 이 플러그인은 0.4.3(2023) 이후 deprecated라 "
            "PyTorch 튜토리얼은 Perfetto·HTA를 권합니다)."
        )
    return text


def setup_finding(setup: dict[str, Any]) -> str:
    text = f"모델과 optimizer를 처음 만드는 데 {setup['model_setup_ms']:.0f} ms가 걸렸습니다"
    if setup["setup_imported_dynamo"]:
        text += " — 프로세스에서 처음 쓰인 torch.optim이 torch._dynamo를 import했기 때문입니다"
    return text + ". 이런 1회성 비용은 스텝 밖에도 있어, 첫 실행의 전체 시간으로 성능을 판단하면 안 됩니다."


def _run_findings(result: dict[str, Any], args: argparse.Namespace, top_ops, analysis) -> list[str]:
    findings = []
    if result["bottleneck"]:
        findings.append(_planted_bottleneck_finding(result))
    findings += top_op_findings(top_ops)
    if result["data_loading_share"] is not None:
        findings.append(data_finding(result["data_loading_share"], result["workers_run"]))
    if result["workers_run"]:
        findings.append(_workers_start_finding(result["workers_run"], result["scheduled_steps"]))
    findings.append(_warmup_finding(result))
    if args.warmup == 0:
        findings.append(_no_warmup_finding(result))
    findings.append(_schedule_finding(result, args))
    findings.append(_overhead_finding(result))
    findings.append(viewer_finding(result["trace_path"], result["tensorboard_dir"]))
    findings.append(_device_finding(result["device"], analysis))
    if result.get("shapes"):
        findings.append(_shapes_finding(result["shapes"][0]))
    if result.get("stacks"):
        findings.append(_stacks_finding(result["stacks"][0]))
    if result.get("memory_peak_mb"):
        findings.append(_memory_finding(result["memory_peak_mb"]))
    return findings


def _planted_bottleneck_finding(result: dict[str, Any]) -> str:
    text = bottleneck_finding(result["layers"], result["bottleneck"], result["step_ms"])
    same = result["bottleneck"] == result["planted_layer"]
    return text + (
        f" 모델에 일부러 심어 둔 무거운 층({result['planted_layer']}: {result['planted_description']})과 "
        f"{'일치합니다' if same else '다릅니다 — 이 기계에서는 다른 층이 더 느렸습니다'}."
    )


def _workers_start_finding(workers: dict[str, Any], scheduled_steps: list[int]) -> str:
    recorded_first = 0 in scheduled_steps
    return (
        f"num_workers={workers['num_workers']} 실행의 첫 스텝은 {workers['first_step_ms']:.0f} ms: spawn 워커가 "
        "각자 torch를 import하는 시작 비용입니다. "
        + (
            "이번 schedule은 첫 스텝부터 기록해서 이 1회성 비용이 트레이스와 평균에 들어갔습니다 "
            if recorded_first
            else "한 번뿐인 비용이라 wait/warmup 단계가 기록에서 빼 줍니다 "
        )
        + "(에폭마다 반복되지 않게 하려면 persistent_workers=True)."
    )


def _warmup_finding(result: dict[str, Any]) -> str:
    ratio = result["first_step_ms"] / result["later_step_ms"]
    compute_ratio = result["first_compute_ms"] / result["later_compute_ms"]
    text = (
        f"워밍업: 프로파일러 없이 잰 첫 스텝 {result['first_step_ms']:.1f} ms, 이후 평균 {result['later_step_ms']:.1f} ms "
        f"({ratio:.1f}배; 데이터 대기를 뺀 계산만 보면 {result['first_compute_ms']:.1f} / {result['later_compute_ms']:.1f} ms"
        f" = {compute_ratio:.1f}배). "
    )
    if compute_ratio >= 1.3:
        text += "첫 스텝에는 메모리 할당·커널 선택 같은 1회성 비용이 섞여 있습니다 — 이런 스텝을 기록하면 평균이 부풀기 때문에"
    else:
        text += (
            "이번에는 첫 스텝의 1회성 비용이 작았지만, 환경에 따라(특히 GPU의 CUDA 초기화·cuDNN 알고리즘 선택) "
            "첫 스텝이 몇 배에서 수십 배까지 느릴 수 있으므로"
        )
    return (
        text
        + " schedule은 wait 스텝을 건너뛰고 warmup 스텝은 추적만 하고 버린 뒤 active 스텝부터 기록합니다."
    )


def _no_warmup_finding(result: dict[str, Any]) -> str:
    recorded = [r["wall_ms"] for r in result["step_records"] if r["step"] in result["scheduled_steps"]]
    text = (
        'warmup=0으로 실행했습니다: torch가 "Profiler won\'t be using warmup, this can skew profiler results" '
        "경고를 냅니다. 추적을 켜는 비용이 첫 기록 스텝에 섞이기 때문입니다"
    )
    if len(recorded) > 1:
        text += f" (첫 기록 스텝 {recorded[0]:.1f} ms, 나머지 평균 {statistics.fmean(recorded[1:]):.1f} ms)"
    return text + "."


def _schedule_finding(result: dict[str, Any], args: argparse.Namespace) -> str:
    counts = ", ".join(f"{name} {p['steps']}" for name, p in result["phases"].items())
    steps = result["steps"]
    return (
        f"schedule(wait={args.wait}, warmup={args.warmup}, active={args.active}, repeat={args.repeat}): "
        f"{result['total_steps']} 스텝 중 {counts}. 트레이스에 남은 스텝은 "
        f"{', '.join(f'#{s}' for s in steps)}이고 on_trace_ready는 {result['handler_calls']}회(사이클마다 1회) 호출됐습니다."
        + (
            f" 같은 사이클에서 두 번째 export_chrome_trace는 {result['second_export_error']} — 그래서 핸들러는 한 번만 "
            "저장하고 TensorBoard용 파일은 복사로 만듭니다."
            if result["second_export_error"]
            else ""
        )
    )


def _overhead_finding(result: dict[str, Any]) -> str:
    ratio, compute = result["overhead_ratio"], result["overhead_ratio_compute"]
    if ratio < 0.95:
        verdict = (
            "기록 중이 오히려 빨랐습니다: 이 기계의 잡음(다른 프로그램의 부하 등)이 오버헤드보다 큽니다. "
            "--active를 늘려 다시 재 보세요"
        )
    elif compute < 1.05:
        verdict = "측정 잡음 수준으로 거의 없습니다"
    elif compute < 1.25:
        verdict = "작습니다"
    else:
        verdict = "눈에 띕니다"
    return (
        f"프로파일러 오버헤드: 기록 중 스텝 {result['profiled_step_ms']:.1f} ms / 같은 루프에서 사이클이 끝난 뒤 "
        f"프로파일러 없이 돈 스텝 {result['unprofiled_step_ms']:.1f} ms = {ratio:.2f}배 "
        f"(데이터 대기를 뺀 계산만 {compute:.2f}배) — {verdict}. 연산자가 많고 작을수록, "
        "with_stack·record_shapes·profile_memory를 켤수록 커집니다. 그래서 몇 스텝만 active로 기록하고, "
        "시간 자체를 비교할 때는 프로파일러 없이 잰 값을 씁니다."
    )


def _device_finding(device: str, analysis: dict[str, Any]) -> str:
    if device == "cuda":
        device_ms = analysis.get("device_ms")
        return (
            f"CUDA 사용: ProfilerActivity.CUDA로 GPU 커널도 기록했습니다 (커널 합계 "
            f"{device_ms or 0:.2f} ms; key_averages의 device_time_total). 시간은 torch.cuda.synchronize() 뒤에 쟀습니다. "
            "Nsight Systems(nsys profile)는 여기에 CUDA API 호출, 커널·memcpy 겹침, OS 스레드, NVTX 구간을 한 "
            "타임라인으로 더해 줍니다."
        )
    return (
        "CPU only: CUDA가 없어 CPU 활동만 기록했습니다. GPU가 있으면 이 실습은 ProfilerActivity.CUDA를 더해 커널 "
        "시간(device_time_total)을 보고하고, 시간을 재기 전에 torch.cuda.synchronize()를 부릅니다 — GPU 연산은 "
        "비동기라 안 그러면 실행 시간이 아닌 '발사' 시간만 잽니다. Nsight Systems(nsys profile)는 CUDA API, "
        "커널·memcpy, NVTX 구간을 한 타임라인에서 보여 줍니다."
    )


def _shapes_finding(row: dict[str, Any]) -> str:
    return (
        f"record_shapes: self time 1위 {row['name']}의 입력 shape은 {row['input_shapes']} — 같은 연산자라도 "
        "shape별로 나눠 보면 어느 층의 호출인지 알 수 있습니다 (key_averages(group_by_input_shape=True))."
    )


def _stacks_finding(row: dict[str, Any]) -> str:
    return (
        f"with_stack: {row['name']} {row['self_ms']:.2f} ms를 부른 내 코드는 {row['origin']}입니다 "
        "(backward 연산에는 그것을 만든 forward 호출의 stack이 붙습니다)."
    )


def _memory_finding(memory_peak_mb: dict[str, float]) -> str:
    peak = max(memory_peak_mb.values())
    return f"profile_memory: 기록 구간의 최대 할당량 {peak:.1f} MB (트레이스의 [memory] 이벤트)."
