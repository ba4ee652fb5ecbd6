"""`lab profiler --trace` grows linearly with the trace (review 2026-12, N1: it was quadratic).

Two shapes that were quadratic: many short steps (every step re-merged every category's time) and
annotations nested in one another (every event walked all its ancestors). Four times the events
must take well under sixteen times as long; the bound (8×) leaves room for n log n and a busy
machine. CPU time (process_time) is measured, so other processes on the machine matter less.
benchmarks/trace_analysis.py times the same views from 10⁴ to 10⁶ events.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from benchmarks.trace_analysis import synthetic_trace
from labs.profiler import trace_analysis, views

SMALL = 4000
GROWTH = 4
LINEAR_BOUND = 8.0  # linear: 4, n log n: ~4.5, quadratic: 16


def analysis_cpu_seconds(document: dict[str, Any], runs: int) -> float:
    """Least CPU time of `runs` full analyses (what `--trace` computes after loading)."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        trace_analysis.analyse_events(trace_analysis.complete_events(document))
        views.trace_views([("synthetic.json", document)])
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize(
    ("shape", "events_per_step"),
    [("steps", 14), ("nested", 1000)],
    ids=["many-short-steps", "nested-annotations"],
)
def test_trace_analysis_time_grows_linearly(shape: str, events_per_step: int) -> None:
    small = analysis_cpu_seconds(synthetic_trace(SMALL, shape, events_per_step=events_per_step), runs=3)
    large = analysis_cpu_seconds(
        synthetic_trace(SMALL * GROWTH, shape, events_per_step=events_per_step), runs=2
    )
    assert large / small < LINEAR_BOUND, (
        f"{GROWTH}× the events took {large / small:.1f}× the time ({small:.3f} s → {large:.3f} s)"
    )


def test_nested_layers_are_summed_per_enclosing_step() -> None:
    """The per-step sums that used ancestor walks: a layer inside a layer inside a step."""
    document = {
        "traceEvents": [
            {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
            {"ph": "X", "cat": "user_annotation", "name": "layer:outer", "pid": 1, "tid": 1, "ts": 1, "dur": 50},
            {"ph": "X", "cat": "user_annotation", "name": "layer:inner", "pid": 1, "tid": 1, "ts": 2, "dur": 20},
            {"ph": "X", "cat": "user_annotation", "name": "layer:inner", "pid": 1, "tid": 1, "ts": 30, "dur": 10},
            {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#it.__next__", "pid": 1,
             "tid": 1, "ts": 60, "dur": 30},
            {"ph": "X", "cat": "cpu_op", "name": "DataLoader inner op", "pid": 1, "tid": 1, "ts": 61, "dur": 5},
            {"ph": "X", "cat": "user_annotation", "name": "layer:free", "pid": 1, "tid": 1, "ts": 200, "dur": 4},
        ]
    }  # fmt: skip
    result = trace_analysis.analyse_events(trace_analysis.complete_events(document))
    assert result["layers"] == {"layer:free": 0.004, "layer:inner": 0.03, "layer:outer": 0.05}
    assert result["data_loading_ms"] == pytest.approx(0.03)  # the outer DataLoader event only
    assert result["data_loading_share"] == pytest.approx(0.3)
