"""What the GPU did in a trace: busy or idle, on what kind of work, and why it waited.

These are the analyses Holistic Trace Analysis (HTA, on PyPI as `traceinsight`) made popular, written
here with nothing but the standard library so they run offline, without a GPU, on any trace file
(`.json` / `.json.gz`, CUDA or ROCm). The definitions follow HTA's, so the numbers can be checked
against it (tests/labs/test_profiler_gpu_traces.py does, on HTA's own sample traces):

GPU events
    Every event that runs on the device and has a stream: kernels, memcpy, memset (categories
    `kernel`, `gpu_memcpy`, `gpu_memset`) and stream synchronisation (`cuda_sync` with a stream).

Which steps
    A trace with two or more `ProfilerStep#N` annotations drops the GPU work launched in the last
    step (its kernels may not all have been captured when the profiler stopped): only GPU events
    whose launch (the CPU event with the same `correlation`) started before the last step are kept.

Temporal breakdown (per rank), as a share of the span first-GPU-event-start → last-end:
    idle         the span minus the union of all GPU events (no stream busy at all)
    compute      the union of computation kernels
    non-compute  the rest: memory copies/sets, communication, synchronisation not overlapping compute

Kernel types
    communication  names starting with `nccl` / `hccl` / `hip` (RCCL) or containing `ncclKernel`
    memory         names starting with `Memcpy` / `Memset` (or `hipMemcpy` …) / `dma`
    computation    everything else except synchronisation and launches (`…Sync`, `Stream Wait Event`)
    Each type's intervals are merged, then time is split by which types were running together, so
    "computation overlapping communication" is time when both ran at once.

Idle time per stream (gaps between consecutive GPU events on one stream):
    host wait    the next kernel was launched by the CPU only after the previous one had finished:
                 the GPU waited for the host (CPU-bound, launch-bound, data loading, a sync …)
    kernel wait  a short gap (< 30 µs) between back-to-back kernels: launch overhead
    other        the rest (waiting on another stream, an event, communication …)

Times are in microseconds inside this module; results are in ms and percent.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
SYNC_CATEGORY = "cuda_sync"
KERNEL_WAIT_US = 30.0  # HTA's consecutive_kernel_delay: shorter gaps are launch overhead
SHORT_KERNEL_US = 10.0  # a kernel shorter than this does less work than its launch costs
NO_STREAM = 2**32 - 1  # -1 written as unsigned: device-wide synchronisation, not a stream
_STEP_RE = re.compile(r"^ProfilerStep\s*#\s*(\d+)")
_COMM_RE = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
_MEMORY_RE = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
_NOT_COMPUTE_RE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^hip)|(^hccl)"
)
# CPU calls that make the host wait for the GPU, and what a learner can do about them
SYNC_CALLS = {
    "cudaStreamSynchronize": "cudaStreamSynchronize",
    "cudaDeviceSynchronize": "cudaDeviceSynchronize",
    "cudaEventSynchronize": "cudaEventSynchronize",
    "hipStreamSynchronize": "hipStreamSynchronize",
    "hipDeviceSynchronize": "hipDeviceSynchronize",
    "aten::item": ".item()",
    "aten::_local_scalar_dense": ".item()",
}
LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "hipLaunchKernel", "hipExtModuleLaunchKernel")


def kernel_type(name: str) -> str:
    """HTA's kernel classification: communication, memory, computation or other (sync, launches)."""
    if _COMM_RE.match(name):
        return "communication"
    if _MEMORY_RE.match(name):
        return "memory"
    if not _NOT_COMPUTE_RE.match(name):
        return "computation"
    return "other"


@dataclass
class GpuEvent:
    name: str
    cat: str
    ts: float
    dur: float
    stream: int
    correlation: int | None
    launch_ts: float | None = None  # when the CPU launched it (the runtime event's start)

    @property
    def end(self) -> float:
        return self.ts + self.dur


@dataclass
class CpuEvent:
    name: str
    cat: str
    ts: float
    dur: float
    tid: Any
    correlation: int | None

    @property
    def end(self) -> float:
        return self.ts + self.dur


@dataclass
class RankTrace:
    """One rank's events, split into host and device side."""

    rank: int
    gpu: list[GpuEvent] = field(default_factory=list)
    cpu: list[CpuEvent] = field(default_factory=list)
    steps: list[tuple[int, float, float]] = field(default_factory=list)  # (number, start, end)
    device_name: str | None = None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            return None
    return None


def rank_of(document: dict[str, Any], default: int) -> int:
    info = document.get("distributedInfo")
    rank = _int(info.get("rank")) if isinstance(info, dict) else None
    return default if rank is None else rank


def split_events(document: dict[str, Any], rank: int) -> RankTrace:
    """The complete events of a trace document as GPU and CPU events (malformed ones skipped)."""
    trace = RankTrace(rank)
    props = document.get("deviceProperties")
    if isinstance(props, list) and props and isinstance(props[0], dict):
        trace.device_name = str(props[0].get("name")) if props[0].get("name") else None
    for raw in document.get("traceEvents", []):
        if not isinstance(raw, dict) or raw.get("ph") != "X":
            continue
        name, cat = raw.get("name"), str(raw.get("cat", ""))
        ts, dur = _number(raw.get("ts")), _number(raw.get("dur"))
        if not isinstance(name, str) or ts is None or dur is None or dur < 0:
            continue
        args = raw.get("args") if isinstance(raw.get("args"), dict) else {}
        correlation = _int(args.get("correlation"))
        if cat in GPU_CATEGORIES or cat == SYNC_CATEGORY:
            stream = _int(args.get("stream"))
            if stream is None or stream < 0:
                continue  # device-wide syncs (Event/Context Sync) have no stream: not stream work
            trace.gpu.append(GpuEvent(name, cat, ts, dur, stream, correlation))
            continue
        trace.cpu.append(CpuEvent(name, cat, ts, dur, raw.get("tid"), correlation))
        match = _STEP_RE.match(name)
        if match:
            trace.steps.append((int(match.group(1)), ts, ts + dur))
    trace.steps.sort(key=lambda s: s[1])
    launches = {e.correlation: e.ts for e in trace.cpu if e.correlation is not None}
    for event in trace.gpu:
        event.launch_ts = launches.get(event.correlation)
    return trace


def steps_kept(trace: RankTrace) -> list[GpuEvent]:
    """The GPU events HTA analyses: with ≥ 2 steps, those launched before the last step started."""
    if len(trace.steps) < 2:
        return list(trace.gpu)
    last_start = trace.steps[-1][1]
    return [e for e in trace.gpu if e.launch_ts is not None and e.launch_ts < last_start]


# --------------------------------------------------------------------------- intervals


def merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Union of intervals as sorted, non-overlapping (start, end) pairs."""
    if not intervals:
        return []
    ordered = sorted(intervals)
    merged: list[tuple[float, float]] = []
    start, end = ordered[0]
    for next_start, next_end in ordered:  # locals, not merged[-1][1]: this runs once per event
        if next_start <= end:
            if next_end > end:
                end = next_end
        else:
            merged.append((start, end))
            start, end = next_start, next_end
    merged.append((start, end))
    return merged


def total(intervals: list[tuple[float, float]]) -> float:
    return sum(e - s for s, e in intervals)


def window_totals(merged: list[tuple[float, float]], windows: list[tuple[float, float]]) -> list[float]:
    """For each (start, end) window, the time `merged` (a merged interval list) covers inside it.

    The same numbers as `total(intersect([window], merged))` per window, but O((n + w) log n) for
    all windows together instead of O(n) each: coverage up to any moment is a prefix sum found by
    bisection, so a trace with many steps is not re-scanned once per step (windows may overlap).
    """
    starts = [s for s, _ in merged]
    before = [0.0]  # before[i]: time covered by merged[:i]
    for s, e in merged:
        before.append(before[-1] + (e - s))

    def covered_until(moment: float) -> float:
        index = bisect.bisect_right(starts, moment)
        if index == 0:
            return 0.0
        s, e = merged[index - 1]
        return before[index - 1] + (min(e, moment) - s)

    return [
        max(covered_until(end) - covered_until(start), 0.0) if end > start else 0.0 for start, end in windows
    ]


def intersect(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Intersection of two merged interval lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """a minus b, both merged interval lists."""
    out = []
    j = 0
    for start, end in a:
        cursor = start
        while j < len(b) and b[j][1] <= cursor:
            j += 1
        k = j
        while k < len(b) and b[k][0] < end:
            if b[k][0] > cursor:
                out.append((cursor, b[k][0]))
            cursor = max(cursor, b[k][1])
            k += 1
        if cursor < end:
            out.append((cursor, end))
    return out


# --------------------------------------------------------------------------- analyses


def temporal_breakdown(events: list[GpuEvent]) -> dict[str, float] | None:
    """Idle / compute / non-compute time of one rank (HTA's temporal breakdown)."""
    if not events:
        return None
    busy = merge([(e.ts, e.end) for e in events])
    span = busy[-1][1] - busy[0][0]
    if span <= 0:
        return None
    idle = span - total(busy)
    compute = total(merge([(e.ts, e.end) for e in events if kernel_type(e.name) == "computation"]))
    non_compute = max(span - compute - idle, 0.0)
    return {
        "span_ms": span / 1000,
        "idle_ms": idle / 1000,
        "compute_ms": compute / 1000,
        "non_compute_ms": non_compute / 1000,
        "idle_pct": 100 * idle / span,
        "compute_pct": 100 * compute / span,
        "non_compute_pct": 100 * non_compute / span,
    }


KERNEL_TYPES = ("computation", "communication", "memory")


def kernel_type_breakdown(events: list[GpuEvent]) -> dict[str, float]:
    """Time (µs) by which kernel types ran together: 'computation', 'computation+communication', …"""
    per_type = {t: merge([(e.ts, e.end) for e in events if kernel_type(e.name) == t]) for t in KERNEL_TYPES}
    points: list[tuple[float, int]] = []
    for bit, t in enumerate(KERNEL_TYPES):
        for start, end in per_type[t]:
            points += [(start, 1 << bit), (end, -(1 << bit))]
    points.sort()
    times: dict[str, float] = defaultdict(float)
    if not points:  # only synchronisation or launch events: no kernel type ran
        return {}
    running = 0
    for (time, delta), nxt in zip(points, [*points[1:], None], strict=True):
        running += delta
        if nxt is not None and running > 0 and nxt[0] > time:
            label = "+".join(t for bit, t in enumerate(KERNEL_TYPES) if running & (1 << bit))
            times[label] += nxt[0] - time
    return dict(times)


def shares(times: dict[str, float]) -> dict[str, float]:
    whole = sum(times.values())
    return {k: 100 * v / whole for k, v in sorted(times.items(), key=lambda kv: -kv[1])} if whole else {}


def idle_by_stream(events: list[GpuEvent]) -> dict[int, dict[str, float]]:
    """Idle gaps between consecutive kernels on each stream: host wait, kernel wait, other (µs)."""
    result: dict[int, dict[str, float]] = {}
    by_stream: dict[int, list[GpuEvent]] = defaultdict(list)
    for e in events:
        if e.cat in GPU_CATEGORIES:  # HTA leaves synchronisation events out of this analysis
            by_stream[e.stream].append(e)
    for stream, kernels in sorted(by_stream.items()):
        kernels.sort(key=lambda e: e.ts)
        parts = {"host_wait": 0.0, "kernel_wait": 0.0, "other": 0.0}
        for prev, cur in itertools.pairwise(kernels):
            gap = cur.ts - prev.end
            if cur.launch_ts is not None and cur.launch_ts > prev.end:
                parts["host_wait"] += gap
            elif gap < KERNEL_WAIT_US:
                parts["kernel_wait"] += gap
            else:
                parts["other"] += gap
        result[stream] = parts
    return result


def idle_gaps(trace: RankTrace, events: list[GpuEvent], limit: int = 5) -> list[dict[str, Any]]:
    """The longest stretches with no GPU work at all, and the CPU activity that filled them."""
    busy = merge([(e.ts, e.end) for e in events])
    gaps = [(b[0] - a[1], a[1], b[0]) for a, b in itertools.pairwise(busy) if b[0] > a[1]]
    gaps.sort(reverse=True)
    out = []
    for length, start, end in gaps[:limit]:
        out.append({"start_us": start, "ms": length / 1000, **_gap_cause(trace, start, end)})
    return out


def _gap_cause(trace: RankTrace, start: float, end: float) -> dict[str, Any]:
    """What the host did while the GPU had nothing: the CPU events overlapping most of the gap."""
    overlap: dict[str, float] = defaultdict(float)
    for e in trace.cpu:
        if e.end <= start or e.ts >= end or _STEP_RE.match(e.name):
            continue
        overlap[e.name] += min(e.end, end) - max(e.ts, start)
    length = end - start
    cause, advice = "other", "트레이스에서 이 구간의 CPU 쪽을 열어 보라"
    for name, us in sorted(overlap.items(), key=lambda kv: -kv[1]):
        if us < 0.3 * length:
            break
        if "DataLoader" in name:
            cause, advice = "dataloader", "DataLoader가 늦다: num_workers를 늘리고 pin_memory=True, prefetch"
            break
        if name in SYNC_CALLS:
            cause = "sync"
            advice = f"{SYNC_CALLS[name]}로 CPU가 GPU를 기다렸다: 스텝마다 .item()/동기화를 줄이고 값은 모아서 읽어라"
            break
        if name.startswith(("cudaMemcpy", "hipMemcpy")) and not name.endswith("Async"):
            cause, advice = "h2d_copy", "동기 복사: pin_memory=True와 .to(device, non_blocking=True)로 겹쳐라"
            break
    top = max(overlap.items(), key=lambda kv: kv[1])[0] if overlap else None
    return {"cause": cause, "cpu_event": top, "advice": advice}


def pageable_copies(trace: RankTrace) -> dict[str, float]:
    """Host→device copies from pageable memory (they cannot overlap with compute)."""
    copies = [e for e in trace.gpu if e.cat == "gpu_memcpy" and "HtoD" in e.name]
    pageable = [e for e in copies if "Pageable" in e.name]
    return {
        "htod_copies": len(copies),
        "pageable_copies": len(pageable),
        "pageable_ms": sum(e.dur for e in pageable) / 1000,
    }


def launch_profile(trace: RankTrace, events: list[GpuEvent]) -> dict[str, Any]:
    """Signs of a launch-bound run: many short kernels, and the CPU busy launching them."""
    kernels = [e for e in events if e.cat == "kernel"]
    launches = [e for e in trace.cpu if e.name in LAUNCH_CALLS]
    ops = [e for e in trace.cpu if e.cat == "cpu_op"]
    launch_us = sum(e.dur for e in launches)
    cpu_us = total(merge([(e.ts, e.end) for e in ops])) if ops else 0.0
    short = [k for k in kernels if k.dur < SHORT_KERNEL_US]
    return {
        "kernels": len(kernels),
        "short_kernels": len(short),
        "short_kernel_share": len(short) / len(kernels) if kernels else None,
        "median_kernel_us": statistics.median(k.dur for k in kernels) if kernels else None,
        "launch_calls": len(launches),
        "launch_ms": launch_us / 1000,
        "launch_share_of_cpu_ops": launch_us / cpu_us if cpu_us else None,
    }


def stream_busy(events: list[GpuEvent]) -> dict[int, float]:
    """Busy time (ms) of each stream (merged, so overlapping events on one stream count once)."""
    by_stream: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        if e.stream != NO_STREAM:
            by_stream[e.stream].append((e.ts, e.end))
    return {s: total(merge(iv)) / 1000 for s, iv in sorted(by_stream.items())}


def analyse_rank(trace: RankTrace) -> dict[str, Any]:
    events = steps_kept(trace)
    temporal = temporal_breakdown(events)
    kinds = kernel_type_breakdown(events)
    return {
        "rank": trace.rank,
        "device": trace.device_name,
        "gpu_events": len(events),
        "last_step_dropped": len(trace.steps) >= 2,
        "gpu_time_breakdown": temporal,
        "kernel_type_us": kinds,
        "kernel_type_pct": shares(kinds),
        "idle_by_stream_ms": {
            str(s): {k: v / 1000 for k, v in parts.items()} for s, parts in idle_by_stream(events).items()
        },
        "idle_gaps": idle_gaps(trace, events),
        "launch": launch_profile(trace, events),
        "copies": pageable_copies(trace),
        "streams_ms": {str(s): ms for s, ms in stream_busy(events).items()},
    }


def analyse_documents(documents: list[tuple[str, dict[str, Any]]]) -> dict[str, Any] | None:
    """GPU analyses of one trace per rank; None when no document has GPU events."""
    ranks = []
    for index, (_, document) in enumerate(documents):
        trace = split_events(document, rank_of(document, index))
        if trace.gpu:
            ranks.append(analyse_rank(trace))
    if not ranks:
        return None
    combined: dict[str, float] = defaultdict(float)
    for r in ranks:
        for k, v in r["kernel_type_us"].items():
            combined[k] += v
    return {"ranks": sorted(ranks, key=lambda r: r["rank"]), "kernel_type_pct": shares(dict(combined))}


def gpu_findings(gpu: dict[str, Any]) -> list[str]:
    """Korean findings, each with what to try, computed from the analyses."""
    findings = []
    for r in gpu["ranks"]:
        t = r["gpu_time_breakdown"]
        if t is None:
            continue
        where = f"rank {r['rank']}" + (f" ({r['device']})" if r["device"] else "")
        findings.append(
            f"{where} GPU 시간 분해(HTA temporal breakdown, 구간 {t['span_ms']:.1f} ms): idle {t['idle_pct']:.1f} %, "
            f"compute {t['compute_pct']:.1f} %, non-compute {t['non_compute_pct']:.1f} %"
            + (" — 마지막 ProfilerStep은 HTA처럼 뺐다." if r["last_step_dropped"] else ".")
        )
        if t["idle_pct"] > 50:
            host = sum(p["host_wait"] for p in r["idle_by_stream_ms"].values())
            idle_total = sum(sum(p.values()) for p in r["idle_by_stream_ms"].values())
            share = host / idle_total if idle_total else 0.0
            findings.append(
                f"{where}: GPU가 절반 넘게 놀았다. stream 사이 빈틈의 {share:.0%}는 host wait(이전 kernel이 끝난 뒤에야 "
                "CPU가 다음 kernel을 launch) — CPU-bound다. 데이터 로딩(num_workers, pin_memory), 동기화(.item(), "
                "cudaStreamSynchronize)를 줄이고, 작은 kernel이 많으면 batch를 키우거나 CUDA Graphs / "
                'torch.compile(mode="reduce-overhead")로 launch를 묶어라.'
            )
        launch = r["launch"]
        if launch["kernels"] >= 20 and (launch["short_kernel_share"] or 0) > 0.5:
            cpu_share = launch["launch_share_of_cpu_ops"]
            findings.append(
                f"{where}: kernel {launch['kernels']}개 중 {launch['short_kernel_share']:.0%}가 {SHORT_KERNEL_US:.0f} µs "
                f"미만(중앙값 {launch['median_kernel_us']:.1f} µs)"
                + (f", cudaLaunchKernel이 CPU 연산 시간의 {cpu_share:.0%}" if cpu_share else "")
                + " — launch-bound 신호다. 연산을 합치거나(torch.compile), batch를 키우거나, CUDA Graphs를 써라."
            )
        gaps = [g for g in r["idle_gaps"] if g["cause"] != "other"]
        if gaps:
            g = gaps[0]
            findings.append(
                f"{where}: 가장 긴 GPU 빈틈 중 {g['ms']:.2f} ms 동안 CPU는 {g['cpu_event']}에 있었다 → {g['advice']}."
            )
        copies = r["copies"]
        if copies["pageable_copies"]:
            findings.append(
                f"{where}: host→device 복사 {copies['htod_copies']}개 중 {copies['pageable_copies']}개가 pageable 메모리에서 "
                f"왔다({copies['pageable_ms']:.2f} ms). pinned 메모리가 아니면 복사가 compute와 겹치지 못한다: "
                "DataLoader(pin_memory=True)와 .to(device, non_blocking=True)."
            )
        if len(r["streams_ms"]) > 1:
            findings.append(
                f"{where}: stream {len(r['streams_ms'])}개가 일했다 ("
                + ", ".join(f"{s}: {ms:.1f} ms" for s, ms in r["streams_ms"].items())
                + ") — 여러 stream이 겹쳐 돈 시간은 temporal breakdown에서 한 번만 센다."
            )
    kinds = gpu["kernel_type_pct"]
    if kinds:
        shown = ", ".join(f"{k} {v:.1f} %" for k, v in kinds.items() if v >= 0.05)
        findings.append(f"kernel 종류별 시간(HTA kernel-type breakdown, 겹친 시간은 따로): {shown}.")
        comm = kinds.get("communication", 0.0)
        overlap = sum(v for k, v in kinds.items() if "communication" in k and "+" in k)
        if comm + overlap > 20:
            findings.append(
                f"통신 kernel이 GPU 시간의 {comm + overlap:.0f} %이고 그중 계산과 겹친 것은 {overlap:.0f} %p뿐이다: "
                "gradient bucket 크기(DDP bucket_cap_mb)를 조정해 backward 계산과 all-reduce를 겹치고, 통신량을 줄여라."
            )
    return findings
