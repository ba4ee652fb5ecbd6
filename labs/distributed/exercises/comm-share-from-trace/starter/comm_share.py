"""DDP step의 통신 비율을 torch.profiler trace 하나(rank 하나)에서 잰다.

The communication share of DDP training steps, read from one rank's Chrome trace (README.md).
"""

from __future__ import annotations

import json
from typing import Any


def load_events(trace_path: str) -> list[dict[str, Any]]:
    """The trace's complete events ("ph": "X"): each has name, cat, tid, ts and dur (µs). Done for you."""
    with open(trace_path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [event for event in data["traceEvents"] if event.get("ph") == "X"]


def communication_share(trace_path: str) -> dict[str, float]:
    """{"steps": how many ProfilerStep#N spans, "step_s": their total time in seconds,
    "comm_s": time inside those steps during which at least one gloo collective ran (seconds),
    "share": comm_s / step_s}."""
    events = load_events(trace_path)
    raise NotImplementedError(
        f"TODO: communication_share(trace_path): steps, step_s, comm_s, share from {len(events)} events"
    )
