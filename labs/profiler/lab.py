"""PyTorch 프로파일러로 병목 찾기 — find the bottleneck of a training loop with torch.profiler.

What runs (model: labs/profiler/model.py):
  1. baseline   the training loop without a profiler: first-step vs later-step time (warm-up)
  2. profiled   the same loop, num_workers=0, under `profile(schedule=..., on_trace_ready=handler)`
                with `prof.step()` after every step; the handler (trace_handler.py) exports the
                Chrome trace once per cycle, writes the key_averages() table and a TensorBoard copy
  3. workers    the same profiled loop with DataLoader worker processes (`--workers`, default 2)
Then the traces are read back (trace_analysis.py) to find the top operators by self time, the
forward time of every `layer:` label (the bottleneck is the largest), and the share of each step
spent waiting for data.

`--trace FILE` reads a trace you recorded yourself (.json or .json.gz; a directory = one trace per
rank) and reports the same numbers without running a model — and without importing torch — plus
the TensorBoard plugin's views computed from the trace (views.py, tb_overview.py) and, for GPU
traces, HTA's analyses (gpu_analysis.py). `--compare A B` diffs two traces or two runs.
`--tensorboard` starts the real plugin on the run's logdir (optional extra).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labs._protocol import LabDependencyError, LabUsageError, parse_args, progress
from labs.profiler import trace_analysis, views

MAX_STEPS = 200  # (wait + warmup + active) × repeat: keeps a typo from running for an hour
MAX_WORKERS = 32
TOP = 10
CYCLE_KEYS = ("cycle", "steps", "trace", "tensorboard_trace", "table", "trace_bytes", "handler_ms")


@dataclass(frozen=True)
class Settings:
    batch_size: int  # samples per step; each sample sleeps 2 ms in the Dataset
    baseline_steps: int  # unprofiled steps: the first one against the rest shows warm-up costs


QUICK = Settings(batch_size=8, baseline_steps=8)
FULL = Settings(batch_size=16, baseline_steps=20)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m labs.profiler", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small batch, few baseline steps (seconds)")
    parser.add_argument("--out", help="directory for traces and tables (default: a new temp dir)")
    schedule = parser.add_argument_group("torch.profiler.schedule")
    schedule.add_argument("--wait", type=int, default=1, help="steps skipped at the start of a cycle (1)")
    schedule.add_argument("--warmup", type=int, default=1, help="steps traced but thrown away (1)")
    schedule.add_argument("--active", type=int, default=3, help="steps recorded per cycle (3)")
    schedule.add_argument("--repeat", type=int, default=1, help="number of cycles (1)")
    parser.add_argument(
        "--workers", type=int, default=2, help="DataLoader num_workers of the 2nd run (2; 0 skips it)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch.set_num_threads for the model (1: stable timings on a busy machine; try your core count)",
    )
    parser.add_argument("--memory", action="store_true", help="profile_memory=True: memory per operator")
    parser.add_argument("--shapes", action="store_true", help="record_shapes=True: input shapes of top ops")
    parser.add_argument("--stack", action="store_true", help="with_stack=True: Python stacks of top ops")
    parser.add_argument("--gzip", action="store_true", help="write .pt.trace.json.gz instead of .json")
    parser.add_argument("--top", type=int, default=TOP, help="rows in the top-operator lists (10)")
    parser.add_argument(
        "--trace",
        metavar="PATH",
        help="analyse your own trace (.json/.json.gz, or a directory: one trace per rank); runs no model",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="what changed from trace (or run directory) A to B: per operator and per category",
    )
    parser.add_argument(
        "--tensorboard",
        action="store_true",
        help="start the TensorBoard profiler plugin on the run's logdir (pip install 'studyapp[tensorboard]')",
    )
    parser.add_argument(
        "--serve-seconds",
        type=float,
        default=None,
        help="with --tensorboard: stop the server after this many seconds (default: at Ctrl+C)",
    )
    return parser


def validate(args: argparse.Namespace) -> None:
    if args.wait < 0 or args.warmup < 0:
        raise LabUsageError("--wait and --warmup must be 0 or more")
    if args.active < 1:
        raise LabUsageError("--active must be at least 1 (the steps that are recorded)")
    if args.repeat < 1:
        raise LabUsageError("--repeat must be at least 1 (this lab runs a fixed number of cycles)")
    if (args.wait + args.warmup + args.active) * args.repeat > MAX_STEPS:
        raise LabUsageError(f"(wait + warmup + active) × repeat must be at most {MAX_STEPS} steps")
    if not 0 <= args.workers <= MAX_WORKERS:
        raise LabUsageError(f"--workers must be between 0 and {MAX_WORKERS}")
    if not 1 <= args.threads <= 256:
        raise LabUsageError("--threads must be between 1 and 256")
    if not 1 <= args.top <= 100:
        raise LabUsageError("--top must be between 1 and 100")
    if args.compare and args.trace:
        raise LabUsageError("--compare takes its own two traces; leave out --trace")
    if args.serve_seconds is not None:
        if not args.tensorboard:
            raise LabUsageError("--serve-seconds only goes with --tensorboard")
        if not 0 <= args.serve_seconds <= 86_400 or args.serve_seconds != args.serve_seconds:
            raise LabUsageError("--serve-seconds must be between 0 and 86400")
    if args.tensorboard:
        from labs.profiler import tensorboard_server

        if not tensorboard_server.available():
            raise LabDependencyError(tensorboard_server.INSTALL_HINT)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(build_parser(), argv)
    validate(args)
    if args.compare:
        return compare_traces(args.compare[0], args.compare[1], top=args.top)
    if args.trace:
        result = analyse_trace_file(args.trace, top=args.top)
    else:
        # Libraries that print must not write into the protocol stream on stdout.
        with contextlib.redirect_stdout(sys.stderr):
            result = run_model(args)
    if args.tensorboard:
        logdir = result.get("tensorboard_dir") or os.path.dirname(result["trace_files"][0])
        result["tensorboard"] = serve_tensorboard(logdir, result, args.serve_seconds)
    return result


# =========================================================================== views of traces


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
    result: dict[str, Any], documents: list[tuple[str, dict[str, Any]]], top: int
) -> dict[str, Any]:
    """Put the plugin-style views and GPU analyses into a result (keys, tables and findings)."""
    found = views.trace_views(documents, top=top)
    result.update(found)
    if found["gpu"]:
        first = found["gpu"]["ranks"][0]
        result["gpu_time_breakdown"] = first["gpu_time_breakdown"]
        result["kernel_type_pct"] = found["gpu"]["kernel_type_pct"]
    result["tables"] = [*result.get("tables", []), *views.view_tables(found)]
    result["findings"] = [*result.get("findings", []), *views.view_findings(found)]
    return found


def compare_traces(path_a: str, path_b: str, top: int = TOP) -> dict[str, Any]:
    progress("compare", 0.1, f"reading {path_a} and {path_b}")
    a = views.trace_views(trace_documents(path_a), top=100)
    b = views.trace_views(trace_documents(path_b), top=100)
    diff = views.compare_views(a, b, top=top)
    progress("compare", 0.9, "diffing operators and categories")
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
    return {
        "mode": "compare",
        "summary": " · ".join(findings[:2]) or "비교할 스텝이 없습니다",
        "tables": tables,
        "findings": findings,
        "artifacts": {},
        "compare": diff,
        "a": path_a,
        "b": path_b,
    }


def serve_tensorboard(logdir: str, result: dict[str, Any], seconds: float | None) -> dict[str, Any]:
    """Run the real plugin on `logdir`, read its Overview beside ours, stop it when done."""
    from labs.profiler import tensorboard_server as tbs

    progress("tensorboard", 0.97, f"starting TensorBoard on {logdir}")
    proc, url = tbs.start(logdir)
    try:
        compared = {}
        for run in tbs.runs(url):
            try:
                compared[run] = tbs.plugin_overview(url, run)
            except (OSError, ValueError, KeyError, IndexError) as exc:
                compared[run] = {"error": tbs.url_error_text(exc)}
        wait = "Ctrl+C로 끝냅니다" if seconds is None else f"{seconds:g}초 뒤 끝냅니다"
        progress("tensorboard", 0.99, f"TensorBoard: {url} ({wait})")
        print(f"TensorBoard profiler plugin: {url}/#pytorch_profiler ({wait})", file=sys.stderr)
        try:
            if seconds is None:
                while proc.poll() is None:
                    time.sleep(0.5)
            else:
                time.sleep(seconds)
        except KeyboardInterrupt:
            pass  # Ctrl+C ends serving; the report still comes
    finally:
        tbs.stop(proc)
    ours = result.get("tensorboard_overview_runs") or {}
    for run, plugin in compared.items():
        mine = ours.get(run)
        if mine and "pct" in plugin:
            plugin["max_gap_pp"] = max(
                abs(plugin["pct"].get(c, 0.0) - mine["pct"].get(c, 0.0)) for c in mine["pct"]
            )
    return {"url": url, "logdir": logdir, "plugin_overview": compared}


# =========================================================================== --trace FILE


def analyse_trace_file(path: str, top: int = TOP) -> dict[str, Any]:
    """Report on a learner's own trace. Pure json/gzip: torch is not imported."""
    progress("trace", 0.1, f"reading {path}")
    documents = trace_documents(path)
    analysis = trace_analysis.analyse_files([documents[0][0]], top=top)
    progress("trace", 0.9, f"{analysis['events']} events analysed")
    steps, step_ms, share = analysis["steps"], analysis["step_ms"], analysis["data_loading_share"]
    findings = []
    if steps:
        findings.append(
            f"ProfilerStep 이벤트 {len(steps)}개(#{steps[0]}–#{steps[-1]})를 찾았습니다. 평균 스텝 시간 {step_ms:.2f} ms."
        )
    else:
        findings.append(
            "ProfilerStep#N 이벤트가 없습니다: schedule과 prof.step() 없이 기록한 트레이스라 스텝 단위 분석(스텝 시간, "
            "데이터 로딩 비율)은 생략합니다."
        )
    findings += _top_op_findings(analysis["top_ops"])
    if analysis["bottleneck"]:
        findings.append(_bottleneck_finding(analysis["layers"], analysis["bottleneck"], step_ms))
    if share is not None:
        findings.append(_data_finding(share, None))
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
    findings.append(_viewer_finding(path, None))
    tables = [_ops_table("self time 상위 연산자", analysis["top_ops"], None)]
    if analysis["layers"]:
        tables.append(_layers_table(analysis["layers"], analysis["layers_mean"], step_ms))
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
    top_name = analysis["top_ops"][0]["name"] if analysis["top_ops"] else "-"
    parts = [f"트레이스 분석: 스텝 {len(steps)}개" + (f", 평균 {step_ms:.2f} ms" if step_ms else "")]
    parts.append(f"self time 1위 {top_name}")
    if share is not None:
        parts.append(f"데이터 로딩 {share:.0%}")
    return {
        "mode": "trace",
        "summary": " · ".join(parts),
        "tables": tables,
        "findings": findings,
        "artifacts": {},
        "trace_path": os.path.abspath(path),
        "steps": steps,
        "step_ms": step_ms,
        "step_durations_ms": analysis["step_durations_ms"],
        "top_ops": _ops_for_result(analysis["top_ops"]),
        "annotations": analysis["annotations"],
        "layers": analysis["layers"],
        "bottleneck": analysis["bottleneck"],
        "data_loading_share": share,
        "top_kernels": analysis["top_kernels"],
        "memory_peak_mb": analysis["memory_peak_mb"],
        "events": analysis["events"],
        "device": "cuda" if analysis["top_kernels"] else "cpu",
        "trace_files": [p for p, _ in documents],
        "tensorboard_dir": None,
    } | _with_views(tables, findings, documents, top)


def _with_views(tables, findings, documents, top) -> dict[str, Any]:
    extra: dict[str, Any] = {"tables": tables, "findings": findings}
    found = add_views(extra, documents, top)
    if found["tensorboard_overview"]:
        extra["tensorboard_overview_runs"] = {
            os.path.basename(documents[0][0]): found["tensorboard_overview"]
        }
    return extra


# =========================================================================== run the model


def _import_torch() -> Any:
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")  # quiets profile_memory's allocator warning
    try:
        import torch
    except ImportError as exc:
        raise LabDependencyError("the profiler lab needs PyTorch: pip install torch") from exc
    return torch


def run_model(args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.out or tempfile.mkdtemp(prefix="studyapp-profiler-")).resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LabUsageError(f"cannot use --out {out}: {exc.strerror or exc}") from None
    progress("setup", 0.0, "importing torch")
    torch = _import_torch()
    from torch.profiler import ProfilerAction, schedule

    from labs.profiler import model as workload

    settings = QUICK if args.quick else FULL
    # Intra-op threads. With several threads, every operator waits at a barrier for all of them;
    # when other programs hold a core, that wait dominates and the timings become noise.
    torch.set_num_threads(args.threads)
    tensorboard_dir = out / "tensorboard"
    device = "cuda" if torch.cuda.is_available() else "cpu"

    # The schedule, step by step: which action the profiler takes at each step.
    cycle = args.wait + args.warmup + args.active
    # After the last cycle the profiler is idle again (NONE). Run as many such steps as one cycle
    # records: unprofiled steps in the same loop, right after the recorded ones — the fairest
    # "without the profiler" reference for the overhead (same model, same data, same moment).
    total_steps = cycle * args.repeat + args.active
    plan = schedule(wait=args.wait, warmup=args.warmup, active=args.active, repeat=args.repeat)
    actions = [plan(step).name for step in range(total_steps)]
    scheduled = [
        s
        for s, a in enumerate(actions)
        if a in (ProfilerAction.RECORD.name, ProfilerAction.RECORD_AND_SAVE.name)
    ]

    # 1. Baseline: no profiler. The very first step pays one-time costs (allocations, kernel
    #    selection, lazy initialisation) — that is what a profiler's warm-up steps keep out.
    progress("baseline", 0.05, f"{settings.baseline_steps} steps without the profiler")
    loader = workload.make_loader(settings.baseline_steps, settings.batch_size, num_workers=0)
    # One-time costs exist outside the steps too: the first optimizer a process creates imports
    # torch._dynamo (torch.optim guards add_param_group with it) — about a second.
    dynamo_before = "torch._dynamo" in sys.modules
    started = time.perf_counter()
    net, optimizer = workload.make_model(device)
    setup = {
        "model_setup_ms": (time.perf_counter() - started) * 1000,
        "setup_imported_dynamo": not dynamo_before and "torch._dynamo" in sys.modules,
    }
    baseline = train_loop(torch, net, optimizer, loader, device, prof=None, fraction=(0.05, 0.25))
    planted = (workload.PLANTED_LAYER, workload.describe_planted(net))

    # 2. Profiled, num_workers=0.
    main_run = profiled_run(
        torch, workload, args, settings, device, out, tensorboard_dir, 0, total_steps, (0.25, 0.6)
    )
    # 3. Profiled, with DataLoader worker processes.
    workers_run = None
    if args.workers > 0:
        workers_run = profiled_run(
            torch,
            workload,
            args,
            settings,
            device,
            out,
            tensorboard_dir,
            args.workers,
            total_steps,
            (0.6, 0.95),
        )

    progress("analysis", 0.95, "reading the traces back")
    result = build_report(
        args, settings, device, tensorboard_dir, scheduled, planted, baseline, main_run, workers_run
    )
    result.update(setup)
    warmup = next(i for i, text in enumerate(result["findings"]) if text.startswith("워밍업"))
    result["findings"].insert(warmup + 1, _setup_finding(setup))
    # The plugin's views of what TensorBoard would load: one run per num_workers setting.
    main_docs = [(f, trace_analysis.load_trace(f)) for f in result["tensorboard_files"]]
    add_views(result, main_docs, args.top)
    runs = {"workers0": result["tensorboard_overview"]}
    if workers_run is not None:
        from labs.profiler import tb_overview

        for cycle in workers_run["handler"].cycles:
            overview = tb_overview.plugin_overview(trace_analysis.load_trace(cycle["tensorboard_trace"]))
            runs[f"workers{args.workers}"] = overview
    result["tensorboard_overview_runs"] = {run: ov for run, ov in runs.items() if ov}
    return result


def train_loop(
    torch: Any,
    net: Any,
    optimizer: Any,
    loader: Any,
    device: str,
    prof: Any,
    fraction: tuple[float, float],
    label: str = "baseline",
) -> list[dict[str, Any]]:
    """Run one epoch; time every step. With `prof`, call `prof.step()` after each step."""
    from labs.profiler.model import train_step

    records: list[dict[str, Any]] = []
    steps = len(loader)
    tick = time.perf_counter()
    for step, (images, labels) in enumerate(loader):  # waiting here = data loading
        phase = prof.current_action.name if prof is not None else "UNPROFILED"
        data_ms = (time.perf_counter() - tick) * 1000  # time spent getting this batch
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        train_step(net, optimizer, images, labels)
        if device == "cuda":
            torch.cuda.synchronize()  # GPU work is asynchronous: wait for it before reading the clock
        wall_ms = (time.perf_counter() - tick) * 1000
        step_call_ms = 0.0
        if prof is not None:
            before = time.perf_counter()
            prof.step()  # closes ProfilerStep#step; at the end of a cycle this runs on_trace_ready
            step_call_ms = (time.perf_counter() - before) * 1000
        records.append(
            {
                "step": step,
                "phase": phase,
                "wall_ms": wall_ms,
                "data_ms": data_ms,
                "compute_ms": wall_ms - data_ms,
                "prof_step_ms": step_call_ms,
            }
        )
        low, high = fraction
        progress(
            label,
            low + (high - low) * (step + 1) / steps,
            f"step {step + 1}/{steps} {phase} {wall_ms:.1f} ms",
        )
        tick = time.perf_counter()  # the next step's clock starts here, handler time excluded
    return records


def profiled_run(
    torch: Any,
    workload: Any,
    args: argparse.Namespace,
    settings: Settings,
    device: str,
    out: Path,
    tensorboard_dir: Path,
    num_workers: int,
    total_steps: int,
    fraction: tuple[float, float],
) -> dict[str, Any]:
    from torch.profiler import ProfilerActivity, profile, schedule

    from labs.profiler.trace_handler import StudyTraceHandler

    run_name = f"workers{num_workers}"
    progress(run_name, fraction[0], f"profiling {total_steps} steps, DataLoader num_workers={num_workers}")
    handler = StudyTraceHandler(
        out,
        tensorboard_dir / run_name,  # one TensorBoard "run" per configuration, side by side
        run_name,
        use_gzip=args.gzip,
        memory=args.memory,
        shapes=args.shapes,
        stack=args.stack,
        device_table=device == "cuda",
    )
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)  # kernels, memcpy: device_time_total
    # In torch 2.13 with_stack=True alone leaves per-op stacks empty; verbose=True fills them.
    experimental = torch._C._profiler._ExperimentalConfig(verbose=True) if args.stack else None
    loader = workload.make_loader(total_steps, settings.batch_size, num_workers, pin_memory=device == "cuda")
    net, optimizer = workload.make_model(device)
    with profile(
        activities=activities,
        schedule=schedule(wait=args.wait, warmup=args.warmup, active=args.active, repeat=args.repeat),
        on_trace_ready=handler,
        record_shapes=args.shapes,
        profile_memory=args.memory,
        with_stack=args.stack,
        experimental_config=experimental,
    ) as prof:
        records = train_loop(torch, net, optimizer, loader, device, prof, fraction, label=run_name)
    traces = [cycle["trace"] for cycle in handler.cycles]
    analysis = trace_analysis.analyse_files(traces, top=args.top) if traces else None
    return {"num_workers": num_workers, "records": records, "handler": handler, "analysis": analysis}


# =========================================================================== the report


def build_report(
    args, settings, device, tensorboard_dir, scheduled, planted, baseline, main_run, workers_run
):
    handler = main_run["handler"]
    analysis = main_run["analysis"]
    records = main_run["records"]

    # Warm-up: the first unprofiled step against the rest (wall = waiting for data + compute).
    later = baseline[1:] or baseline
    first_step_ms = baseline[0]["wall_ms"]
    later_step_ms = statistics.fmean(r["wall_ms"] for r in later)
    # Overhead: recorded steps (profiler collecting events) against the unprofiled steps that
    # follow the last cycle in the same loop. The profiler slows the operators, not the sleeping
    # Dataset, so compare the compute part (step minus data wait) too.
    recorded = [r for r in records if r["step"] in scheduled]
    after = [r for r in records if r["step"] > max(scheduled)]
    profiled_step_ms = statistics.fmean(r["wall_ms"] for r in recorded)
    unprofiled_step_ms = statistics.fmean(r["wall_ms"] for r in after)
    overhead_ratio = profiled_step_ms / unprofiled_step_ms
    overhead_ratio_compute = statistics.fmean(r["compute_ms"] for r in recorded) / statistics.fmean(
        r["compute_ms"] for r in after
    )

    phases: dict[str, dict[str, Any]] = {}
    for record in records:
        phase = phases.setdefault(record["phase"], {"steps": 0, "wall_ms": [], "prof_step_ms": []})
        phase["steps"] += 1
        phase["wall_ms"].append(record["wall_ms"])
        phase["prof_step_ms"].append(record["prof_step_ms"])
    for phase in phases.values():
        phase["mean_ms"] = statistics.fmean(phase.pop("wall_ms"))
        phase["max_prof_step_ms"] = max(phase.pop("prof_step_ms"))

    # Top operators: self time from the trace (trace_analysis) beside key_averages() for the same run.
    key_averages: dict[str, dict[str, float]] = {}
    for cycle in handler.cycles:
        for name, row in cycle["key_averages"].items():
            total = key_averages.setdefault(name, {"self_ms": 0.0, "calls": 0, "device_ms": 0.0})
            total["self_ms"] += row["self_ms"]
            total["calls"] += row["calls"]
            total["device_ms"] += row["device_ms"]
    key_averages_top = sorted(
        ({"name": n, **v} for n, v in key_averages.items()), key=lambda r: (-r["self_ms"], r["name"])
    )[: args.top]
    top_ops = analysis["top_ops"]
    steps = sorted({s for cycle in handler.cycles for s in cycle["steps"]})
    step_ms = analysis["step_ms"]
    layers, bottleneck = analysis["layers"], analysis["bottleneck"]
    share = analysis["data_loading_share"]

    workers = None
    if workers_run is not None:
        w_analysis = workers_run["analysis"]
        workers = {
            "num_workers": workers_run["num_workers"],
            "data_loading_share": w_analysis["data_loading_share"],
            "step_ms": w_analysis["step_ms"],
            "first_step_ms": workers_run["records"][0]["wall_ms"],  # includes starting the workers
            "steps": w_analysis["steps"],
            "handler_calls": workers_run["handler"].calls,
            "trace_path": workers_run["handler"].cycles[0]["trace"],
        }

    first_cycle = handler.cycles[0]
    artifacts = {
        "trace": first_cycle["trace"],
        "key_averages": first_cycle["table"],
        "tensorboard": str(tensorboard_dir),
    }
    for cycle in handler.cycles[1:]:
        artifacts[f"trace_cycle{cycle['cycle']}"] = cycle["trace"]
    if workers_run is not None:
        artifacts["trace_workers"] = workers["trace_path"]
        artifacts["key_averages_workers"] = workers_run["handler"].cycles[0]["table"]

    result: dict[str, Any] = {
        "mode": "run",
        "device": device,
        "quick": args.quick,
        "batch_size": settings.batch_size,
        "threads": args.threads,
        "schedule": {"wait": args.wait, "warmup": args.warmup, "active": args.active, "repeat": args.repeat},
        "total_steps": len(records),
        "scheduled_steps": scheduled,
        "steps": steps,
        "step_ms": step_ms,
        "handler_calls": handler.calls,
        "cycles": [{key: cycle[key] for key in CYCLE_KEYS} for cycle in handler.cycles],
        "second_export_error": handler.second_export_error,
        "phases": phases,
        "step_records": records,
        "top_ops": _ops_for_result(top_ops),
        "key_averages_top": key_averages_top,
        "annotations": analysis["annotations"],
        "layers": layers,
        "bottleneck": bottleneck,
        "planted_layer": planted[0],
        "planted_description": planted[1],
        "data_loading_share": share,
        "first_step_ms": first_step_ms,
        "later_step_ms": later_step_ms,
        "baseline_steps_ms": [r["wall_ms"] for r in baseline],
        "profiled_step_ms": profiled_step_ms,
        "unprofiled_step_ms": unprofiled_step_ms,
        "unprofiled_steps": [r["step"] for r in after],
        "overhead_ratio": overhead_ratio,
        "overhead_ratio_compute": overhead_ratio_compute,
        "first_compute_ms": baseline[0]["compute_ms"],
        "later_compute_ms": statistics.fmean(r["compute_ms"] for r in later),
        "workers_run": workers,
        "trace_path": first_cycle["trace"],
        "tensorboard_dir": str(tensorboard_dir),
        "tensorboard_files": [c["tensorboard_trace"] for c in handler.cycles],
        "memory_peak_mb": analysis["memory_peak_mb"],
        "artifacts": artifacts,
    }
    if args.memory:
        result["memory_by_op"] = first_cycle["memory"]
    if args.shapes:
        result["shapes"] = first_cycle["shapes"]
    if args.stack:
        result["stacks"] = first_cycle["stacks"]

    result["tables"] = _run_tables(result, top_ops, key_averages, analysis, records, scheduled)
    result["findings"] = _run_findings(result, args, top_ops, analysis)
    result["plots"] = [
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
                {f"num_workers={args.workers}": [r["wall_ms"] for r in workers_run["records"]]}
                if workers_run
                else {}
            ),
            "xlabel": "step",
            "ylabel": "ms",
        },
    ]
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
    parts.append(f"프로파일러 오버헤드 {overhead_ratio:.2f}×")
    result["summary"] = " · ".join(parts)
    return result


def _ops_for_result(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"name": r["name"], "self_ms": r["self_ms"], "calls": r["calls"], "total_ms": r["total_ms"]}
        for r in rows
    ]


def _ops_table(
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


def _layers_table(layers: dict[str, float], layers_mean: dict[str, float], step_ms: float | None) -> dict:
    rows = []
    for label, ms in sorted(layers.items(), key=lambda kv: -kv[1]):
        rows.append([label, ms, layers_mean.get(label), ms / step_ms if step_ms else None])
    return {
        "title": "층별 forward 시간 (record_function 라벨, 스텝당)",
        "columns": ["layer", "median_ms", "mean_ms", "share_of_step"],
        "rows": rows,
    }


def _run_tables(result, top_ops, key_averages, analysis, records, scheduled) -> list[dict]:
    workers = result["workers_run"]
    tables = [
        _ops_table(
            f"self CPU 시간 상위 연산자 (num_workers=0, 기록된 {len(result['steps'])} 스텝 합)",
            top_ops,
            key_averages,
            device=result["device"] == "cuda",
        ),
        _layers_table(result["layers"], analysis["layers_mean"], result["step_ms"]),
        {
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
        },
        {
            "title": "DataLoader num_workers 비교 (프로파일된 스텝)",
            "columns": ["num_workers", "step_ms", "data_loading_share", "first_step_ms"],
            "rows": [[0, result["step_ms"], result["data_loading_share"], records[0]["wall_ms"]]]
            + (
                [
                    [
                        workers["num_workers"],
                        workers["step_ms"],
                        workers["data_loading_share"],
                        workers["first_step_ms"],
                    ]
                ]
                if workers
                else []
            ),
        },
        {
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
        },
    ]
    if result.get("memory_by_op"):
        tables.append(
            {
                "title": "연산자별 메모리 (profile_memory, self CPU MB; 음수 = 해제)",
                "columns": ["operator", "self_cpu_mb", "cpu_mb", "calls"],
                "rows": [
                    [r["name"], r["self_cpu_mb"], r["cpu_mb"], r["calls"]] for r in result["memory_by_op"]
                ],
            }
        )
    if result.get("shapes"):
        tables.append(
            {
                "title": "상위 연산자의 입력 shape (record_shapes)",
                "columns": ["operator", "input_shapes", "self_ms", "calls"],
                "rows": [[r["name"], r["input_shapes"], r["self_ms"], r["calls"]] for r in result["shapes"]],
            }
        )
    if result.get("stacks"):
        tables.append(
            {
                "title": "상위 연산자를 부른 내 코드 (with_stack)",
                "columns": ["operator", "self_ms", "calls", "origin"],
                "rows": [[r["name"], r["self_ms"], r["calls"], r["origin"]] for r in result["stacks"]],
            }
        )
    return tables


# --------------------------------------------------------------------------- findings (Korean)


def _top_op_findings(top_ops: list[dict[str, Any]]) -> list[str]:
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


def _bottleneck_finding(layers: dict[str, float], bottleneck: str, step_ms: float | None) -> str:
    others = [ms for label, ms in layers.items() if label != bottleneck]
    text = f"forward가 가장 긴 층은 {bottleneck} ({layers[bottleneck]:.2f} ms/step)"
    if others and sum(others) > 0:
        text += f"로, 나머지 {len(others)}개 층을 합한 {sum(others):.2f} ms의 {layers[bottleneck] / sum(others):.1f}배입니다"
    else:
        text += "입니다"
    if step_ms:
        text += f" (스텝 시간의 {layers[bottleneck] / step_ms:.0%}, backward는 별도)"
    return text + "."


def _data_finding(share: float, workers: dict[str, Any] | None) -> str:
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


def _viewer_finding(trace: str, tensorboard_dir: str | None) -> str:
    text = f"타임라인 보기: {trace} 를 ui.perfetto.dev에 끌어다 놓거나 chrome://tracing에서 Load 하세요 (.gz도 열립니다)."
    if tensorboard_dir:
        installed = importlib.util.find_spec("torch_tb_profiler") is not None
        text += (
            f" TensorBoard: tensorboard --logdir {tensorboard_dir} (torch-tb-profiler 플러그인 "
            f"{'설치됨' if installed else '미설치'}; 이 플러그인은 0.4.3(2023) 이후 deprecated라 "
            "PyTorch 튜토리얼은 Perfetto·HTA를 권합니다)."
        )
    return text


def _setup_finding(setup: dict[str, Any]) -> str:
    text = f"모델과 optimizer를 처음 만드는 데 {setup['model_setup_ms']:.0f} ms가 걸렸습니다"
    if setup["setup_imported_dynamo"]:
        text += " — 프로세스에서 처음 쓰인 torch.optim이 torch._dynamo를 import했기 때문입니다"
    return text + ". 이런 1회성 비용은 스텝 밖에도 있어, 첫 실행의 전체 시간으로 성능을 판단하면 안 됩니다."


def _run_findings(result: dict[str, Any], args: argparse.Namespace, top_ops, analysis) -> list[str]:
    findings = []
    if result["bottleneck"]:
        text = _bottleneck_finding(result["layers"], result["bottleneck"], result["step_ms"])
        same = result["bottleneck"] == result["planted_layer"]
        text += (
            f" 모델에 일부러 심어 둔 무거운 층({result['planted_layer']}: {result['planted_description']})과 "
            f"{'일치합니다' if same else '다릅니다 — 이 기계에서는 다른 층이 더 느렸습니다'}."
        )
        findings.append(text)
    findings += _top_op_findings(top_ops)
    if result["data_loading_share"] is not None:
        findings.append(_data_finding(result["data_loading_share"], result["workers_run"]))
    workers = result["workers_run"]
    if workers:
        recorded_first = 0 in result["scheduled_steps"]
        findings.append(
            f"num_workers={workers['num_workers']} 실행의 첫 스텝은 {workers['first_step_ms']:.0f} ms: spawn 워커가 "
            "각자 torch를 import하는 시작 비용입니다. "
            + (
                "이번 schedule은 첫 스텝부터 기록해서 이 1회성 비용이 트레이스와 평균에 들어갔습니다 "
                if recorded_first
                else "한 번뿐인 비용이라 wait/warmup 단계가 기록에서 빼 줍니다 "
            )
            + "(에폭마다 반복되지 않게 하려면 persistent_workers=True)."
        )
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
    text += " schedule은 wait 스텝을 건너뛰고 warmup 스텝은 추적만 하고 버린 뒤 active 스텝부터 기록합니다."
    findings.append(text)
    if args.warmup == 0:
        recorded = [r["wall_ms"] for r in result["step_records"] if r["step"] in result["scheduled_steps"]]
        text = (
            'warmup=0으로 실행했습니다: torch가 "Profiler won\'t be using warmup, this can skew profiler results" '
            "경고를 냅니다. 추적을 켜는 비용이 첫 기록 스텝에 섞이기 때문입니다"
        )
        if len(recorded) > 1:
            text += (
                f" (첫 기록 스텝 {recorded[0]:.1f} ms, 나머지 평균 {statistics.fmean(recorded[1:]):.1f} ms)"
            )
        findings.append(text + ".")
    counts = ", ".join(f"{name} {p['steps']}" for name, p in result["phases"].items())
    steps = result["steps"]
    findings.append(
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
    findings.append(
        f"프로파일러 오버헤드: 기록 중 스텝 {result['profiled_step_ms']:.1f} ms / 같은 루프에서 사이클이 끝난 뒤 "
        f"프로파일러 없이 돈 스텝 {result['unprofiled_step_ms']:.1f} ms = {ratio:.2f}배 "
        f"(데이터 대기를 뺀 계산만 {compute:.2f}배) — {verdict}. 연산자가 많고 작을수록, "
        "with_stack·record_shapes·profile_memory를 켤수록 커집니다. 그래서 몇 스텝만 active로 기록하고, "
        "시간 자체를 비교할 때는 프로파일러 없이 잰 값을 씁니다."
    )
    findings.append(_viewer_finding(result["trace_path"], result["tensorboard_dir"]))
    if result["device"] == "cuda":
        device_ms = analysis.get("device_ms")
        findings.append(
            f"CUDA 사용: ProfilerActivity.CUDA로 GPU 커널도 기록했습니다 (커널 합계 "
            f"{device_ms or 0:.2f} ms; key_averages의 device_time_total). 시간은 torch.cuda.synchronize() 뒤에 쟀습니다. "
            "Nsight Systems(nsys profile)는 여기에 CUDA API 호출, 커널·memcpy 겹침, OS 스레드, NVTX 구간을 한 "
            "타임라인으로 더해 줍니다."
        )
    else:
        findings.append(
            "CPU only: CUDA가 없어 CPU 활동만 기록했습니다. GPU가 있으면 이 실습은 ProfilerActivity.CUDA를 더해 커널 "
            "시간(device_time_total)을 보고하고, 시간을 재기 전에 torch.cuda.synchronize()를 부릅니다 — GPU 연산은 "
            "비동기라 안 그러면 실행 시간이 아닌 '발사' 시간만 잽니다. Nsight Systems(nsys profile)는 CUDA API, "
            "커널·memcpy, NVTX 구간을 한 타임라인에서 보여 줍니다."
        )
    if result.get("shapes"):
        row = result["shapes"][0]
        findings.append(
            f"record_shapes: self time 1위 {row['name']}의 입력 shape은 {row['input_shapes']} — 같은 연산자라도 "
            "shape별로 나눠 보면 어느 층의 호출인지 알 수 있습니다 (key_averages(group_by_input_shape=True))."
        )
    if result.get("stacks"):
        row = result["stacks"][0]
        findings.append(
            f"with_stack: {row['name']} {row['self_ms']:.2f} ms를 부른 내 코드는 {row['origin']}입니다 "
            "(backward 연산에는 그것을 만든 forward 호출의 stack이 붙습니다)."
        )
    if result.get("memory_peak_mb"):
        peak = max(result["memory_peak_mb"].values())
        findings.append(
            f"profile_memory: 기록 구간의 최대 할당량 {peak:.1f} MB (트레이스의 [memory] 이벤트)."
        )
    return findings
