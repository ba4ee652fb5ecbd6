"""Find the slowest stage of a model with record_function (reference solution of find-the-bottleneck)."""

from __future__ import annotations

from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, record_function

LABEL = "stage:"
STEPS = 3


def labelled_forward(model: Any, batch: Any) -> Any:
    """The model's forward pass, each stage under its own record_function label."""
    x = batch
    for name, stage in model.stages.items():
        with record_function(f"{LABEL}{name}"):
            x = stage(x)
    return x


def find_bottleneck(model: Any, batch: Any, trace_path: str) -> str:
    """Profile a few forward passes, export the trace to trace_path, return the slowest stage's name."""
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    with torch.no_grad():
        labelled_forward(model, batch)  # warm up: the first pass pays one-off costs
        with profile(activities=activities) as prof:
            for _ in range(STEPS):
                labelled_forward(model, batch)
    prof.export_chrome_trace(trace_path)
    # cpu_time_total includes the ops a label encloses: the stage's whole time. A label's self time is
    # only the Python and dispatch cost around those ops; it often points the same way, but misses
    # a stage of few heavy ops (one big matmul).
    stages = [row for row in prof.key_averages() if row.key.startswith(LABEL)]
    slowest = max(stages, key=lambda row: row.cpu_time_total)
    return slowest.key[len(LABEL) :]
