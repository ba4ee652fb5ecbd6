"""A multi-stage pipeline built from threads and bounded queues, instrumented.

    source ──> [load] ──q──> [preprocess] ──q──> [compute] ──> done

Each stage is one or more threads that repeat: take an item from the input queue, work on it
(here: sleep for the stage's cost, like waiting for a disk, a network or an accelerator), put it
on the output queue. Every thread measures where its time goes:

    busy     doing the stage's work
    starved  waiting in queue.get(): the stage before it is slower (nothing to do)
    blocked  waiting in queue.put(): the stage after it is slower and the queue is full
             (this is "backpressure": a bounded queue makes a fast stage wait)

The bottleneck is the stage that is busy nearly all the time; the stages before it are
blocked, the stages after it are starved. In steady state the whole pipeline runs at the pace of
that stage: throughput = 1 / (slowest stage cost / its workers).
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field

_DONE = object()  # the "no more items" marker passed down the queues


@dataclass
class ThreadRecord:
    """What one thread of one stage measured. Each thread writes only its own record."""

    stage: int
    worker: int
    busy_s: float = 0.0
    starved_s: float = 0.0
    blocked_s: float = 0.0
    cpu_s: float = 0.0  # time.thread_time(): CPU this thread really used
    alive_s: float = 0.0  # from thread start to thread end
    items: int = 0
    spans: list[tuple[str, int, float, float]] = field(default_factory=list)  # (kind, item, start, end)


@dataclass
class PipelineRun:
    names: list[str]
    costs_s: list[float]
    workers: list[int]
    items: int
    wall_s: float
    records: list[ThreadRecord]
    done_times: list[float]  # when each item left the last stage (seconds after the start)

    def stage_total(self, i: int, attr: str) -> float:
        return sum(getattr(r, attr) for r in self.records if r.stage == i)


def run_pipeline(
    names: list[str],
    costs_s: list[float],
    workers: list[int],
    items: int,
    queue_size: int,
    item_bytes: int,
    io_stages: int = 1,
) -> PipelineRun:
    """Push `items` items through the stages and return what every thread measured.

    queue_size 0 means unbounded queues. The first `io_stages` stages "read" the item: they create
    its payload (item_bytes), so memory use follows the number of items in flight.
    """
    n = len(names)
    source: queue.Queue = queue.Queue()
    for i in range(items):
        source.put(i)
    for _ in range(workers[0]):
        source.put(_DONE)
    queues = [source] + [queue.Queue(maxsize=queue_size) for _ in range(n - 1)]
    records = [ThreadRecord(stage=i, worker=w) for i in range(n) for w in range(workers[i])]
    finished = [0] * n  # how many threads of each stage have finished
    lock = threading.Lock()
    done_times: list[float] = []
    start = time.perf_counter()

    def stage_thread(rec: ThreadRecord) -> None:
        i = rec.stage
        inbox = queues[i]
        outbox = queues[i + 1] if i + 1 < n else None
        cost = costs_s[i]
        born, cpu0 = time.perf_counter(), time.thread_time()
        while True:
            t0 = time.perf_counter()
            item = inbox.get()  # waiting here = starved
            t1 = time.perf_counter()
            rec.starved_s += t1 - t0
            if item is _DONE:
                break
            index, payload = item if isinstance(item, tuple) else (item, None)
            if i < io_stages:
                payload = bytearray(item_bytes)  # "read" the item: it now occupies memory
            elif payload is not None and outbox is not None:
                payload = bytearray(payload)  # a transform makes a new buffer (old one freed after)
            time.sleep(cost)  # the stage's work
            t2 = time.perf_counter()
            rec.busy_s += t2 - t1
            rec.items += 1
            rec.spans.append(("busy", index, t1 - start, t2 - start))
            if outbox is not None:
                outbox.put((index, payload))  # waiting here = blocked (queue full)
                t3 = time.perf_counter()
                rec.blocked_s += t3 - t2
                if t3 - t2 > 1e-4:
                    rec.spans.append(("blocked", index, t2 - start, t3 - start))
            else:
                done_times.append(t2 - start)  # list.append is atomic in CPython
            if t1 - t0 > 1e-4:
                rec.spans.append(("starved", index, t0 - start, t1 - start))
            item = payload = None  # let go of the buffers before waiting for the next item
        rec.cpu_s = time.thread_time() - cpu0
        rec.alive_s = time.perf_counter() - born
        # The last thread of a stage to finish tells every thread of the next stage to stop.
        with lock:
            finished[i] += 1
            last = finished[i] == workers[i]
        if last and outbox is not None:
            for _ in range(workers[i + 1]):
                outbox.put(_DONE)

    # daemon threads: Ctrl+C stops the lab at once instead of waiting for the remaining items
    threads = [
        threading.Thread(target=stage_thread, args=(r,), name=f"{names[r.stage]}-{r.worker}", daemon=True)
        for r in records
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return PipelineRun(list(names), list(costs_s), list(workers), items, wall, records, sorted(done_times))


def stage_stats(run: PipelineRun) -> dict[str, dict[str, float]]:
    """Per stage: busy, waiting (starved + blocked), and utilisation = busy / (wall × workers)."""
    stats = {}
    for i, name in enumerate(run.names):
        busy = run.stage_total(i, "busy_s")
        starved = run.stage_total(i, "starved_s")
        blocked = run.stage_total(i, "blocked_s")
        stats[name] = {
            "workers": run.workers[i],
            "cost_ms": run.costs_s[i] * 1000,
            "busy_s": busy,
            "wait_s": starved + blocked,
            "starved_s": starved,
            "blocked_s": blocked,
            "utilisation": min(1.0, busy / (run.wall_s * run.workers[i])),
            "cpu_s": run.stage_total(i, "cpu_s"),
            "items": run.stage_total(i, "items"),
        }
    return stats


def predicted_throughput(costs_s: list[float], workers: list[int]) -> float:
    """Pipeline theory: the slowest stage (cost per item / its parallel workers) sets the pace."""
    slowest = max(c / w for c, w in zip(costs_s, workers, strict=True))
    return float("inf") if slowest == 0 else 1.0 / slowest


def chrome_trace(runs: dict[str, PipelineRun]) -> dict:
    """The recorded spans as a Chrome/Perfetto trace: one process per run, one thread per worker.

    Open it at https://ui.perfetto.dev or chrome://tracing to see the bottleneck stage busy
    end to end while the others show gaps (starved) or long "blocked" spans.
    """
    events = []
    for pid, (label, run) in enumerate(runs.items(), start=1):
        events.append({"ph": "M", "pid": pid, "name": "process_name", "args": {"name": label}})
        for tid, rec in enumerate(run.records, start=1):
            name = f"{run.names[rec.stage]}-{rec.worker}"
            events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": name}})
            for kind, item, t0, t1 in rec.spans:
                events.append(
                    {
                        "ph": "X",
                        "pid": pid,
                        "tid": tid,
                        "cat": kind,
                        "name": run.names[rec.stage] if kind == "busy" else kind,
                        "ts": t0 * 1e6,
                        "dur": (t1 - t0) * 1e6,
                        "args": {"item": item},
                    }
                )
    return {"traceEvents": events, "displayTimeUnit": "ms"}
