"""Read a torch.profiler Chrome trace with nothing but json and gzip (no torch needed).

A trace written by `prof.export_chrome_trace(path)` (or `tensorboard_trace_handler`) is
`{"traceEvents": [...]}`. The events that matter here are "complete" events:

    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 1000.0, "dur": 250.0}

`ts` (start) and `dur` (duration) are in microseconds. Categories used below:
  cpu_op           an operator (aten::...), also the backward ops of autograd
  user_annotation  a `record_function` label: ProfilerStep#N, layer:conv2, enumerate(DataLoader)#...
  kernel, gpu_memcpy, gpu_memset   work on a GPU (only in traces recorded with ProfilerActivity.CUDA)

Events on one thread nest like function calls. An operator's *self* time is its duration minus the
durations of its direct children (the ops it called) on the same pid/tid; summed per name this is
what `prof.key_averages()` reports as `self_cpu_time_total`.
"""

from __future__ import annotations

import json
import math
import os
import stat
import statistics
import zlib
from dataclasses import dataclass
from typing import Any

from labs._protocol import LabUsageError

STEP_PREFIX = "ProfilerStep#"
LAYER_PREFIX = "layer:"
DATA_LOADING_MARKER = "DataLoader"  # matches `enumerate(DataLoader)#...__next__` and similar labels
GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
# Timestamps are rounded to 1 ns (0.001 µs); a child may end a hair after its parent.
_EPSILON_US = 0.01


@dataclass(eq=False, slots=True)  # slots: a 10⁶-event trace holds 10⁶ of these
class Event:
    """One complete ("X") event, with its place in the call nesting of its thread.

    `link_parents` fills in the nesting, and with it what the analyses ask about ancestors, so no
    analysis walks the ancestors of every event (quadratic in deeply nested traces):
    `enclosing_step` is the number of the innermost ProfilerStep around the event (not itself),
    `inside_data_loading` whether some ancestor is a DataLoader event.
    """

    name: str
    cat: str
    pid: Any
    tid: Any
    ts: float
    dur: float
    parent: Event | None = None
    children_dur: float = 0.0
    enclosing_step: int | None = None
    inside_data_loading: bool = False

    @property
    def end(self) -> float:
        return self.ts + self.dur

    @property
    def self_dur(self) -> float:
        return max(self.dur - self.children_dur, 0.0)

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


# --------------------------------------------------------------------------- loading


MAX_TRACE_BYTES = 2 * 1024**3  # a trace (or what its gzip inflates to) past 2 GB is refused, not read
MAX_NAME_CHARS = 1000  # real operator and kernel names (templated CUDA kernels) stay far below


def load_trace(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a `.json` or `.json.gz` trace file. Any problem → LabUsageError with one line.

    Bounded: only a regular file is read (never a FIFO or /dev/zero), gzip is inflated in chunks
    and refused past MAX_TRACE_BYTES, nesting too deep for the JSON parser is refused, and NaN,
    Infinity or numbers too big for a float become null, so those events are skipped like other
    malformed ones instead of turning a share into "nan%".
    """
    path = os.fspath(path)
    try:
        info = os.stat(path)
    except OSError:
        raise LabUsageError(f"trace file not found: {path}") from None
    if stat.S_ISDIR(info.st_mode):
        raise LabUsageError(f"{path} is a directory, not a trace file")
    if not stat.S_ISREG(info.st_mode):
        raise LabUsageError(f"{path} is not a regular file (a FIFO or device?), not a trace file")
    limit = MAX_TRACE_BYTES
    too_big = f"{path} is over {_size(limit)}{{how}}: too big for this lab (a real trace is far smaller)"
    if info.st_size > limit:
        raise LabUsageError(too_big.format(how=""))
    try:
        return _parse_trace(path, limit, too_big)
    except MemoryError:
        # Reading needs the bytes, then the text, then the events: about three times the file.
        raise LabUsageError(
            f"{path} ({_size(max(info.st_size, 1))} on disk) does not fit in the memory this lab may use: "
            "analyse a shorter trace (fewer steps in the profiler's schedule)"
        ) from None


def _parse_trace(path: str, limit: int, too_big: str) -> dict[str, Any]:
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise LabUsageError(too_big.format(how=""))
    if not data.strip():
        raise LabUsageError(f"{path} is empty, not a trace")
    if data[:2] == b"\x1f\x8b":  # gzip magic number, whatever the file is called
        try:
            data = _gunzip(data, limit)
        except (EOFError, OSError, zlib.error) as exc:
            raise LabUsageError(f"{path} is a truncated or damaged gzip file ({exc})") from None
        if data is None:
            raise LabUsageError(too_big.format(how=" once decompressed"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LabUsageError(f"{path} is not a text (JSON) file") from None
    del data
    if not text.strip():
        raise LabUsageError(f"{path} is empty, not a trace")
    try:
        document = json.loads(
            text, parse_constant=lambda _: None, parse_float=_finite, parse_int=_bounded_int
        )
    except RecursionError:
        raise LabUsageError(f"{path} is nested too deeply to be a Chrome trace") from None
    except json.JSONDecodeError as exc:
        body = text.strip()
        # Starts like a JSON document but does not end like one: the file was cut short.
        if exc.pos >= len(text.rstrip()) or (body[:1] in "{[" and body[-1:] not in "}]"):
            raise LabUsageError(f"{path} is truncated: its JSON ends early (line {exc.lineno})") from None
        raise LabUsageError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    # The Chrome trace format allows an object with "traceEvents" or a bare list of events.
    if isinstance(document, list):
        document = {"traceEvents": document}
    if not isinstance(document, dict) or not isinstance(document.get("traceEvents"), list):
        raise LabUsageError(f"{path} is JSON but not a Chrome trace: it has no traceEvents list")
    if not document["traceEvents"]:
        raise LabUsageError(f"{path} is an empty trace: traceEvents has no events")
    _clip_names(document["traceEvents"])
    return document


def _clip_names(events: list[Any]) -> None:
    """Cut names past MAX_NAME_CHARS: a 100 MB operator name would travel into every table of the
    report (and the report to studyapp, which refuses lines that long)."""
    for raw in events:
        if isinstance(raw, dict):
            name = raw.get("name")
            if isinstance(name, str) and len(name) > MAX_NAME_CHARS:
                raw["name"] = name[: MAX_NAME_CHARS - 1] + "…"


def _gunzip(data: bytes, limit: int) -> bytearray | None:
    """The inflated bytes of every gzip member in `data`, or None once they pass `limit`."""
    out = bytearray()
    while data:
        inflater = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
        pending = data
        while not inflater.eof:
            chunk = inflater.decompress(pending, 16 * 1024 * 1024)  # bounded pieces, never all at once
            out += chunk
            if len(out) > limit:
                return None
            pending = inflater.unconsumed_tail
            if not chunk and not pending:
                raise EOFError("compressed data ended before the end-of-stream marker")
        data = inflater.unused_data.lstrip(b"\0")  # the next member, if any (zero padding allowed)
    return out  # not bytes(out): a copy of a trace near the limit would double the memory


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None


def _bounded_int(text: str) -> int | None:
    return int(text) if len(text) <= 30 else None  # also keeps float(ts) from overflowing


def _size(limit: int) -> str:
    return f"{limit / 1024**3:g} GB" if limit >= 1024**3 else f"{limit / 1024**2:g} MB"


def complete_events(document: dict[str, Any], source: str = "trace") -> list[Event]:
    """The well-formed "X" events of a trace (others — metadata, instants, flows — are skipped)."""
    events = []
    for raw in document["traceEvents"]:
        if not isinstance(raw, dict) or raw.get("ph") != "X":
            continue
        name, ts, dur = raw.get("name"), raw.get("ts"), raw.get("dur")
        if not isinstance(name, str) or not _is_number(ts) or not _is_number(dur) or dur < 0:
            continue
        cat, pid, tid = str(raw.get("cat", "")), raw.get("pid"), raw.get("tid")
        events.append(Event(name, cat, pid, tid, float(ts), float(dur)))
    if not events:
        raise LabUsageError(f'{source} has no complete events (ph "X"): not a torch.profiler trace?')
    return events


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --------------------------------------------------------------------------- nesting


def link_parents(events: list[Event]) -> None:
    """Give every event its parent: the innermost event on the same pid/tid that contains it.

    Walk each thread's events in start order with a stack of "open" events. An event that starts
    after the top of the stack has ended closes it; otherwise the top is its parent. A parent is
    linked before its children, so what a child inherits (its enclosing step, whether it sits in
    data loading) is read off the parent in O(1): the whole pass is O(n log n), for the sort.
    """
    threads: dict[tuple[str, str], list[Event]] = {}
    for event in events:
        threads.setdefault((str(event.pid), str(event.tid)), []).append(event)
    for thread_events in threads.values():
        thread_events.sort(key=lambda e: (e.ts, -e.dur))  # a parent sorts before its first child
        stack: list[Event] = []
        for event in thread_events:
            while stack and stack[-1].end <= event.ts:
                stack.pop()  # ended before this event started: a finished sibling or uncle
            while stack and event.end > stack[-1].end + _EPSILON_US:
                stack.pop()  # overlaps without fitting inside (rounding, or a broken trace)
            if stack:
                parent = stack[-1]
                event.parent = parent
                parent.children_dur += event.dur
                parent_step = step_number(parent.name)
                event.enclosing_step = parent.enclosing_step if parent_step is None else parent_step
                event.inside_data_loading = parent.inside_data_loading or DATA_LOADING_MARKER in parent.name
            stack.append(event)


# --------------------------------------------------------------------------- analysis


def step_number(name: str) -> int | None:
    if name.startswith(STEP_PREFIX):
        try:
            return int(name[len(STEP_PREFIX) :])
        except ValueError:
            return None
    return None


def analyse_events(events: list[Event], top: int = 10, linked: bool = False) -> dict[str, Any]:
    """Everything the lab reports about a trace. Times in milliseconds.

    `linked=True`: `link_parents` already ran on these events (linking twice would count every
    child twice in its parent's self time).
    """
    if not linked:
        link_parents(events)

    # Steps: `prof.step()` wraps each step in a "ProfilerStep#N" annotation.
    step_events = sorted((e for e in events if step_number(e.name) is not None), key=lambda e: e.ts)
    steps = [step_number(e.name) for e in step_events]
    step_ms = [e.dur / 1000 for e in step_events]

    # Operators: cpu_op events grouped by name. If a trace has none (not torch), use every event
    # that is not a step or an annotation, so the analysis still says something.
    ops = [e for e in events if e.cat == "cpu_op"]
    if not ops:
        ops = [e for e in events if e.cat not in ("user_annotation", *GPU_CATEGORIES)]
    top_ops = _group(ops, key="self")[:top]

    annotations = [e for e in events if e.cat == "user_annotation" and step_number(e.name) is None]
    annotation_rows = _group(annotations, key="total")

    layers_per_step = _layers_per_step(events)
    layers = {label: statistics.median(values) for label, values in layers_per_step.items()}
    bottleneck = max(layers, key=layers.__getitem__) if layers else None

    data_share, data_ms = _data_loading(events, step_events)

    kernels = [e for e in events if e.cat in GPU_CATEGORIES]
    return {
        "events": len(events),
        "threads": len({(str(e.pid), str(e.tid)) for e in events}),
        "steps": steps,
        "step_ms": statistics.fmean(step_ms) if step_ms else None,
        "step_durations_ms": step_ms,
        "top_ops": top_ops,
        "annotations": annotation_rows[:top],
        "layers": layers,
        "layers_mean": {label: statistics.fmean(values) for label, values in layers_per_step.items()},
        "bottleneck": bottleneck,
        "data_loading_share": data_share,
        "data_loading_ms": data_ms,
        "top_kernels": _group(kernels, key="total")[:top],
        "device_ms": sum(e.dur for e in kernels) / 1000 if kernels else None,
    }


def _group(events: list[Event], key: str) -> list[dict[str, Any]]:
    """Sum self and total time per name; sort by `key` ("self" or "total"), largest first."""
    rows: dict[str, dict[str, Any]] = {}
    for event in events:
        row = rows.setdefault(event.name, {"name": event.name, "self_ms": 0.0, "total_ms": 0.0, "calls": 0})
        row["self_ms"] += event.self_dur / 1000
        row["total_ms"] += event.dur / 1000
        row["calls"] += 1
    return sorted(rows.values(), key=lambda r: (-r[f"{key}_ms"], r["name"]))


def _layers_per_step(events: list[Event]) -> dict[str, list[float]]:
    """Forward time of each `layer:NAME` label, summed within each ProfilerStep (ms per step).

    Without ProfilerStep events (a trace recorded without a schedule) each call counts as one.
    """
    per_step: dict[str, dict[Any, float]] = {}
    for index, event in enumerate(events):
        if event.cat != "user_annotation" or not event.name.startswith(LAYER_PREFIX):
            continue
        step = event.enclosing_step
        bucket = step if step is not None else ("call", index)
        sums = per_step.setdefault(event.name, {})
        sums[bucket] = sums.get(bucket, 0.0) + event.dur / 1000
    return {label: list(sums.values()) for label, sums in sorted(per_step.items())}


def _data_loading(events: list[Event], step_events: list[Event]) -> tuple[float | None, float | None]:
    """Share of ProfilerStep time spent inside DataLoader events (outermost ones, inside a step)."""
    loading = [
        e
        for e in events
        if DATA_LOADING_MARKER in e.name and not e.inside_data_loading and e.enclosing_step is not None
    ]
    total_step_us = sum(e.dur for e in step_events)
    if not loading or total_step_us <= 0:
        return None, None
    loading_us = sum(e.dur for e in loading)
    return min(loading_us / total_step_us, 1.0), loading_us / 1000


def memory_peaks(document: dict[str, Any]) -> dict[str, float]:
    """Peak "Total Allocated" (MB) per device type from `[memory]` instant events (profile_memory)."""
    peaks: dict[str, float] = {}
    for raw in document["traceEvents"]:
        if not isinstance(raw, dict) or raw.get("name") != "[memory]":
            continue
        args = raw.get("args") or {}
        total = args.get("Total Allocated")
        if not _is_number(total):
            continue
        device = {0: "cpu", 1: "cuda"}.get(args.get("Device Type", 0), f"device{args.get('Device Type')}")
        peaks[device] = max(peaks.get(device, 0.0), total / 2**20)
    return peaks


def analyse_files(paths: list[str], top: int = 10) -> dict[str, Any]:
    """Analyse one or more trace files as one (e.g. the cycles of a `repeat` schedule)."""
    events: list[Event] = []
    peaks: dict[str, float] = {}
    for path in paths:
        document = load_trace(path)
        events += complete_events(document, source=os.fspath(path))
        for device, peak in memory_peaks(document).items():
            peaks[device] = max(peaks.get(device, 0.0), peak)
        del document  # one parsed trace in memory at a time
    result = analyse_events(events, top=top)
    result["memory_peak_mb"] = peaks
    return result


def steps_in_file(path: str) -> list[int]:
    """The ProfilerStep numbers a trace file holds (used by the trace handler)."""
    document = load_trace(path)
    found = {step_number(e.get("name", "")) for e in document["traceEvents"] if isinstance(e, dict)}
    return sorted(n for n in found if n is not None)
