"""A WRONG solution of tensorboard-logdir: CPU Exec adds up the ops' durations, so nested ops
(aten::linear around aten::addmm) count twice."""

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


def read_overview(run_dir: str) -> dict[str, Any]:
    """What the Overview's step time breakdown shows for this run:
    {"steps": int, "step_ms": float, "cpu_exec_pct": float, "other_pct": float}."""
    (path,) = sorted(Path(run_dir).glob("*.pt.trace.json*"))
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        events = [e for e in json.load(handle)["traceEvents"] if e.get("ph") == "X"]
    steps = [(e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name", "").startswith(STEP_PREFIX)]
    ops = [
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") == "cpu_op" and not e.get("name", "").startswith(STEP_PREFIX)
    ]
    step_total = sum(stop - start for start, stop in steps)
    busy = 0.0
    for start, stop in steps:
        inside = [(max(a, start), min(b, stop)) for a, b in ops if a < stop and b > start]
        busy += sum(b - a for a, b in inside)  # the bug: overlaps are counted again
    cpu_exec_pct = 100 * busy / step_total if step_total else 0.0
    return {
        "steps": len(steps),
        "step_ms": step_total / len(steps) / 1000 if steps else 0.0,
        "cpu_exec_pct": cpu_exec_pct,
        "other_pct": 100 - cpu_exec_pct if step_total else 0.0,
    }
