"""Real profiler traces shipped with the content, and the facts that trace-reading questions ask.

`content/traces/traces.yaml` lists each trace: its file, a title, what recorded it and under which
licence. Every fact here is computed from the trace's events each time (the top kernel by GPU
time, the op with the largest self time, how long the GPU sat idle, the share of communication
kernels, which events the profiler itself wrote, what `torch.compile` took away), never typed by
hand, so a changed trace file changes its questions, and `studyapp check` computes them all.

Pure Python (json, gzip): trace questions are drawn on the quiz path, which never imports numpy.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zlib
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRACES_DIR = "traces"
MANIFEST = "traces.yaml"
MAX_TRACE_BYTES = 64 * 1024 * 1024  # decompressed; a shipped excerpt trace is far smaller
GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
RUNTIME_CATEGORY = "cuda_runtime"
# Communication kernels: NCCL's (NVIDIA) and RCCL's (AMD) collectives and point-to-point transfers.
COMMUNICATION = re.compile(r"^(nccl|rccl)", re.IGNORECASE)
# What torch.compile adds to a trace around the generated code (torch 2.13: the region of one
# compiled frame, the guard check that picks its cached code, the call of the compiled graph).
COMPILED_MARKERS = re.compile(r"^(Torch-Compiled Region|TorchDynamo Cache Lookup|## Call CompiledFxGraph)")
STEP = re.compile(r"^(ProfilerStep#\d+|step)$")


class TraceProblem(ValueError):
    """A shipped trace or its manifest entry cannot be used; `line` points into traces.yaml."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class TraceFile:
    """One entry of traces.yaml."""

    id: str
    path: Path
    title: str
    title_en: str
    topic: str
    recorded: str  # what recorded it ("A100, PyTorch 2.1", "this machine's CPU, torch 2.13")
    source: str  # where it comes from, with its licence
    eager_of: str | None = None  # a compiled trace names the eager trace of the same code
    line: int = 1


@dataclass(frozen=True)
class Event:
    name: str
    cat: str
    ts: float
    dur: float
    pid: Any
    tid: Any
    correlation: int | None = None


@dataclass(frozen=True)
class Row:
    """One name's events added up: calls, total (inclusive) and self time in µs."""

    name: str
    calls: int
    total_us: float
    self_us: float = 0.0

    @property
    def mean_us(self) -> float:
        return self.total_us / self.calls if self.calls else 0.0


@dataclass(frozen=True)
class OpOnBothSides:
    """One CPU op, the kernels it launched (through the runtime calls' correlation ids) and both times."""

    name: str
    cpu_us: float
    kernels: tuple[tuple[int, str, float], ...]  # (correlation, kernel short name, µs)

    @property
    def gpu_us(self) -> float:
        return sum(us for _, _, us in self.kernels)


@dataclass(frozen=True)
class TraceFacts:
    trace: TraceFile
    digest: str  # of the file's bytes: questions change when the trace does
    kernels: tuple[Row, ...]  # by total GPU time, longest first
    cpu_ops: tuple[Row, ...]  # by total time, longest first; self time beside it
    runtime: tuple[Row, ...]  # CUDA/HIP runtime calls on the CPU, by total time
    gpu_window_us: float  # first GPU activity to last
    gpu_busy_us: float  # the union of kernels, copies and memsets in that window
    communication_us: float  # communication kernels' total
    kernel_us: float  # every kernel's total
    profiler_events: tuple[str, ...]  # names the profiler itself wrote
    workload_events: tuple[str, ...]  # names the recorded program caused (ops, runtime calls, kernels)
    compiled_markers: tuple[str, ...]
    step_mean_us: float | None  # mean of the step annotations, where the trace has them
    ops_on_both_sides: tuple[OpOnBothSides, ...] = field(default_factory=tuple)

    @property
    def gpu_idle_share(self) -> float | None:
        if self.gpu_window_us <= 0:
            return None
        return max(0.0, 1.0 - self.gpu_busy_us / self.gpu_window_us)

    @property
    def communication_share(self) -> float | None:
        return self.communication_us / self.kernel_us if self.kernel_us > 0 else None


def short_kernel_name(name: str) -> str:
    """A CUDA kernel's C++ signature cut to what a reader compares: the qualified name, without
    `void`, template arguments, parameters and ATen's own namespaces."""
    text = name.removeprefix("void ").replace("(anonymous namespace)::", "")
    text = re.split(r"[<(]", text, maxsplit=1)[0].strip()
    return text.removeprefix("at::native::") or name[:40]


def read_manifest(root: Path) -> list[TraceFile]:
    """The traces listed in `root/traces/traces.yaml` (none when the folder is absent)."""
    from studyapp.content.yamlfile import read_yaml

    folder = root / TRACES_DIR
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return []
    data = read_yaml(manifest)
    entries = data.get("traces") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise TraceProblem(f"{MANIFEST} must hold a list under 'traces'")
    traces: list[TraceFile] = []
    for entry in entries:
        line = getattr(entry, "line", 1)
        if not isinstance(entry, dict):
            raise TraceProblem("each trace is a mapping", line)
        missing = [
            key for key in ("id", "file", "title", "topic", "recorded", "source") if not entry.get(key)
        ]
        if missing:
            raise TraceProblem(f"trace entry lacks {', '.join(missing)}", line)
        path = (folder / str(entry["file"])).resolve()
        if folder.resolve() not in path.parents or not path.is_file():
            raise TraceProblem(f"trace file '{entry['file']}' is not a file in {TRACES_DIR}/", line)
        traces.append(
            TraceFile(
                id=str(entry["id"]),
                path=path,
                title=str(entry["title"]),
                title_en=str(entry.get("title_en") or entry["title"]),
                topic=str(entry["topic"]),
                recorded=str(entry["recorded"]),
                source=str(entry["source"]),
                eager_of=str(entry["eager_of"]) if entry.get("eager_of") else None,
                line=line,
            )
        )
    return traces


def _read_document(path: Path) -> tuple[dict[str, Any], str]:
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:12]
    if raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
                raw = stream.read(MAX_TRACE_BYTES + 1)
        except (OSError, EOFError, zlib.error) as error:
            raise TraceProblem(f"{path.name} is not a readable gzip file: {error}") from None
    if len(raw) > MAX_TRACE_BYTES:
        raise TraceProblem(f"{path.name} is over {MAX_TRACE_BYTES // 2**20} MB once decompressed")
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise TraceProblem(f"{path.name} is not JSON: {error}") from None
    if isinstance(document, list):
        document = {"traceEvents": document}
    if not isinstance(document, dict) or not isinstance(document.get("traceEvents"), list):
        raise TraceProblem(f"{path.name} has no traceEvents list: not a profiler trace")
    return document, digest


def complete_events(document: dict[str, Any]) -> list[Event]:
    events: list[Event] = []
    for raw in document["traceEvents"]:
        if not isinstance(raw, dict) or raw.get("ph") != "X":
            continue
        ts, dur = raw.get("ts"), raw.get("dur")
        if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)) or dur < 0:
            continue
        args = raw.get("args") if isinstance(raw.get("args"), dict) else {}
        correlation = args.get("correlation")
        events.append(
            Event(
                name=str(raw.get("name", "")),
                cat=str(raw.get("cat", "")),
                ts=float(ts),
                dur=float(dur),
                pid=raw.get("pid"),
                tid=raw.get("tid"),
                correlation=correlation if isinstance(correlation, int) else None,
            )
        )
    return events


def _self_times(events: list[Event]) -> dict[int, float]:
    """Self time of each CPU-side event (by index): its span less its direct children's, per thread."""
    self_us: dict[int, float] = {}
    by_thread: dict[tuple[Any, Any], list[int]] = defaultdict(list)
    for index, event in enumerate(events):
        if event.cat not in GPU_CATEGORIES:
            by_thread[(event.pid, event.tid)].append(index)
    for indices in by_thread.values():
        indices.sort(key=lambda i: (events[i].ts, -events[i].dur))
        open_spans: list[int] = []
        for index in indices:
            event = events[index]
            while open_spans and events[open_spans[-1]].ts + events[open_spans[-1]].dur <= event.ts:
                open_spans.pop()
            self_us[index] = event.dur
            if open_spans:
                self_us[open_spans[-1]] -= event.dur
            open_spans.append(index)
    return {index: max(0.0, value) for index, value in self_us.items()}


def _rows(pairs: Iterable[tuple[str, float, float]]) -> tuple[Row, ...]:
    calls: dict[str, int] = defaultdict(int)
    total: dict[str, float] = defaultdict(float)
    own: dict[str, float] = defaultdict(float)
    for name, dur, self_us in pairs:
        calls[name] += 1
        total[name] += dur
        own[name] += self_us
    rows = (Row(name, calls[name], total[name], own[name]) for name in calls)
    return tuple(sorted(rows, key=lambda row: (-row.total_us, row.name)))


def _union(intervals: list[tuple[float, float]]) -> float:
    busy, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        busy += stop - max(start, end)
        end = stop
    return busy


def is_profiler_event(event: Event) -> bool:
    """Written by the profiler, not by the program: its own span, the step markers that
    `prof.step()` adds, and its bookkeeping of activity buffers."""
    return (
        event.cat == "Trace"
        or event.name.startswith(("ProfilerStep#", "PyTorch Profiler"))
        or "Buffer Request" in event.name
    )


def _ops_on_both_sides(events: list[Event]) -> tuple[OpOnBothSides, ...]:
    """CPU ops whose runtime calls launched kernels, linked by correlation id."""
    kernels = {e.correlation: e for e in events if e.cat == "kernel" and e.correlation is not None}
    launches = [e for e in events if e.cat == RUNTIME_CATEGORY and e.correlation in kernels]
    if not launches:
        return ()
    by_thread: dict[tuple[Any, Any], list[Event]] = defaultdict(list)
    for launch in sorted(launches, key=lambda e: e.ts):
        by_thread[(launch.pid, launch.tid)].append(launch)
    starts = {thread: [launch.ts for launch in group] for thread, group in by_thread.items()}
    found: dict[str, list[tuple[Event, list[Event]]]] = defaultdict(list)
    for op in (e for e in events if e.cat == "cpu_op"):
        thread = (op.pid, op.tid)
        if thread not in by_thread:
            continue
        first = bisect_left(starts[thread], op.ts)
        last = bisect_right(starts[thread], op.ts + op.dur)
        inside = [
            launch for launch in by_thread[thread][first:last] if launch.ts + launch.dur <= op.ts + op.dur
        ]
        if inside:
            found[op.name].append((op, inside))
    result: list[OpOnBothSides] = []
    for name, calls in found.items():
        op, inside = min(calls, key=lambda call: call[0].ts)  # the op's first call that launched work
        linked = tuple(
            (
                launch.correlation,
                short_kernel_name(kernels[launch.correlation].name),
                kernels[launch.correlation].dur,
            )
            for launch in sorted(inside, key=lambda e: e.ts)
            if launch.correlation is not None
        )
        result.append(OpOnBothSides(name, op.dur, linked))
    return tuple(sorted(result, key=lambda o: (-len(o.kernels), o.cpu_us, o.name)))


def file_state(trace: TraceFile) -> tuple[int, int, int] | None:
    """(size, mtime, inode) of the trace's file, None when it cannot be read: what says that the
    file changed, for everything computed from it."""
    try:
        state = trace.path.stat()
    except OSError:
        return None
    return (state.st_size, state.st_mtime_ns, state.st_ino)


# What a trace file gave, by entry and file state: `studyapp check`, the quiz and the mock exam read
# the same traces again in one process (a check read all five in 0.12 s, every time).
_FACTS_READ: dict[tuple[TraceFile, tuple[int, int, int]], TraceFacts] = {}
_FACTS_KEPT = 64


def trace_facts(trace: TraceFile) -> TraceFacts:
    """The facts of one trace, computed once per file state (`file_state`)."""
    state = file_state(trace)
    if state is None:
        return _trace_facts(trace)  # the read below says what is wrong, in its own words
    key = (trace, state)
    if key not in _FACTS_READ:
        if len(_FACTS_READ) >= _FACTS_KEPT:
            _FACTS_READ.clear()
        _FACTS_READ[key] = _trace_facts(trace)
    return _FACTS_READ[key]


def _trace_facts(trace: TraceFile) -> TraceFacts:
    document, digest = _read_document(trace.path)
    events = complete_events(document)
    if not events:
        raise TraceProblem(f"{trace.path.name} has no complete events (ph 'X')", trace.line)
    self_us = _self_times(events)
    kernels = _rows((short_kernel_name(e.name), e.dur, e.dur) for e in events if e.cat == "kernel")
    cpu_ops = _rows((e.name, e.dur, self_us.get(i, e.dur)) for i, e in enumerate(events) if e.cat == "cpu_op")
    runtime = _rows((e.name, e.dur, e.dur) for e in events if e.cat == RUNTIME_CATEGORY)
    gpu = [(e.ts, e.ts + e.dur) for e in events if e.cat in GPU_CATEGORIES]
    window = (max(stop for _, stop in gpu) - min(start for start, _ in gpu)) if gpu else 0.0
    steps = [e.dur for e in events if STEP.match(e.name) and e.cat in ("user_annotation", "cpu_op")]
    profiler = sorted({e.name for e in events if is_profiler_event(e)})
    workload = sorted(
        {e.name for e in events if e.cat in ("cpu_op", RUNTIME_CATEGORY) and not is_profiler_event(e)}
    )
    return TraceFacts(
        trace=trace,
        digest=digest,
        kernels=kernels,
        cpu_ops=cpu_ops,
        runtime=runtime,
        gpu_window_us=window,
        gpu_busy_us=_union(gpu),
        communication_us=sum(row.total_us for row in kernels if COMMUNICATION.match(row.name)),
        kernel_us=sum(row.total_us for row in kernels),
        profiler_events=tuple(profiler),
        workload_events=tuple(workload),
        compiled_markers=tuple(sorted({e.name for e in events if COMPILED_MARKERS.match(e.name)})),
        step_mean_us=sum(steps) / len(steps) if steps else None,
        ops_on_both_sides=_ops_on_both_sides(events),
    )


def all_facts(root: Path) -> list[TraceFacts]:
    return [trace_facts(trace) for trace in read_manifest(root)]
