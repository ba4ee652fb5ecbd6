"""Runs in the learner's child process (labs._exercise.run_learner): builds the checker's stages
(sleeping work that records how many threads of each stage are inside it at once, and when each
item leaves the last stage), runs the learner's pipeline.py with them, and returns plain data.

The reference pipeline (solution/pipeline.py) runs with the same stages in the same process, in
alternating rounds, for the throughput measurement.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from labs._exercise import _error_line, _learner_traceback

NAMES = ("load", "transform", "save")
HERE = Path(__file__).resolve().parent


class Probe:
    """What the stage work functions saw: threads inside each stage at once, completion times."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside = dict.fromkeys(NAMES, 0)
        self.most = dict.fromkeys(NAMES, 0)
        self.done_at: list[float] = []
        self.busy = dict.fromkeys(NAMES, 0.0)  # seconds inside the work, measured here
        self.first_enter: dict[str, float] = {}  # when each stage began its first item
        self.last_leave: dict[str, float] = {}  # when each stage finished its last item
        # Per stage: the time a thread spent outside work() between two of its items (waiting in
        # get(), for a lock, sleeping, ...), summed, and how many such gaps there were.
        self.thread_left: dict[tuple[str, int], float] = {}
        self.gap_s = dict.fromkeys(NAMES, 0.0)
        self.gaps = dict.fromkeys(NAMES, 0)

    def enter(self, name: str) -> None:
        with self.lock:
            now = time.perf_counter()
            self.first_enter.setdefault(name, now)
            left = self.thread_left.get((name, threading.get_ident()))
            if left is not None:
                self.gap_s[name] += now - left
                self.gaps[name] += 1
            self.inside[name] += 1
            self.most[name] = max(self.most[name], self.inside[name])

    def leave(self, name: str, last: bool, seconds: float) -> None:
        with self.lock:
            self.inside[name] -= 1
            self.busy[name] += seconds
            self.last_leave[name] = time.perf_counter()
            self.thread_left[(name, threading.get_ident())] = self.last_leave[name]
            if last:
                self.done_at.append(time.perf_counter())


def stages(module: Any, costs: list[float], probe: Probe) -> list[Any]:
    built = []
    for position, (name, cost) in enumerate(zip(NAMES, costs, strict=True)):

        def work(item: Any, name: str = name, cost: float = cost, last: bool = position == 2) -> Any:
            probe.enter(name)
            started = time.perf_counter()
            try:
                time.sleep(cost)  # waiting, like a disk or a network: the GIL is free meanwhile
            finally:
                probe.leave(name, last, time.perf_counter() - started)
            ident, path = item
            return ident, (*path, name)

        built.append(module.Stage(name, work))
    return built


def learner() -> Any:
    return importlib.import_module("pipeline")


def reference() -> Any:
    spec = importlib.util.spec_from_file_location("reference_pipeline", HERE / "solution" / "pipeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["reference_pipeline"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def error(exc: BaseException) -> dict[str, str | None]:
    """The learner's exception, as run_learner reports one: its line and their traceback."""
    workspace = os.getcwd()  # run_learner starts the child in the workspace
    return {"error": _error_line(exc, workspace), "traceback": _learner_traceback(exc, workspace)}


def plain_report(report: Any) -> dict[str, Any]:
    return {
        "wall_s": float(report.wall_s),
        "items": int(report.items),
        "workers": {str(k): int(v) for k, v in dict(report.workers).items()},
        "busy_s": {str(k): float(v) for k, v in dict(report.busy_s).items()},
        "outputs": [(int(i), tuple(path)) for i, path in report.outputs],
    }


def run_once(costs: list[float], workers: list[int], items: int) -> dict[str, Any]:
    """The learner's pipeline once: its report and what the probe saw."""
    module, probe = learner(), Probe()
    report = module.run_pipeline(stages(module, costs, probe), [(i, ()) for i in range(items)], list(workers))
    return {
        "report": plain_report(report),
        "most_inside": probe.most,
        "probe_busy_s": probe.busy,
        "mean_gap_s": {
            name: probe.gap_s[name] / probe.gaps[name] if probe.gaps[name] else None for name in NAMES
        },
    }


def find_and_relieve(costs: list[float], workers: list[int], items: int, threads: int) -> dict[str, Any]:
    """One run, then the learner's bottleneck() and relieve() on its report."""
    module, probe = learner(), Probe()
    report = module.run_pipeline(stages(module, costs, probe), [(i, ()) for i in range(items)], list(workers))
    answer: dict[str, Any] = {"report": plain_report(report), "probe_busy_s": probe.busy}
    for key, call in (
        ("bottleneck", lambda: module.bottleneck(report)),
        ("relieve", lambda: module.relieve(report, threads)),
    ):
        try:
            value = call()
            answer[key] = {"value": list(value) if key == "relieve" else value}
        except Exception as exc:  # the learner's error is the answer to report
            answer[key] = error(exc)
    return answer


def throughput(module: Any, costs: list[float], workers: list[int], items: int) -> tuple[float, bool]:
    """(items per second END TO END — from the first item entering the first stage to the last one
    leaving the last stage, filling included —, whether the last stage began before the first one
    had finished: the overlap that makes a pipeline). Measured from the first item out instead, a
    program that runs each stage over all items before the next looks faster than any pipeline: its
    last stage releases everything in one burst."""
    probe = Probe()
    module.run_pipeline(stages(module, costs, probe), [(i, ()) for i in range(items)], list(workers))
    first, last = NAMES[0], NAMES[-1]
    if not probe.done_at or first not in probe.first_enter or last not in probe.first_enter:
        return 0.0, False
    elapsed = max(probe.done_at) - probe.first_enter[first]
    overlap = probe.first_enter[last] < probe.last_leave[first]
    return (len(probe.done_at) / elapsed if elapsed > 0 else 0.0), overlap


def measure_round(costs: list[float], workers: list[int], items: int, learner_first: bool) -> dict[str, Any]:
    """One round: the learner's and the reference pipeline, each once, in the given order."""
    modules = {"learner": learner(), "reference": reference()}
    order = ["learner", "reference"] if learner_first else ["reference", "learner"]
    measured = {which: throughput(modules[which], costs, workers, items) for which in order}
    return {
        "learner": measured["learner"][0],
        "reference": measured["reference"][0],
        "learner_overlaps": measured["learner"][1],
    }
