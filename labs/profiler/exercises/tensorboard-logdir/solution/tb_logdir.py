"""A logdir for the TensorBoard profiler plugin, and what its Overview shows (reference solution)."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

STEPS = 5  # wait 1 + warmup 1 + active 3
STEP_PREFIX = "ProfilerStep#"
GPU_WORK = ("kernel", "gpu_memcpy", "gpu_memset")  # what the Overview counts before CPU Exec


def write_logdir(logdir: str, workloads: dict[str, Callable[[], None]]) -> None:
    """Profile each workload into its own run folder under logdir, gzipped."""
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    for name, step in workloads.items():
        # The plugin reads every folder holding *.pt.trace.json[.gz] as one run: one folder per run.
        handler = tensorboard_trace_handler(os.path.join(logdir, name), use_gzip=True)
        with profile(
            activities=activities,
            schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
            on_trace_ready=handler,
        ) as prof:
            for _ in range(STEPS):
                step()
                prof.step()


def merged_length(intervals: list[tuple[float, float]]) -> float:
    """Total length covered by possibly overlapping intervals (nested ops count once)."""
    covered = 0.0
    end = float("-inf")
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        covered += stop - max(start, end)
        end = stop
    return covered


def clipped(intervals: list[tuple[float, float]], start: float, stop: float) -> list[tuple[float, float]]:
    """The parts of the intervals inside [start, stop]."""
    return [(max(a, start), min(b, stop)) for a, b in intervals if a < stop and b > start]


def read_overview(run_dir: str) -> dict[str, Any]:
    """What the Overview's step time breakdown shows for this run:
    {"steps": int, "step_ms": float, "cpu_exec_pct": float, "other_pct": float}."""
    (path,) = sorted(Path(run_dir).glob("*.pt.trace.json*"))
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        events = [e for e in json.load(handle)["traceEvents"] if e.get("ph") == "X"]

    def spans(categories: tuple[str, ...]) -> list[tuple[float, float]]:
        return [(e["ts"], e["ts"] + e["dur"]) for e in events if e.get("cat") in categories]

    # A GPU trace repeats each ProfilerStep as a gpu_user_annotation: only the CPU's copy is a step.
    steps = [
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") == "user_annotation" and e.get("name", "").startswith(STEP_PREFIX)
    ]
    ops = spans(("cpu_op",))
    gpu = spans(GPU_WORK)
    step_total = sum(stop - start for start, stop in steps)
    if not step_total:  # no step recorded (or only empty ones): nothing to break down
        return {"steps": len(steps), "step_ms": 0.0, "cpu_exec_pct": 0.0, "other_pct": 0.0}
    gpu_busy = cpu_or_gpu = 0.0
    for start, stop in steps:
        # The Overview gives a moment with GPU work to Kernel/Memcpy/Memset, before CPU Exec.
        gpu_busy += merged_length(clipped(gpu, start, stop))
        cpu_or_gpu += merged_length(clipped(ops + gpu, start, stop))
    return {
        "steps": len(steps),
        "step_ms": step_total / len(steps) / 1000,
        "cpu_exec_pct": 100 * (cpu_or_gpu - gpu_busy) / step_total,
        "other_pct": 100 * (step_total - cpu_or_gpu) / step_total,
    }
