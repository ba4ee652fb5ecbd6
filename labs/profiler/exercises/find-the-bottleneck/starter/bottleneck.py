"""Find the slowest stage of a model with record_function (exercise find-the-bottleneck).

`model.stages` is an nn.ModuleDict: embed, encoder, mixer, head, applied in that order.
"""

from __future__ import annotations

from typing import Any

from torch.profiler import ProfilerActivity, profile


def find_bottleneck(model: Any, batch: Any, trace_path: str) -> str:
    """Profile a few forward passes, export the trace to trace_path, return the slowest stage's name."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        # TODO 1: run the stages one by one, each inside record_function(f"stage:{name}"),
        #         instead of the whole model at once (its stages are invisible in the profile).
        for _ in range(3):
            model(batch)
    prof.export_chrome_trace(trace_path)
    # TODO 2: pick the "stage:..." row of prof.key_averages() with the largest cpu_time_total.
    return "unknown"
