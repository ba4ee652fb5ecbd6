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

    def __init__(self, names: tuple[str, ...] = NAMES) -> None:
        self.lock = threading.Lock()
        self.inside = dict.fromkeys(names, 0)
        self.most = dict.fromkeys(names, 0)
        self.done_at: list[float] = []
        self.busy = dict.fromkeys(names, 0.0)  # seconds inside the work, measured here
        self.first_enter: dict[str, float] = {}  # when each stage began its first item
        self.last_leave: dict[str, float] = {}  # when each stage finished its last item
        # Per stage: the time a thread spent outside work() between two of its items (waiting in
        # get(), for a lock, sleeping, ...), summed, and how many such gaps there were.
        self.thread_left: dict[tuple[str, int], float] = {}
        self.gap_s = dict.fromkeys(names, 0.0)
        self.gaps = dict.fromkeys(names, 0)

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


def stages(module: Any, costs: list[float], probe: Probe, names: tuple[str, ...] = NAMES) -> list[Any]:
    built = []
    for position, (name, cost) in enumerate(zip(names, costs, strict=True)):

        def work(
            item: Any, name: str = name, cost: float = cost, last: bool = position == len(names) - 1
        ) -> Any:
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


# -- generated pipelines and reports, the reference as the oracle -----------------------------------

CASE_TIMEOUT_S = 5.0  # a generated pipeline runs in milliseconds: longer is a hang


def _run_with_timeout(call: Any, *args: Any) -> tuple[str, Any]:
    """("ok", value), ("raised", error) or ("hung", None): the learner's pipeline in a thread, so a
    hang on one case is reported with that case instead of timing out the whole driver."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = call(*args)
        except Exception as exc:  # their error is the answer to report
            outcome["raised"] = {**error(exc), "type": type(exc).__name__}

    thread = threading.Thread(target=target, name="checker-generated-case", daemon=True)
    thread.start()
    thread.join(CASE_TIMEOUT_S)
    if thread.is_alive():
        return "hung", None
    if "raised" in outcome:
        return "raised", outcome["raised"]
    return "ok", outcome["value"]


class Eager(tuple):  # type: ignore[type-arg]
    """An item that says it equals anything, as `unittest.mock.ANY` does (and an array type's `==`
    is no plain bool either): only `is` tells the end marker `_DONE` from it."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = tuple.__hash__


def run_generated(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each generated pipeline through the reference, then the learner's run_pipeline, in the order
    given; stops at the first case their code hung in. Per case: both plain reports (or the
    exception the reference raises on workers it cannot run), what the probe saw inside work() (busy
    time, first entry, last exit) and the time around the call."""
    module, oracle = learner(), reference()
    results = []
    # An exception in one of their stage threads ends only that thread; the rest may then wait for
    # ever. Kept, so a hang can be reported with the error that caused it.
    raised_in_thread: list[dict[str, str | None]] = []
    threading.excepthook = lambda hook: raised_in_thread.append(error(hook.exc_value or RuntimeError()))
    for case in cases:
        raised_in_thread.clear()
        names, costs = tuple(case["stages"]), list(case["costs"])
        items = [Eager((i, ())) for i in range(case["items"])]
        try:
            expected: dict[str, Any] = plain_report(
                oracle.run_pipeline(stages(oracle, costs, Probe(names), names), items, case["workers"])
            )
        except ValueError as exc:  # workers it cannot run (a stage without a thread): refused
            expected = {"raises": type(exc).__name__}
        probe = Probe(names)
        begun = time.perf_counter()
        status, value = _run_with_timeout(
            module.run_pipeline, stages(module, costs, probe, names), list(items), list(case["workers"])
        )
        elapsed = time.perf_counter() - begun
        result: dict[str, Any] = {"status": status, "expected": expected, "timeout_s": CASE_TIMEOUT_S}
        if raised_in_thread:
            result["thread_error"] = raised_in_thread[0]
        if status == "ok":
            try:
                result["report"] = plain_report(value)
            except Exception as exc:  # a report the checker cannot read is their answer too
                result["status"], result["error"] = "raised", error(exc)
        elif status == "raised":
            result["error"] = value
        result["probe_busy_s"] = probe.busy
        result["worked"] = (
            [min(probe.first_enter.values()), max(probe.last_leave.values())] if probe.last_leave else None
        )
        result["called"] = [begun, begun + elapsed]
        results.append(result)
        if status == "hung":  # its threads are still waiting: the next case would share the machine
            break
    return results


def judge_reports(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The learner's bottleneck() and relieve() against the reference's on generated reports,
    smallest first: for each, the first case where theirs is worse (or raised), else None. A report
    is built anew for every call, from the learner's own Report class for their functions."""
    module, oracle = learner(), reference()

    def built(kind: Any, case: dict[str, Any]) -> Any:
        return kind.Report(
            wall_s=1.0,
            items=case["items"],
            workers=dict(zip(case["stages"], case["workers"], strict=True)),
            busy_s=dict(zip(case["stages"], case["busy_s"], strict=True)),
            outputs=[],
        )

    found: dict[str, Any] = {"bottleneck": None, "relieve": None}
    for case in cases:
        per_thread = {
            n: b / w for n, b, w in zip(case["stages"], case["busy_s"], case["workers"], strict=True)
        }
        if found["bottleneck"] is None:
            expected = oracle.bottleneck(built(oracle, case))
            try:
                answer = module.bottleneck(built(module, case))
            except Exception as exc:  # their error is the answer to report
                found["bottleneck"] = {"case": case, "raised": error(exc), "expected": expected}
            else:
                # a tie is any of the tied stages: compare what the answer costs, not its name
                if not (isinstance(answer, str) and answer in per_thread) or per_thread[answer] < per_thread[
                    expected
                ] * (1 - 1e-9):
                    found["bottleneck"] = {"case": case, "answer": repr(answer), "expected": expected}
        if found["relieve"] is None:
            expected_split = oracle.relieve(built(oracle, case), case["threads"])
            try:
                answer = module.relieve(built(module, case), case["threads"])
                answer = list(answer) if isinstance(answer, (list, tuple)) else answer
            except Exception as exc:  # their error is the answer to report
                found["relieve"] = {"case": case, "raised": error(exc), "expected": expected_split}
            else:
                if not split_as_good(answer, expected_split, case):
                    found["relieve"] = {"case": case, "answer": repr(answer), "expected": expected_split}
        if found["bottleneck"] is not None and found["relieve"] is not None:
            break
    return found


def slowest_per_item(case: dict[str, Any], split: list[int]) -> float:
    """Seconds per item of the slowest stage under `split`: 1 / throughput, as the theory has it."""
    per_item = [busy / max(case["items"], 1) for busy in case["busy_s"]]
    return max(cost / workers for cost, workers in zip(per_item, split, strict=True))


def split_as_good(answer: Any, expected: list[int], case: dict[str, Any]) -> bool:
    """A valid split (one whole number ≥ 1 per stage, at most `threads` in all) whose slowest stage
    is no slower than the reference's: another split as good is as right (ties)."""
    if not isinstance(answer, list) or len(answer) != len(case["stages"]):
        return False
    if not all(type(w) is int and w >= 1 for w in answer) or sum(answer) > case["threads"]:
        return False
    return slowest_per_item(case, answer) <= slowest_per_item(case, expected) * (1 + 1e-9)
