"""Checker of the comm-share-from-trace exercise (README.md).

1. Planted traces, built here with fresh random numbers every check: the answer is known, no clock
   is involved. They hold the traps of a real DDP trace — two gloo threads reducing at once, the
   c10d:: calls that only queue a collective, collectives outside the steps (DDP's first broadcast,
   a barrier after the loop), times in microseconds, the profiler's own span around everything.
2. A real run: two ranks (the distributed lab's own launcher: gloo on 127.0.0.1, ranks that die
   with the checker) train a DDP model for a few steps under torch.profiler. The learner's function
   reads rank 0's trace and must agree with this checker's reading of the same file; the comm hook
   timers of the same steps are shown beside it. Both read one file, so noise cannot move the
   comparison: only the recording depends on the machine, and when a busy machine keeps it from
   finishing in time the verdict is undecided, never failed.
"""

from __future__ import annotations

import json
import math
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import (
    Checker,
    call_on_cases,
    is_close,
    learner_function,
    parse_args,
    run_learner,
    say,
    short_repr,
)
from labs._exercise.shrink import answer_or_error, smallest_disagreement

LEARNER_FILE = "comm_share.py"
FUNCTION = "communication_share"
KEYS = ("steps", "step_s", "comm_s", "share")
TOLERANCE = 1e-9  # relative: both sides read the same numbers from the same file (1e-6 let µs/1000001 pass)
MAIN, GLOO_A, GLOO_B, PID = 101, 201, 202, 4242

Span = tuple[float, float]


# -- the driver (runs in the learner's child process) ------------------------------------------------


def probe(paths: list[str]) -> list[Any]:
    cases = [{"name": Path(path).stem, "path": path} for path in paths]
    return call_on_cases(LEARNER_FILE, FUNCTION, cases, ("path",))


def probe_generated(seed: int, scratch: str) -> dict[str, Any] | None:
    """The smallest generated trace (seeded: `generated_traces`) on which the learner's reading and
    the checker's reference reading differ, shrunk; None when they agree on every one."""
    function = learner_function(LEARNER_FILE, FUNCTION)
    path = Path(scratch) / "generated.pt.trace.json"

    def answer_of(items: list[dict[str, Any]]) -> tuple[bool, Any]:
        path.write_text(json.dumps(as_trace(items)), encoding="utf-8")
        return answer_or_error(function, str(path))

    found = smallest_disagreement(
        generated_traces(random.Random(seed)),
        answer_of,
        lambda items: answer_part(reading(as_trace(items))),
        agrees,
    )
    if found is not None and "answer" in found:
        found["answer"] = answer_text(found["answer"])  # plain text: any object they returned travels
    return found


# -- the checker's own reading of a trace --------------------------------------------------------------


def complete_events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace["traceEvents"] if e.get("ph") == "X"]


def named(events: list[dict[str, Any]], prefix: str) -> list[Span]:
    return [
        (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        for e in events
        if str(e["name"]).startswith(prefix)
    ]


def covered(intervals: list[Span], start: float, end: float) -> float:
    merged: list[list[float]] = []
    for a, b in sorted((max(a, start), min(b, end)) for a, b in intervals if a < end and b > start):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return sum(b - a for a, b in merged)


def reading(trace: dict[str, Any]) -> dict[str, Any]:
    """The answer, and the numbers that common slips would give instead (for the hints)."""
    events = complete_events(trace)
    steps = named(events, "ProfilerStep#")
    gloo = named(events, "gloo:")
    step_us = sum(b - a for a, b in steps)
    comm_us = sum(covered(gloo, a, b) for a, b in steps)
    everything = named(events, "")
    whole = [(min(a for a, _ in everything), max(b for _, b in everything))] if everything else []
    return {
        "steps": len(steps),
        "step_s": step_us / 1e6,
        "comm_s": comm_us / 1e6,
        "share": comm_us / step_us if step_us > 0 else 0.0,
        "slips": {
            "summed": sum(min(b, e) - max(a, s) for s, e in steps for a, b in gloo if a < e and b > s) / 1e6,
            "enqueue": sum(covered(named(events, "c10d::"), a, b) for a, b in steps) / 1e6,
            "whole_trace": covered(gloo, -math.inf, math.inf) / 1e6,
            "profiler_span": sum(b - a for a, b in named(events, "PyTorch Profiler")) / 1e6,
            "trace_length": sum(b - a for a, b in whole) / 1e6,
        },
    }


# -- planted traces ---------------------------------------------------------------------------------


def event(name: str, cat: str, tid: int, ts: float, dur: float) -> dict[str, Any]:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": PID,
        "tid": tid,
        "ts": round(ts, 3),
        "dur": round(dur, 3),
    }


def planted_step(
    rng: random.Random, events: list[dict[str, Any]], start: float, length: float, number: int
) -> None:
    """One DDP step: forward/backward ops on the main thread, 3 buckets queued by c10d::allreduce_
    and executed on two gloo threads, the second overlapping the first."""
    events.append(event(f"ProfilerStep#{number}", "user_annotation", MAIN, start, length))
    events.append(event("aten::linear", "cpu_op", MAIN, start + 0.02 * length, 0.2 * length))
    queued = [start + length * f for f in (0.35 + rng.uniform(0, 0.05), 0.5 + rng.uniform(0, 0.05), 0.7)]
    first_end = queued[0] + rng.uniform(0.05, 0.1) * length + 0.25 * length
    runs = [
        (queued[0] + rng.uniform(0.02, 0.05) * length, first_end, GLOO_A),
        (queued[1] + rng.uniform(0.0, 0.02) * length, first_end + rng.uniform(0.05, 0.1) * length, GLOO_B),
        (queued[2] + rng.uniform(0.1, 0.12) * length, start + rng.uniform(0.92, 0.96) * length, GLOO_A),
    ]
    for when, (a, b, tid) in zip(queued, runs, strict=True):
        events.append(event("c10d::allreduce_", "cpu_op", MAIN, when, rng.uniform(20, 90)))
        events.append(event("gloo:all_reduce", "user_annotation", tid, a, b - a))
    events.append(event("Optimizer.step#SGD.step", "cpu_op", MAIN, start + 0.96 * length, 0.03 * length))


def planted_traces(rng: random.Random) -> dict[str, dict[str, Any]]:
    base = rng.uniform(1e12, 5e12)  # real traces count µs from an arbitrary, large origin
    traces = {}

    events: list[dict[str, Any]] = []
    at = base
    for number in range(1, 4):  # three contiguous steps, as torch.profiler's schedule records them
        length = rng.uniform(8_000, 16_000)
        planted_step(rng, events, at, length, number)
        at += length
    traces["three-steps"] = events

    events = []
    # DDP broadcasts the parameters when it is built, before the loop: a collective outside any step
    events.append(event("gloo:broadcast", "user_annotation", GLOO_A, base, rng.uniform(2_000, 4_000)))
    at = base + 6_000
    lengths = [rng.uniform(9_000, 14_000) for _ in range(2)]
    planted_step(rng, events, at, lengths[0], 7)
    gap_start = at + lengths[0]
    at = gap_start + rng.uniform(1_500, 3_000)  # something unprofiled between the steps
    planted_step(rng, events, at, lengths[1], 8)
    # a collective that started in step 7 and ended in step 8, across the gap: only its parts inside count
    events.append(
        event("gloo:all_reduce", "user_annotation", GLOO_B, gap_start - 800, at + 600 - (gap_start - 800))
    )
    events.append(
        event("gloo:barrier", "user_annotation", GLOO_B, at + lengths[1] + 500, rng.uniform(1_000, 3_000))
    )
    traces["gaps-and-outside"] = events

    for name, events in traces.items():
        start = min(e["ts"] for e in events) - 100
        end = max(e["ts"] + e["dur"] for e in events) + 100
        events.append(event("PyTorch Profiler (0)", "Trace", MAIN, start, end - start))
        events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "name": "[memory]",
                "pid": PID,
                "tid": MAIN,
                "ts": start + 5,
                "s": "t",
            }
        )
        traces[name] = {"schemaVersion": 1, "traceEvents": events}
    return traces


# -- generated traces: the reference reading is the oracle ------------------------------------------

COLLECTIVES = (
    "gloo:all_reduce",
    "gloo:all_gather",
    "gloo:reduce_scatter",
    "gloo:broadcast",
    "gloo:barrier",
    "gloo:all_to_all",
)
GLOO_C = 203


def as_trace(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"schemaVersion": 1, "traceEvents": items}


def answer_part(value: dict[str, Any]) -> dict[str, Any]:
    return {key: value[key] for key in KEYS}


def agrees(answer: Any, expected: dict[str, Any]) -> bool:
    """Steps exactly, times and share within TOLERANCE (relative) of the reference reading."""
    if numbers(answer) is not None:
        return False
    if answer["steps"] != expected["steps"]:
        return False
    return all(
        math.isclose(float(answer[key]), float(expected[key]), rel_tol=TOLERANCE, abs_tol=1e-12)
        for key in ("step_s", "comm_s", "share")
    )


def answer_text(value: Any) -> str:
    if isinstance(value, dict) and numbers(value) is None:
        return " ".join(f"{key}={value[key]:.6g}" for key in KEYS)
    return short_repr(value, 80)


def events_text(items: list[dict[str, Any]]) -> str:
    """`ProfilerStep#10 0+100µs; gloo:all_gather t203 20+50µs`: times from the trace's first event."""
    origin = min((float(e["ts"]) for e in items), default=0.0)
    parts = []
    for e in sorted(items, key=lambda e: (float(e["ts"]), str(e["name"]))):
        thread = f" t{e['tid']}" if e.get("tid") != MAIN else ""
        if e.get("ph") == "X":
            parts.append(f"{e['name']}{thread} {float(e['ts']) - origin:g}+{float(e['dur']):g}µs")
        else:
            parts.append(f"{e['name']}{thread} ph={e.get('ph')} at {float(e['ts']) - origin:g}µs")
    return "; ".join(parts) or say("no events", "이벤트 없음")


def _step(number: int, start: int, length: int) -> dict[str, Any]:
    return event(f"ProfilerStep#{number}", "user_annotation", MAIN, start, length)


def _gloo(name: str, tid: int, start: int, length: int) -> dict[str, Any]:
    return event(name, "user_annotation", tid, start, length)


def edge_traces(base: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Small traces, each for one edge: no step, one step, a collective around a step, nested and
    overlapping collectives of mixed kinds, step numbers 9, 10 and 100 listed out of order."""
    enqueue = event("c10d::allreduce_", "cpu_op", MAIN, base + 5, 40)
    return [
        ("no-step", [_gloo("gloo:all_reduce", GLOO_A, base, 50), enqueue]),
        ("one-microsecond-step", [_step(5, base, 1), _gloo("gloo:all_reduce", GLOO_A, base, 1)]),
        ("one-step-no-collective", [_step(10, base, 100), enqueue]),
        ("one-step-one-broadcast", [_step(17, base, 100), _gloo("gloo:broadcast", GLOO_A, base + 20, 30)]),
        (
            "collective-around-the-step",
            [_step(42, base, 100), _gloo("gloo:all_gather", GLOO_B, base - 30, 160)],
        ),
        (
            "nested-and-overlapping",
            [
                _step(11, base, 200),
                _gloo("gloo:all_reduce", GLOO_A, base + 20, 130),
                _gloo("gloo:all_gather", GLOO_A, base + 40, 50),  # nested in the all_reduce, same thread
                _gloo("gloo:reduce_scatter", GLOO_B, base + 140, 40),  # overlaps its end
            ],
        ),
        (
            "steps-100-9-10",
            [
                _step(100, base + 600, 100),
                _step(9, base, 100),
                _step(10, base + 100, 100),
                _gloo("gloo:all_reduce", GLOO_A, base + 80, 50),  # from step 9 into step 10
                _gloo("gloo:broadcast", GLOO_B, base + 300, 100),  # in the gap: not counted
                _gloo("gloo:barrier", GLOO_A, base + 650, 70),  # past the end of step 100
            ],
        ),
    ]


def random_trace(rng: random.Random, base: int, size: int) -> list[dict[str, Any]]:
    """`size` steps with multi-digit, often non-contiguous numbers, gaps or none, and collectives of
    every kind on three gloo threads: nested, overlapping, across step edges and outside the steps."""
    first = rng.choice([rng.randint(5, 12), rng.randint(90, 120), rng.randint(1000, 5000)])
    contiguous_numbers = rng.random() < 0.5
    numbers_ = (
        list(range(first, first + size)) if contiguous_numbers else sorted(rng.sample(range(1, 3000), size))
    )
    items: list[dict[str, Any]] = []
    at = base + rng.randint(0, 2_000)
    spans_: list[tuple[int, int]] = []
    for number in numbers_:
        length = rng.randint(500, 5_000)
        items.append(_step(number, at, length))
        items.append(event("aten::linear", "cpu_op", MAIN, at + 10, length // 3))
        spans_.append((at, at + length))
        at += length + (rng.randint(1, 1_500) if rng.random() < 0.5 else 0)
    low, high = spans_[0][0] - 1_000, spans_[-1][1] + 1_000
    for _ in range(rng.randint(0, 4 * size)):
        start = rng.randint(low, high)
        length = rng.randint(10, 3_000)
        tid = rng.choice((GLOO_A, GLOO_B, GLOO_C))
        items.append(_gloo(rng.choice(COLLECTIVES), tid, start, length))
        if rng.random() < 0.3:  # a collective nested in another on the same thread
            inner = rng.randint(1, length)
            items.append(_gloo(rng.choice(COLLECTIVES), tid, start + rng.randint(0, length - inner), inner))
        if rng.random() < 0.5:  # the c10d:: call that queued it: not execution time
            items.append(
                event("c10d::allreduce_", "cpu_op", MAIN, start - rng.randint(1, 200), rng.randint(5, 60))
            )
    items.append(event("PyTorch Profiler (0)", "Trace", MAIN, low - 100, high - low + 200))
    # Events that are not complete ("ph": "X") events, named like a collective: they do not count.
    at_step = rng.randint(spans_[0][0], spans_[-1][1])
    items.append(
        {
            "ph": "i",
            "cat": "user_annotation",
            "name": "gloo:all_reduce",
            "pid": PID,
            "tid": GLOO_A,
            "ts": at_step,
            "s": "t",
        }
    )
    items.append({"ph": "B", "name": "gloo:barrier", "pid": PID, "tid": GLOO_B, "ts": at_step})
    items.append({"ph": "E", "name": "gloo:barrier", "pid": PID, "tid": GLOO_B, "ts": at_step + 50})
    rng.shuffle(items)  # a trace's events are not in time order
    return items


def generated_traces(rng: random.Random) -> list[tuple[str, list[dict[str, Any]]]]:
    """The edge traces, then random ones of 1 to 12 steps: smallest first (the first one a learner
    gets wrong is the one shown)."""
    # Integer µs: every sum is exact. Real traces count from a large origin, others from 0: a
    # difference computed any other way (b % a equals b - a only while b < 2a) shows on the latter.
    base = rng.randrange(10**12, 5 * 10**12)
    cases = edge_traces(0)
    for index, size in enumerate([1, 2, 2, 3, 4, 5, 6, 8, 10, 12]):
        origin = base if index % 2 else rng.randint(0, 50)
        cases.append((f"random-{index + 1}", random_trace(rng, origin, size)))
    return sorted(cases, key=lambda case: len(case[1]))


# -- the requirements -------------------------------------------------------------------------------


def numbers(value: Any) -> str | None:
    """None when `value` is a dict with a number for every key; else what is wrong with it."""
    if not isinstance(value, dict):
        return say(
            f"returned {short_repr(value)}; return a dict with {', '.join(KEYS)}",
            f"반환값이 {short_repr(value)}입니다; {', '.join(KEYS)}를 담은 dict를 반환하세요",
        )
    missing = [
        key
        for key in KEYS
        if isinstance(value.get(key), bool) or not isinstance(value.get(key), (int, float))
    ]
    if missing:
        return say(
            f"no number for {', '.join(missing)} in {short_repr(value)}",
            f"{short_repr(value)}에 {', '.join(missing)}의 숫자가 없습니다",
        )
    return None


def microseconds_hint() -> str:
    return say(
        ": that is in µs — trace times are microseconds, report seconds",
        ": 이것은 µs 단위입니다 — trace의 시간은 microsecond이니 초(seconds)로 답하세요",
    )


def comm_hint(mine: float, expected: dict[str, Any]) -> str:
    slips = expected["slips"]
    if is_close(mine, expected["comm_s"] * 1e6, 1e-4):
        return microseconds_hint()
    if is_close(mine, slips["summed"], 1e-4):
        return say(
            ": that is the sum of the gloo spans — two gloo threads reduced at the same time; count that time once (the union)",
            ": 이것은 gloo span들의 합입니다 — 두 gloo thread가 동시에 reduce했습니다; 겹친 시간은 한 번만 "
            "세세요 (합집합)",
        )
    if is_close(mine, slips["enqueue"], 1e-4):
        return say(
            ": that is the c10d:: calls on the main thread — they only queue a collective and return; the gloo:* spans on gloo's threads are when it ran",
            ": 이것은 main thread의 c10d:: 호출입니다 — 이 호출은 collective를 queue에 넣고 돌아올 뿐입니다; "
            "collective가 실제로 돈 시간은 gloo thread의 gloo:* span입니다",
        )
    if is_close(mine, slips["whole_trace"], 1e-4) or mine > expected["comm_s"] * (1 + 1e-4):
        return say(
            ": more than the steps hold — count only the time inside the ProfilerStep#N spans (DDP's first broadcast and a barrier after the loop are outside them)",
            ": step들의 시간보다 깁니다 — ProfilerStep#N span 안의 시간만 세세요 (DDP의 첫 broadcast와 "
            "루프 뒤의 barrier는 그 밖에 있습니다)",
        )
    return ""


def step_hint(mine: float, expected: dict[str, Any]) -> str:
    if is_close(mine, expected["step_s"] * 1e6, 1e-4):
        return microseconds_hint()
    if is_close(mine, expected["step_s"] * 1e3, 1e-4):
        return say(": that is in ms — report seconds", ": 이것은 ms 단위입니다 — 초(seconds)로 답하세요")
    slips = expected["slips"]
    if is_close(mine, slips["profiler_span"], 1e-4) or is_close(mine, slips["trace_length"], 1e-4):
        return say(
            ": that is the whole trace — the steps are the ProfilerStep#N spans, not the profiler's own span",
            ": 이것은 trace 전체입니다 — step은 profiler 자신의 span이 아니라 ProfilerStep#N span입니다",
        )
    return ""


def check_planted(
    check: Checker, names: list[str], values: list[Any], expected: list[dict[str, Any]]
) -> bool:
    for name, value in zip(names, values, strict=True):
        problem = numbers(value)
        if problem is not None:
            check.requirement(
                "returns steps, step_s, comm_s and share as numbers", False, f"{problem} (trace {name})"
            )
            return False
    check.requirement(
        "returns steps, step_s, comm_s and share as numbers",
        True,
        say(f"a dict with {', '.join(KEYS)}", f"{', '.join(KEYS)}를 담은 dict"),
    )
    ok = True
    rows = list(zip(names, values, expected, strict=True))
    wrong = [(n, v, e) for n, v, e in rows if v["steps"] != e["steps"]]
    ok &= check.require(
        "steps: one per ProfilerStep#N span",
        not wrong,
        ", ".join(say(f"{e['steps']} in {n}", f"{n}: {e['steps']}개") for n, _, e in rows),
        next(
            (
                say(
                    f"trace {n}: you counted {v['steps']}, it has {e['steps']} ProfilerStep#N spans",
                    f"trace {n}: 여러분은 {v['steps']}개를 셌지만, ProfilerStep#N span은 {e['steps']}개입니다",
                )
                for n, v, e in wrong
            ),
            "",
        ),
    )
    wrong = [(n, v, e) for n, v, e in rows if not is_close(v["step_s"], e["step_s"], TOLERANCE)]
    ok &= check.require(
        "step_s: the steps' total time, in seconds",
        not wrong,
        ", ".join(
            say(f"{e['step_s'] * 1e3:.3f} ms in {n}", f"{n}: {e['step_s'] * 1e3:.3f} ms") for n, _, e in rows
        ),
        next(
            (
                say(
                    f"trace {n}: you measured {v['step_s']:.6g}, the steps last {e['step_s']:.6g} s{step_hint(v['step_s'], e)}",
                    f"trace {n}: 여러분이 잰 값 {v['step_s']:.6g}, step들의 실제 길이 {e['step_s']:.6g} s"
                    f"{step_hint(v['step_s'], e)}",
                )
                for n, v, e in wrong
            ),
            "",
        ),
    )
    wrong = [(n, v, e) for n, v, e in rows if not is_close(v["comm_s"], e["comm_s"], TOLERANCE)]
    ok &= check.require(
        "comm_s: time inside the steps when at least one gloo collective runs",
        not wrong,
        ", ".join(
            say(f"{e['comm_s'] * 1e3:.3f} ms in {n}", f"{n}: {e['comm_s'] * 1e3:.3f} ms") for n, _, e in rows
        ),
        next(
            (
                say(
                    f"trace {n}: you measured {v['comm_s']:.6g} s, expected {e['comm_s']:.6g} s{comm_hint(v['comm_s'], e)}",
                    f"trace {n}: 여러분이 잰 값 {v['comm_s']:.6g} s, 기대값 {e['comm_s']:.6g} s"
                    f"{comm_hint(v['comm_s'], e)}",
                )
                for n, v, e in wrong
            ),
            "",
        ),
    )
    wrong = [(n, v, e) for n, v, e in rows if not is_close(v["share"], e["share"], TOLERANCE)]
    ok &= check.require(
        "share = comm_s / step_s",
        not wrong,
        ", ".join(say(f"{e['share']:.4f} in {n}", f"{n}: {e['share']:.4f}") for n, _, e in rows),
        next(
            (
                say(
                    f"trace {n}: your share {v['share']:.6g}, expected {e['share']:.6g}",
                    f"trace {n}: 여러분의 share {v['share']:.6g}, 기대값 {e['share']:.6g}",
                )
                + (
                    say(
                        " (your own comm_s / step_s would be " + f"{v['comm_s'] / v['step_s']:.6g})",
                        f" (여러분 자신의 comm_s / step_s로 계산하면 {v['comm_s'] / v['step_s']:.6g}입니다)",
                    )
                    if v["step_s"]
                    else ""
                )
                for n, v, e in wrong
            ),
            "",
        ),
    )
    return bool(ok)


GENERATED = "agrees with the reference reading on generated traces"


def check_generated(check: Checker, workspace: Path, here: Path, seed: int, scratch: Path) -> bool:
    """The learner's reading against the reference reading on `generated_traces(seed)`."""
    check.progress(
        say(
            f"your {FUNCTION}() against the reference reading on generated traces (seed {seed})",
            f"생성한 trace들에서 여러분의 {FUNCTION}()을 기준 풀이의 값과 비교합니다 (seed {seed})",
        )
    )
    result = run_learner(workspace, here, "probe_generated", seed, str(scratch), timeout_s=60)
    if not check.require_ran(GENERATED, result):
        return False
    found = result.value
    if found is None:
        return check.requirement(
            GENERATED,
            True,
            say(
                "the same steps, step_s, comm_s and share on step numbers 9, 10, 100 and beyond, gaps, "
                "nested, overlapping and mixed collectives, no step and one step",
                "step 번호 9, 10, 100 이상, step 사이 틈, 중첩·겹침·여러 종류의 collective, step 0개와 1개에서 "
                "steps, step_s, comm_s, share가 모두 같습니다",
            ),
        )
    expected = answer_text(found["expected"])
    yours = found.get("answer") or say(f"raised {found['raised']}", f"{found['raised']} 예외 발생")
    shown = events_text(found["items"])
    return check.requirement(
        GENERATED,
        False,
        say(
            f"on {found['case']} cut to {len(found['items'])} of {found['size']} events, you: {yours}; "
            f"expected: {expected} — the events: {shown}",
            f"{found['case']} trace를 이벤트 {found['size']}개 중 {len(found['items'])}개로 줄여도 다릅니다, "
            f"여러분: {yours}; 기대값: {expected} — 이벤트: {shown}",
        ),
    )


def record_run(out_dir: Path, quick: bool, check: Checker) -> dict[str, Any]:
    """Two ranks, DDP, a few profiled steps: rank 0's trace and its comm hook timers."""
    from labs.distributed import launcher

    steps = 3 if quick else 4
    plan = {
        "phases": ["profile"],
        "world_sizes": [2],
        "loopback_interface": launcher.loopback_interface(),
        "collective_timeout_s": 120,
        "width": 512,
        "depth": 6,
        "global_batch": 64,
        "phase_warmup": 1,
        "profile_steps": steps,
        "trace_dir": str(out_dir),
        "total_work": steps,
    }
    ranks, _listening = launcher.run_ranks(
        2, plan, 120 if quick else 180, lambda _phase, _fraction, message: check.progress(message)
    )
    return ranks[0]["profile"]


def timer_comparison(profile: dict[str, Any], trace: dict[str, Any]) -> str:
    """The comm hook's share of the same steps, and how much of the difference is queueing (lab's analysis)."""
    from labs.distributed import analysis

    records = profile["steps"]
    step_s = sum(r["step_s"] for r in records)
    if not records or step_s <= 0:
        return ""
    timer_share = sum(r["comm_s"] for r in records) / step_s
    lab_reading = analysis.trace_comm_analysis(complete_events(trace))
    queued = lab_reading["launch_to_done_share"] - lab_reading["comm_share"]
    return say(
        f"; the comm hook timed {timer_share:.1%} of the same steps (each bucket from DDP handing it over to its result): "
        f"{queued:+.1%} of the step was waiting for a gloo thread, which gloo:* spans (execution) leave out",
        f"; 같은 step에서 comm hook이 잰 share는 {timer_share:.1%}입니다 (bucket마다 DDP가 넘겨준 때부터 "
        f"결과가 나올 때까지): step의 {queued:+.1%}는 gloo thread를 기다린 시간이며, gloo:* span(실행)에는 "
        "들어가지 않습니다",
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check:
        rng = random.Random()
        here = Path(__file__).resolve()
        with tempfile.TemporaryDirectory(prefix="comm-share-") as scratch:
            folder = Path(scratch)
            planted = planted_traces(rng)
            paths = []
            for name, trace in planted.items():
                path = folder / f"{name}.json"
                path.write_text(json.dumps(trace), encoding="utf-8")
                paths.append(str(path))
            check.progress(
                say(
                    f"your {FUNCTION}() on {len(paths)} planted traces",
                    f"심어 둔 trace {len(paths)}개에서 여러분의 {FUNCTION}()을 실행합니다",
                )
            )
            result = run_learner(args.workspace, here, "probe", paths, timeout_s=60)
            if not check.require_ran(f"{FUNCTION}() runs", result):
                check.stop()
            if not check_planted(check, list(planted), result.value, [reading(t) for t in planted.values()]):
                check.stop()  # the recorded run would fail the same way: fix the planted cases first
            if not check_generated(check, args.workspace, here, rng.randrange(2**32), folder):
                check.stop()

            check.progress(
                say(
                    "recording DDP steps on 2 processes (gloo on 127.0.0.1) under torch.profiler",
                    "torch.profiler로 프로세스 2개의 DDP step을 기록합니다 (127.0.0.1의 gloo)",
                )
            )
            from labs.distributed import launcher

            name = "a recorded 2-process DDP run: your reading = the checker's reading of the same trace"
            try:
                profile = record_run(folder, args.quick, check)
            except launcher.RankMissingDependency as exc:
                check.undecided(
                    name,
                    say(
                        f"this PyTorch cannot run the recording: {exc}",
                        f"이 PyTorch로는 기록을 실행할 수 없습니다: {exc}",
                    ),
                )
                check.stop()
            except launcher.RankFailed as exc:
                check.undecided(
                    name,
                    say(
                        f"the checker's own 2-process recording did not complete ({exc}); that says nothing about your "
                        "code — the machine is probably too busy: check again",
                        f"검사기 자신의 프로세스 2개 기록이 끝나지 않았습니다 ({exc}); 여러분의 코드와는 상관없는 "
                        "일입니다 — 기계가 너무 바쁜 것 같습니다: 다시 검사하세요",
                    ),
                )
                check.stop()
            trace_path = profile["trace"]
            trace = json.loads(Path(trace_path).read_text(encoding="utf-8"))
            expected = reading(trace)
            result = run_learner(args.workspace, here, "probe", [trace_path], timeout_s=60)
            if not check.require_ran(name, result):
                check.stop()
            (value,) = result.value
            problem = numbers(value)
            if problem is not None:
                check.requirement(name, False, problem)
                check.stop()
            agree = all(
                value[key] == expected[key]
                if key == "steps"
                else is_close(value[key], expected[key], TOLERANCE)
                for key in KEYS
            )
            mine = say(
                f"share {value['share']:.1%} = {value['comm_s'] * 1e3:.2f} / {value['step_s'] * 1e3:.2f} ms over {value['steps']} steps",
                f"step {value['steps']}개에서 share {value['share']:.1%} = {value['comm_s'] * 1e3:.2f} / "
                f"{value['step_s'] * 1e3:.2f} ms",
            )
            theirs = say(
                f"the checker read {expected['share']:.1%} = {expected['comm_s'] * 1e3:.2f} / {expected['step_s'] * 1e3:.2f} ms over {expected['steps']} steps",
                f"검사기가 읽은 값은 step {expected['steps']}개에서 {expected['share']:.1%} = "
                f"{expected['comm_s'] * 1e3:.2f} / {expected['step_s'] * 1e3:.2f} ms입니다",
            )
            check.require(
                name,
                agree,
                say(
                    f"{mine}, as the checker read it{timer_comparison(profile, trace)}",
                    f"{mine}, 검사기가 읽은 값과 같습니다{timer_comparison(profile, trace)}",
                ),
                f"{mine}; {theirs}{comm_hint(value['comm_s'], expected)}",
            )


if __name__ == "__main__":
    main()
