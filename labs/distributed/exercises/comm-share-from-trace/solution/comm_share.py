"""DDP step의 통신 비율을 torch.profiler trace 하나(rank 하나)에서 잰다.

The communication share of DDP training steps, read from one rank's Chrome trace (README.md).
"""

from __future__ import annotations

import json
from typing import Any

Span = tuple[float, float]


def load_events(trace_path: str) -> list[dict[str, Any]]:
    """The trace's complete events ("ph": "X"): each has name, cat, tid, ts and dur (µs). Done for you."""
    with open(trace_path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [event for event in data["traceEvents"] if event.get("ph") == "X"]


def spans(events: list[dict[str, Any]], prefix: str) -> list[Span]:
    """(start, end) in µs of the events whose name starts with `prefix`."""
    return [(e["ts"], e["ts"] + e["dur"]) for e in events if e["name"].startswith(prefix)]


def union_within(intervals: list[Span], start: float, end: float) -> float:
    """Time in [start, end] covered by at least one interval: two gloo threads at once count once."""
    covered, reached = 0.0, start
    for a, b in sorted((max(a, start), min(b, end)) for a, b in intervals if a < end and b > start):
        if b > reached:
            covered += b - max(a, reached)
            reached = b
    return covered


def communication_share(trace_path: str) -> dict[str, float]:
    """{"steps": how many ProfilerStep#N spans, "step_s": their total time in seconds,
    "comm_s": time inside those steps during which at least one gloo collective ran (seconds),
    "share": comm_s / step_s}."""
    events = load_events(trace_path)
    steps = spans(events, "ProfilerStep#")
    # gloo:all_reduce, gloo:broadcast, ... on gloo's own threads: when a collective executed. The
    # c10d::allreduce_ op on the main thread only queued it (it returns at once).
    collectives = spans(events, "gloo:")
    step_us = sum(end - start for start, end in steps)
    comm_us = sum(union_within(collectives, start, end) for start, end in steps)
    return {
        "steps": len(steps),
        "step_s": step_us / 1e6,
        "comm_s": comm_us / 1e6,
        "share": comm_us / step_us if step_us > 0 else 0.0,
    }
