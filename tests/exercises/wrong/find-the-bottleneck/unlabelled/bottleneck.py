"""A WRONG solution of find-the-bottleneck: no record_function labels; it guesses the stage with
the most parameters (all stages have the same, so it always says the first one)."""

from __future__ import annotations

from typing import Any

from torch.profiler import ProfilerActivity, profile


def find_bottleneck(model: Any, batch: Any, trace_path: str) -> str:
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            model(batch)
    prof.export_chrome_trace(trace_path)
    sizes = {name: sum(p.numel() for p in stage.parameters()) for name, stage in model.stages.items()}
    return max(sizes, key=lambda name: sizes[name])
