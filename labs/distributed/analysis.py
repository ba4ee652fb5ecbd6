"""The arithmetic of the distributed lab: intervals, step decomposition, fits, trace reading.

Standard library only (no torch): the parent process, the tests and a learner's own scripts use it
on plain numbers and on the Chrome trace JSON that torch.profiler writes.

Clocks: every timer in a worker is `time.perf_counter()` of that worker (monotonic, sub-µs); trace
times are the profiler's µs. Durations are compared between the two, timestamps never are.
"""

from __future__ import annotations

import gzip
import json
import math
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

Interval = tuple[float, float]


# ---------------------------------------------------------------------------------------------
# Intervals
# ---------------------------------------------------------------------------------------------


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of intervals as sorted, disjoint intervals (empty and reversed ones dropped)."""
    merged: list[list[float]] = []
    for start, end in sorted((s, e) for s, e in intervals if e > s):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def union_length(intervals: Iterable[Interval]) -> float:
    """Time covered by at least one interval: two collectives running at once count once."""
    return sum(end - start for start, end in merge(intervals))


def covered_within(intervals: Iterable[Interval], window_start: float, window_end: float) -> float:
    """Time inside [window_start, window_end] covered by at least one interval."""
    clipped = ((max(s, window_start), min(e, window_end)) for s, e in intervals)
    return union_length(clipped)


# ---------------------------------------------------------------------------------------------
# One DDP step, from the timers of the comm hook
# ---------------------------------------------------------------------------------------------


def decompose_step(
    step_start: float,
    step_end: float,
    launches: Sequence[float],
    dones: Sequence[float],
    segments: Sequence[tuple[int, int]] | None = None,
) -> dict[str, float]:
    """Split one synchronised step into communication that was hidden and communication that was waited for.

    `launches[i]`/`dones[i]`: when the comm hook handed bucket i to all-reduce and when its result
    came back. The last launch of a backward pass is when it produced its last gradient:
    communication still in flight after it is *exposed* (backward has nothing left to compute, the
    step waits for it); communication before it ran while backward was still computing
    (*overlapped*). `segments`: the (first, end) launch indices of each backward pass when a step
    has several (gradient accumulation); default one pass.
    """
    # A collective may finish before the clock after its launch is read: its span starts at `done` then.
    spans = [(min(launch, done), done) for launch, done in zip(launches, dones, strict=True)]
    launches = [start for start, _ in spans]
    record = {
        "step_s": step_end - step_start,
        "comm_s": union_length(spans),
        "exposed_s": 0.0,
        "comm_sum_s": sum(done - launch for launch, done in spans),
        "buckets": len(spans),
        "spans": [(launch - step_start, done - step_start) for launch, done in spans],
    }
    for first, end in segments if segments is not None else [(0, len(spans))]:
        if end > first:
            last_launch = max(launches[first:end])
            record["exposed_s"] += covered_within(spans[first:end], last_launch, math.inf)
    return record


def summarise_steps(records: Sequence[dict[str, float]]) -> dict[str, float]:
    """Medians over steps, made consistent by construction.

    step, communication and exposed communication are medians of the per-step values; then
    compute = step − exposed and overlap = communication − exposed. Exposed ≤ communication and
    exposed ≤ step hold in every step, so they hold for the medians too (order statistics keep
    order): nothing comes out negative, and step = compute + exposed, communication = overlap +
    exposed exactly.
    """
    if not records:
        raise ValueError("no steps were measured")
    step_s = statistics.median(r["step_s"] for r in records)
    comm_s = statistics.median(r.get("comm_s", 0.0) for r in records)
    exposed_s = statistics.median(r.get("exposed_s", 0.0) for r in records)
    summary = {
        "steps": len(records),
        "step_s": step_s,
        "comm_s": comm_s,
        "exposed_s": exposed_s,
        "compute_s": step_s - exposed_s,
        "overlap_s": comm_s - exposed_s,
        "buckets": statistics.median(r.get("buckets", 0) for r in records),
        "step_spread_s": spread(r["step_s"] for r in records),
    }
    summary.update(shares(summary))
    return summary


def shares(summary: dict[str, float]) -> dict[str, float]:
    """Shares of the step: compute + exposed = 1; overlap as a fraction of communication."""
    step_s, comm_s = summary["step_s"], summary["comm_s"]
    return {
        "compute_share": summary["compute_s"] / step_s if step_s > 0 else 0.0,
        "exposed_share": summary["exposed_s"] / step_s if step_s > 0 else 0.0,
        "comm_share": comm_s / step_s if step_s > 0 else 0.0,
        "overlap_fraction": summary["overlap_s"] / comm_s if comm_s > 0 else 0.0,
    }


def spread(values: Iterable[float]) -> float:
    """Interquartile range (0 for fewer than 4 values): how noisy a median is."""
    data = sorted(values)
    if len(data) < 4:
        return data[-1] - data[0] if data else 0.0
    q1, _, q3 = statistics.quantiles(data, n=4)
    return q3 - q1


# ---------------------------------------------------------------------------------------------
# All-reduce: latency and bandwidth
# ---------------------------------------------------------------------------------------------


def ring_factor(world_size: int) -> float:
    """Bytes each rank sends per byte of the message in a ring all-reduce: 2(N − 1)/N."""
    return 2.0 * (world_size - 1) / world_size


def fit_latency_bandwidth(sizes_bytes: Sequence[float], times_s: Sequence[float]) -> dict[str, float]:
    """Least squares t(S) = α + S/β over the measured sizes (α latency in s, β bytes/s).

    Each point is weighted by 1/t, so the small, latency-bound messages are not drowned by the
    large ones (an ordinary fit would let a 1 % error at 16 MB swamp the whole latency).
    α is kept ≥ 0: a negative intercept means the smallest messages were too noisy to see it.
    """
    if len(sizes_bytes) < 2:
        raise ValueError("need at least two message sizes")
    weights = [1.0 / (t * t) for t in times_s]
    sw = sum(weights)
    mx = sum(w * s for w, s in zip(weights, sizes_bytes, strict=True)) / sw
    my = sum(w * t for w, t in zip(weights, times_s, strict=True)) / sw
    sxx = sum(w * (s - mx) ** 2 for w, s in zip(weights, sizes_bytes, strict=True))
    sxy = sum(w * (s - mx) * (t - my) for w, s, t in zip(weights, sizes_bytes, times_s, strict=True))
    slope = sxy / sxx if sxx > 0 else 0.0
    alpha = my - slope * mx
    if alpha < 0 or slope <= 0:  # refit through the origin (no latency seen) or fall back
        alpha = max(alpha, 0.0)
        slope = max(
            sum(w * s * (t - alpha) for w, s, t in zip(weights, sizes_bytes, times_s, strict=True))
            / sum(w * s * s for w, s in zip(weights, sizes_bytes, strict=True)),
            1e-15,
        )
    beta = 1.0 / slope
    return {"latency_s": alpha, "bandwidth_Bps": beta, "crossover_bytes": alpha * beta}


# ---------------------------------------------------------------------------------------------
# Amdahl with a communication term
# ---------------------------------------------------------------------------------------------


def fit_compute(points: Sequence[tuple[int, float]]) -> dict[str, float]:
    """Least squares compute(N) = a + b/N over (N, seconds) points.

    a is the part that does not shrink with more processes (every rank still runs the optimizer on
    all parameters, launches the same kernels); b/N the part that splits with the batch.
    """
    if len({n for n, _ in points}) < 2:
        raise ValueError("need compute times for at least two process counts")
    xs = [1.0 / n for n, _ in points]
    ys = [t for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    a = my - b * mx
    if b < 0:  # more processes computed slower (time-shared cores): nothing measurably split
        a, b = my, 0.0
    elif a < 0:  # superlinear-looking noise: all of it splits
        a, b = 0.0, sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs)
    return {"fixed_s": a, "split_s": b}


def ring_comm_s(
    world_size: int, grad_bytes: float, buckets: float, latency_s: float, bandwidth_Bps: float
) -> float:
    """Model time of one step's all-reduces: per bucket the latency, plus 2(N−1)/N × size / bandwidth.

    `latency_s` and `bandwidth_Bps` are those measured at `reference_world` by the sweep; the
    latency of a ring grows with the number of hops, 2(N − 1), so it is scaled by that.
    """
    if world_size <= 1:
        return 0.0
    return buckets * latency_s * (world_size - 1) + ring_factor(world_size) * grad_bytes / bandwidth_Bps


def amdahl_with_comm(
    measured: dict[int, float],
    compute: dict[int, float],
    grad_bytes: float,
    buckets: float,
    latency_s: float,
    bandwidth_Bps: float,
    sweep_world: int,
    predict_to: int = 64,
) -> dict[str, Any]:
    """Fit step(N) = compute(N) + c · comm(N) and extrapolate.

    compute(N) = a + b/N comes from the no-communication (no_sync) steps; comm(N) is the ring model
    with the latency and bandwidth of the all-reduce sweep; c (the exposed multiplier) is fitted on
    the measured synchronised steps: c < 1 means overlap hid part of the wire time, c > 1 that
    communication cost more than the wire time (CPU contention, a rank waiting for a slower one).
    """
    fit = fit_compute(sorted(compute.items()))
    a, b = fit["fixed_s"], fit["split_s"]
    # The sweep's latency is per call at `sweep_world` ranks; per hop it is that / (N_sweep − 1).
    hop_latency = latency_s / max(sweep_world - 1, 1)

    def wire(n: int) -> float:
        return ring_comm_s(n, grad_bytes, buckets, hop_latency, bandwidth_Bps)

    pairs = [(wire(n), t - (a + b / n)) for n, t in measured.items() if n > 1]
    sxx = sum(x * x for x, _ in pairs)
    multiplier = max(sum(x * y for x, y in pairs) / sxx, 0.0) if sxx > 0 else 0.0
    t1 = measured.get(1, a + b)
    predicted = {}
    for n in range(1, predict_to + 1):
        step = a + b / n + multiplier * wire(n)
        predicted[n] = {
            "step_s": step,
            "compute_s": a + b / n,
            "comm_s": multiplier * wire(n),
            "speedup": t1 / step,
            "efficiency": t1 / (n * step),
        }
    best_n = max(predicted, key=lambda n: predicted[n]["speedup"])
    # Past best_n one more process saves b/n − b/(n+1) of compute and adds more than that of communication.
    residuals = {n: t - predicted[n]["step_s"] for n, t in measured.items() if n in predicted}
    limit_comm = multiplier * (2 * grad_bytes / bandwidth_Bps)  # the bandwidth term as N → ∞
    return {
        "fixed_s": a,
        "split_s": b,
        "hop_latency_s": hop_latency,
        "comm_multiplier": multiplier,
        "predicted": predicted,
        "best_n": best_n,
        "best_speedup": predicted[best_n]["speedup"],
        "residuals_s": residuals,
        "bandwidth_term_limit_s": limit_comm,
        "no_comm_limit": t1 / a if a > 0 else math.inf,
    }


def karp_flatt(speedup: float, n: int) -> float:
    """The serial fraction a measured speedup implies (the amdahl lab's laws.karp_flatt)."""
    from labs.amdahl.laws import karp_flatt as law

    return law(speedup, n)


# ---------------------------------------------------------------------------------------------
# The profiler trace
# ---------------------------------------------------------------------------------------------


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    """The complete ('X') events of a Chrome trace file (.json or .json.gz)."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "dur" in e]


def is_collective(event: dict[str, Any]) -> bool:
    """A collective as it executes on a backend thread: gloo:all_reduce, nccl:all_reduce, ..."""
    name = str(event.get("name", ""))
    return name.startswith(("gloo:", "nccl:"))


def is_enqueue(event: dict[str, Any]) -> bool:
    """The op on the calling thread that hands a collective to the backend (returns at once when async)."""
    return str(event.get("name", "")).startswith("c10d::") and event.get("cat") == "cpu_op"


def trace_comm_analysis(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Communication share and overlap of the ProfilerStep#N spans of one rank's trace.

    Execution: union of the collectives' spans on the backend threads (when a gloo thread ran the
    all-reduce). Launch to done: from the c10d:: op that queued each collective to the end of its
    execution — what a timer around the collective (the comm hook) sees. The difference is the
    time a collective waited in the queue for a free backend thread.
    """
    steps = sorted(
        (e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"]
    )
    collectives = sorted((e for e in events if is_collective(e)), key=lambda e: e["ts"])
    enqueues = sorted((e for e in events if is_enqueue(e)), key=lambda e: e["ts"])
    per_step = []
    for step in steps:
        start, end = float(step["ts"]), float(step["ts"]) + float(step["dur"])
        # every collective running during the step counts (clipped to it); those that started in
        # it are the ones its c10d:: calls queued
        running = [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in collectives]
        running = [(a, b) for a, b in running if a < end and b > start]
        executing = [(a, b) for a, b in running if start <= a]
        queued_at = [float(e["ts"]) for e in enqueues if start <= float(e["ts"]) < end]
        # The backend runs its queue in order: the i-th queued collective is the i-th to start.
        paired = list(zip(queued_at, executing, strict=False))
        # a collective carried over from the previous step was queued there: it still counts
        # here while it runs, so launch-to-done covers at least the execution
        carried = [(a, b) for a, b in running if a < start]
        launch_to_done = (
            [(min(q, x_start), x_end) for q, (x_start, x_end) in paired] + executing[len(paired) :] + carried
        )
        queue_waits = [max(0.0, x_start - q) for q, (x_start, _) in paired]
        last_launch = max(queued_at) if queued_at else end
        comm = covered_within(running, start, end)
        exposed = covered_within(running, last_launch, end)
        per_step.append(
            {
                # per collective, seconds from the step's start: queued, started, ended
                "timeline": [
                    ((q - start) / 1e6, (a - start) / 1e6, (b - start) / 1e6) for q, (a, b) in paired
                ],
                "step_s": (end - start) / 1e6,
                "comm_s": comm / 1e6,
                "exposed_s": exposed / 1e6,
                "launch_to_done_s": covered_within(launch_to_done, start, end) / 1e6,
                "queue_wait_s": sum(queue_waits) / 1e6,
                "collectives": len(executing),
                "enqueued": len(queued_at),
                "comm_sum_s": sum(min(b, end) - max(a, start) for a, b in running) / 1e6,
            }
        )
    total_step = sum(s["step_s"] for s in per_step)
    totals = {
        key: sum(s[key] for s in per_step)
        for key in ("comm_s", "exposed_s", "launch_to_done_s", "queue_wait_s", "comm_sum_s")
    }
    threads = {e.get("tid") for e in collectives}
    return {
        "steps": len(per_step),
        "step_s": total_step,
        **totals,
        "comm_share": totals["comm_s"] / total_step if total_step > 0 else 0.0,
        "launch_to_done_share": totals["launch_to_done_s"] / total_step if total_step > 0 else 0.0,
        "overlap_fraction": (totals["comm_s"] - totals["exposed_s"]) / totals["comm_s"]
        if totals["comm_s"] > 0
        else 0.0,
        "collectives": sum(s["collectives"] for s in per_step),
        "collective_names": sorted({str(e["name"]) for e in collectives}),
        "backend_threads": len(threads),
        "per_step": per_step,
    }
