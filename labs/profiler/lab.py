"""PyTorch 프로파일러로 병목 찾기 — find the bottleneck of a training loop with torch.profiler.

What runs (model: labs/profiler/model.py):
  1. baseline   the training loop without a profiler: first-step vs later-step time (warm-up)
  2. profiled   the same loop, num_workers=0, under `profile(schedule=..., on_trace_ready=handler)`
                with `prof.step()` after every step; the handler (trace_handler.py) exports the
                Chrome trace once per cycle, writes the key_averages() table and a TensorBoard copy
  3. workers    the same profiled loop with DataLoader worker processes (`--workers`, default 2)
  4. compile    (`--compile`, optional) a small block eager and under `torch.compile`, each profiled
                (compile_compare.py): the first call's compile time, the step times, and two traces
                to read side by side; where no compiler works here, one line says why
Then the traces are read back (trace_analysis.py) to find the top operators by self time, the
forward time of every `layer:` label (the bottleneck is the largest), and the share of each step
spent waiting for data; report.py turns them into the tables and findings.

`--trace FILE` (trace_mode.py) reads a trace you recorded yourself (.json or .json.gz; a directory = one trace per
rank) and reports the same numbers without running a model — and without importing torch — plus
the TensorBoard plugin's views computed from the trace (views.py, tb_overview.py) and, for GPU
traces, HTA's analyses (gpu_analysis.py). `--compare A B` diffs two traces or two runs.
`--tensorboard` starts the real plugin on the run's logdir (optional extra).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labs._protocol import LabDependencyError, LabUsageError, parse_args, progress, serving
from labs.profiler import trace_analysis
from labs.profiler.report import build_report, setup_finding
from labs.profiler.trace_mode import add_views, analyse_trace_file, compare_traces

MAX_STEPS = 200  # (wait + warmup + active) × repeat: keeps a typo from running for an hour
MAX_WORKERS = 32
TOP = 10


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
        "--compile",
        action="store_true",
        help="also profile a small block eager and under torch.compile (needs a C++ compiler)",
    )
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
    try:
        if args.compare:
            return compare_traces(args.compare[0], args.compare[1], top=args.top)
        if args.trace:
            result = analyse_trace_file(args.trace, top=args.top)
    except MemoryError:  # one line, not a crash: the learner's trace is too big for this machine
        raise LabUsageError(
            "the trace does not fit in the memory this lab may use: analyse a shorter trace "
            "(fewer steps in the profiler's schedule)"
        ) from None
    if not args.trace:
        # Libraries that print must not write into the protocol stream on stdout.
        with contextlib.redirect_stdout(sys.stderr):
            result = run_model(args)
    if args.tensorboard:
        logdir = result.get("tensorboard_dir") or os.path.dirname(result["trace_files"][0])
        result["tensorboard"] = serve_tensorboard(logdir, result, args.serve_seconds)
    return result


# TensorBoard's phase after the measured work: its start (bounded by tensorboard_server.start) and
# reading the plugin's Overview; serving comes on top. Told to studyapp, which no longer times the lab.
TENSORBOARD_PHASE_S = 180.0


def serve_tensorboard(logdir: str, result: dict[str, Any], seconds: float | None) -> dict[str, Any]:
    """Run the real plugin on `logdir`, read its Overview beside ours, stop it when done.

    The measured report is complete before TensorBoard starts, so nothing here may lose it: Ctrl+C
    (SIGINT from studyapp) ends this phase at any point, and a TensorBoard that does not start is a
    finding, not a crash.
    """
    from labs.profiler import tensorboard_server as tbs

    progress("tensorboard", 0.97, f"TensorBoard 시작: {logdir}")
    serving(None, None if seconds is None else TENSORBOARD_PHASE_S + seconds)
    compared: dict[str, Any] = {}
    try:
        proc, url = tbs.start(logdir)
    except KeyboardInterrupt:
        return {"url": None, "logdir": logdir, "plugin_overview": {}, "error": "stopped before it answered"}
    except RuntimeError as exc:
        result.setdefault("findings", []).append(
            f"TensorBoard를 띄우지 못했습니다({exc}). 위 보고서는 그대로 유효합니다 — 다시 해 보거나 "
            f"직접 띄우세요: tensorboard --logdir {logdir}"
        )
        return {"url": None, "logdir": logdir, "plugin_overview": {}, "error": str(exc)}
    try:
        for run in tbs.runs(url):
            try:
                compared[run] = tbs.plugin_overview(url, run)
            except (OSError, ValueError, KeyError, IndexError) as exc:
                compared[run] = {"error": tbs.url_error_text(exc)}
        wait = "Ctrl+C로 끝냅니다" if seconds is None else f"{seconds:g}초 뒤 끝냅니다"
        progress("tensorboard", 0.99, f"TensorBoard: {url} ({wait})")
        print(f"TensorBoard profiler plugin: {url}/#pytorch_profiler ({wait})", file=sys.stderr)
        if seconds is None:
            while proc.poll() is None:
                time.sleep(0.5)
        else:
            time.sleep(seconds)
    except KeyboardInterrupt:
        pass  # Ctrl+C ends serving; the report still comes
    except (OSError, ValueError) as exc:  # the run list could not be read: serve no longer
        compared = compared or {"?": {"error": tbs.url_error_text(exc)}}
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
    progress("setup", 0.0, "torch import 중")
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
    progress("baseline", 0.05, f"profiler 없이 {settings.baseline_steps} step (기준)")
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

    compiled = compile_step(out) if args.compile else None
    progress("analysis", 0.95, "저장한 trace를 다시 읽는 중")
    result = build_report(
        args, settings, device, tensorboard_dir, scheduled, planted, baseline, main_run, workers_run
    )
    result.update(setup)
    warmup = next(i for i, text in enumerate(result["findings"]) if text.startswith("워밍업"))
    result["findings"].insert(warmup + 1, setup_finding(setup))
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
    if compiled is not None:
        add_compile_step(result, compiled)
    return result


def compile_step(out: Path) -> dict[str, Any]:
    """Step 4: eager vs torch.compile on a small block, or why it cannot run here."""
    from labs.profiler import compile_compare

    progress("compile", 0.9, "torch.compile 비교 (첫 호출은 컴파일 시간 포함)")
    reason = compile_compare.compile_available()
    if reason is not None:
        return {"available": False, "reason": reason}
    measured = compile_compare.record(out / "compile")
    return {
        "available": True,
        **measured,
        "traces": [str(out / "compile" / f"{n}.json") for n in ("eager", "compiled")],
    }


def add_compile_step(result: dict[str, Any], compiled: dict[str, Any]) -> None:
    result["compile"] = compiled
    if not compiled["available"]:
        result["findings"].append(f"torch.compile 비교를 건너뜀: {compiled['reason']}")
        return
    eager, fast = compiled["eager_step_ms"], compiled["compiled_step_ms"]
    result["tables"].append(
        {
            "title": "eager vs torch.compile (같은 블록, 스텝당)",
            "columns": ["mode", "step_ms", "first_call_s"],
            "rows": [
                {"mode": "eager", "step_ms": round(eager, 3), "first_call_s": None},
                {
                    "mode": "compiled",
                    "step_ms": round(fast, 3),
                    "first_call_s": round(compiled["first_compiled_call_s"], 3),
                },
            ],
        }
    )
    verdict = "빠릅니다" if fast < eager else "느립니다"
    result["findings"].append(
        f"torch.compile: 첫 호출 {compiled['first_compiled_call_s']:.2f}초(컴파일 포함), 이후 스텝 {fast:.2f} ms로 "
        f"eager {eager:.2f} ms보다 {eager / fast:.2f}배 — {verdict}. 두 trace를 나란히 열어 보세요: "
        f"{compiled['traces'][0]} / {compiled['traces'][1]} (compile 쪽에는 원소별 aten 연산 대신 CompiledFxGraph 호출)."
    )


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
    progress(run_name, fraction[0], f"{total_steps} step 프로파일링, DataLoader num_workers={num_workers}")
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
