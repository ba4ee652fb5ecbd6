"""Checker of the tensorboard-logdir exercise (README.md).

1. `drive_write` (in the learner's child process) profiles two workloads with their write_logdir,
   counting the steps each workload runs and keeping the profiler's warnings; on a GPU machine the
   workloads run on the GPU.
2. The logdir is read here the way torch-tb-profiler finds runs, with the schedule read from what
   was written (one trace of ProfilerStep#2-#4 per run) and the GPU from the traces' kernels (or,
   without a GPU, from the profiler's warning that CUDA is not available). When the plugin is
   installed and the check is not `--quick`, a real TensorBoard is started on 127.0.0.1 for a few
   seconds to see that it lists both runs.
3. `drive_read` (another child) calls their read_overview on both runs and on a run the checker
   writes with random numbers, compared within tolerances with labs/profiler/tb_overview.py (the
   Overview's step time breakdown, computed the way the plugin does); then on generated runs with
   integer microseconds, gzipped and plain, compared exactly, the first disagreement shrunk.
"""

from __future__ import annotations

import gzip
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

from labs._exercise import Checker, one_line, parse_args, run_learner, say
from labs.profiler import exercise_support as support
from labs.profiler import tb_overview

RUNS = ("compute", "waiting")
ACTIVE_STEPS = 3
WAIT_S = 0.004  # the "waiting" run sleeps this long per step: time in no operator, so "Other"
STEP_MS_TOLERANCE = (0.03, 0.05)  # relative, absolute (ms)
PCT_TOLERANCE = 2.0  # percentage points
EXACT = 1e-9  # relative: what the last division of an exact sum may round away on generated runs
PLANTED_RUN = "planted"
CHECKER_RUN = "a run the checker wrote"  # a label in requirement names (translated with the names)
LABELS_KO = {CHECKER_RUN: "검사기가 쓴 run"}


def drive_write(logdir: str) -> dict[str, Any]:
    """In the learner's process: two workloads, profiled by their write_logdir. Returns how many
    steps each workload ran, whether they ran on a GPU, and the warnings the profiler gave."""
    import time
    import warnings

    import torch
    from tb_logdir import write_logdir  # the learner's module

    torch.set_num_threads(1)
    torch.manual_seed(0)
    # On a GPU machine the workloads run there: a trace that profiles CUDA then holds their kernels.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256)).to(
        device
    )
    batch = torch.randn(64, 256, device=device)
    calls = dict.fromkeys(RUNS, 0)

    def compute() -> None:
        calls["compute"] += 1
        model(batch).sum().backward()

    def waiting() -> None:
        calls["waiting"] += 1
        time.sleep(WAIT_S)  # e.g. waiting for the next batch: no operator runs meanwhile
        model(batch).sum().backward()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_logdir(logdir, {"compute": compute, "waiting": waiting})
    return {"calls": calls, "gpu": device == "cuda", "warnings": [str(w.message) for w in caught]}


def drive_read(run_dirs: list[str], seed: int, scratch: str) -> dict[str, Any]:
    """In the learner's process (one child: torch is imported once): their read_overview for each
    run folder, and the smallest generated run they get wrong (drive_generated)."""
    from tb_logdir import read_overview  # the learner's module

    answers = [read_overview(run_dir) for run_dir in run_dirs]
    return {"answers": answers, "generated": drive_generated(seed, scratch)}


def planted_trace(chooser: random.Random) -> dict[str, Any]:
    """A small CPU trace with random steps: nested ops, gaps, labels and events the plugin ignores."""
    events: list[dict[str, Any]] = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]
    clock = 1_000.0
    count = chooser.randint(4, 6)
    # One step is long and mostly idle (waiting for data) among short busy ones: the median step and
    # the mean step then differ by far, and so do total CPU Exec / total time and the mean of the
    # per-step shares — a reading of the Overview that swaps one for the other cannot pass by luck.
    idle_step = chooser.randrange(count)
    for step in range(count):
        idle = step == idle_step
        length = chooser.uniform(20_000, 30_000) if idle else chooser.uniform(2_000, 8_000)
        busy_until = length * (chooser.uniform(0.1, 0.2) if idle else 1.0)
        start = clock
        events.append(
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step + 10}", "pid": 1, "tid": 1}
            | {"ts": round(start, 3), "dur": round(length, 3)}
        )
        label_end = start + length * chooser.uniform(0.5, 0.9)
        events.append(  # a record_function label: not an operator, the plugin drops it
            {"ph": "X", "cat": "user_annotation", "name": "stage:forward", "pid": 1, "tid": 1}
            | {"ts": round(start + 5, 3), "dur": round(label_end - start - 10, 3)}
        )
        cursor = start + chooser.uniform(20, 200)
        while True:
            op = chooser.uniform(100, busy_until / 4)
            if cursor + op > start + busy_until - 20:
                break
            events.append(
                {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1}
                | {"ts": round(cursor, 3), "dur": round(op, 3)}
            )
            for _ in range(chooser.randint(1, 2)):  # children inside their parent: count once
                child_start = cursor + chooser.uniform(0, op / 2)
                child = chooser.uniform(1, (cursor + op - child_start) * 0.9)
                events.append(
                    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1}
                    | {"ts": round(child_start, 3), "dur": round(child, 3)}
                )
            if chooser.random() < 0.3:
                events.append(  # Python frames (with_stack): not an operator either
                    {"ph": "X", "cat": "python_function", "name": "model.py(12): forward", "pid": 1}
                    | {"tid": 1, "ts": round(cursor + op + 1, 3), "dur": round(chooser.uniform(5, 50), 3)}
                )
            cursor += op + chooser.uniform(30, busy_until / 5)
        events.append(
            {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": start}
        )
        clock = start + length + chooser.uniform(0, 300)
    return {"schemaVersion": 1, "traceEvents": events}


# -- generated runs: the plugin's own computation is the oracle --------------------------------------

OPERATORS = ("aten::linear", "aten::addmm", "aten::relu", "aten::mm", "aten::copy_")


def _x(name: str, cat: str, tid: int, ts: int, dur: int, pid: int = 1) -> dict[str, Any]:
    # Whole µs written as floats, as kineto writes times: sums stay exact, and a slip such as
    # `ts ** dur` overflows at once instead of growing an integer of billions of digits.
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": float(ts), "dur": float(dur)}


GPU_PID, GPU_TID = 0, 7  # where kineto puts a GPU's stream: device 0, stream 7
GPU_WORK = {"kernel": "sgemm_128x64_kernel", "gpu_memcpy": "Memcpy DtoD", "gpu_memset": "Memset (Device)"}


def _gpu(name: str, cat: str, ts: int, dur: int) -> dict[str, Any]:
    return _x(name, cat, GPU_TID, ts, dur, pid=GPU_PID)


def edge_runs(base: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Small runs, each for one edge: no step at all, an empty step, one busy step, one idle step,
    an operator around its step, operators touching the step's bounds and each other, steps 9, 10
    and 100 listed out of order with operators across their edges and in the gaps, and GPU work."""
    step = "user_annotation"
    return [
        ("empty-trace", []),
        ("no-step", [_x("aten::mm", "cpu_op", 1, base, 500)]),
        (
            "zero-length-step",
            [_x("ProfilerStep#5", step, 1, base, 0), _x("aten::mm", "cpu_op", 1, base - 100, 300)],
        ),
        (
            "one-busy-step",
            [_x("ProfilerStep#12", step, 1, base, 1000), _x("aten::mm", "cpu_op", 1, base, 1000)],
        ),
        (
            "one-idle-step",
            [_x("ProfilerStep#3", step, 1, base, 1000), _x("stage:load", "user_annotation", 1, base, 900)],
        ),
        (  # times counted from the profiler's start: a span longer than the time before it
            "near-time-zero",
            [_x("ProfilerStep#1", step, 1, 100, 1000), _x("aten::mm", "cpu_op", 1, 150, 800)],
        ),
        (
            "operator-around-the-step",
            [_x("ProfilerStep#40", step, 1, base, 1000), _x("aten::linear", "cpu_op", 1, base - 300, 1500)],
        ),
        (
            "operators-at-the-bounds",
            [
                _x("ProfilerStep#7", step, 1, base, 1000),
                _x("aten::copy_", "cpu_op", 1, base - 200, 200),  # ends where the step starts
                _x("aten::mm", "cpu_op", 1, base + 100, 300),
                _x("aten::relu", "cpu_op", 1, base + 400, 300),  # starts where aten::mm ends
                _x("aten::addmm", "cpu_op", 2, base + 100, 300),  # the same span on another thread
                _x("aten::linear", "cpu_op", 1, base + 1000, 250),  # starts where the step ends
            ],
        ),
        (
            "steps-100-9-10",
            [
                _x("ProfilerStep#100", step, 1, base + 5000, 2000),
                _x("ProfilerStep#9", step, 1, base, 1000),
                _x("ProfilerStep#10", step, 1, base + 1000, 3000),
                _x("aten::linear", "cpu_op", 1, base + 800, 400),  # across the edge of steps 9 and 10
                _x("aten::addmm", "cpu_op", 1, base + 850, 100),  # nested in it
                _x("aten::mm", "cpu_op", 2, base + 1100, 600),  # another thread, overlapping
                _x("aten::relu", "cpu_op", 1, base + 4200, 500),  # in the gap: no step
                _x("aten::copy_", "cpu_op", 1, base + 6500, 900),  # past the end of step 100
            ],
        ),
        (
            "kernel-under-an-operator",
            [
                _x("ProfilerStep#2", step, 1, base, 1000),
                _gpu("ProfilerStep#2", "gpu_user_annotation", base + 250, 700),  # the GPU's copy: not a step
                _x("aten::mm", "cpu_op", 1, base + 100, 600),
                _x("cudaLaunchKernel", "cuda_runtime", 1, base + 150, 30),
                _gpu("sgemm_128x64", "kernel", base + 300, 600),  # under aten::mm, then past its end
            ],
        ),
        (
            "copies-while-the-cpu-waits",
            [
                _x("ProfilerStep#3", step, 1, base, 2000),
                _x("aten::copy_", "cpu_op", 1, base, 400),
                _gpu("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", base + 600, 300),  # the CPU idle
                _gpu("Memset (Device)", "gpu_memset", base + 300, 200),  # half under aten::copy_
                _gpu("relu_kernel", "kernel", base + 1800, 700),  # runs on past the step's end
            ],
        ),
    ]


def random_run(rng: random.Random, base: int, size: int, gpu: bool = False) -> list[dict[str, Any]]:
    """`size` steps with multi-digit, often non-contiguous numbers, some with gaps between them and
    one mostly idle; operators nested, on two threads and across step edges; labels and Python
    frames the plugin drops; with `gpu`, kernels, copies and memsets the operators launch (under
    them, after them, in gaps) and the GPU's copies of the steps; the events shuffled."""
    first = rng.choice([rng.randint(5, 12), rng.randint(95, 120), rng.randint(1000, 5000)])
    numbers = (
        list(range(first, first + size)) if rng.random() < 0.5 else sorted(rng.sample(range(1, 3000), size))
    )
    idle = rng.randrange(size)
    items: list[dict[str, Any]] = []
    at = base
    for index, number in enumerate(numbers):
        length = rng.randint(8_000, 30_000) if index == idle else rng.randint(1_000, 6_000)
        busy = length // 6 if index == idle else length
        items.append(_x(f"ProfilerStep#{number}", "user_annotation", 1, at, length))
        items.append(_x("stage:forward", "user_annotation", 1, at + 5, length // 2))
        if gpu:
            items.append(
                _gpu(f"ProfilerStep#{number}", "gpu_user_annotation", at + rng.randint(0, 500), length)
            )
        cursor = at + rng.randint(-200, 200)  # the first operator may start before its step
        while cursor < at + busy:
            op = rng.randint(50, max(51, busy // 3))
            items.append(_x(rng.choice(OPERATORS), "cpu_op", rng.choice((1, 1, 2)), cursor, op))
            if rng.random() < 0.5:
                inner = rng.randint(1, op)
                items.append(_x("aten::addmm", "cpu_op", 1, cursor + rng.randint(0, op - inner), inner))
            if rng.random() < 0.2:
                items.append(
                    _x("model.py(12): forward", "python_function", 1, cursor + op, rng.randint(5, 50))
                )
            if gpu and rng.random() < 0.6:
                launch = cursor + rng.randint(0, op - 1)
                items.append(_x("cudaLaunchKernel", "cuda_runtime", 1, launch, rng.randint(1, 30)))
                kind = rng.choice(sorted(GPU_WORK))
                items.append(_gpu(GPU_WORK[kind], kind, launch + rng.randint(1, 400), rng.randint(1, 2 * op)))
            cursor += op + rng.randint(0, busy // 4)
        at += length + (rng.randint(1, 2_000) if rng.random() < 0.4 else 0)
    rng.shuffle(items)
    return items


def generated_runs(rng: random.Random) -> list[tuple[str, list[dict[str, Any]]]]:
    """The edge runs, then random CPU runs of 1 to 10 steps and random GPU runs: smallest first."""
    base = rng.randrange(10**9, 10**12)  # integer µs: every sum is exact
    cases = edge_runs(base)
    # Every other random run starts a few hundred µs after 0, as a trace whose times are counted
    # from the profiler's start: times of the same size as the spans between them.
    for index, size in enumerate([1, 2, 3, 4, 6, 8, 10]):
        start = rng.randint(300, 999) if index % 2 else base
        cases.append((f"random-{index + 1}", random_run(rng, start, size)))
    for index, size in enumerate([1, 3, 6]):
        start = rng.randint(300, 999) if index % 2 else base
        cases.append((f"random-gpu-{index + 1}", random_run(rng, start, size, gpu=True)))
    return sorted(cases, key=lambda case: len(case[1]))


NO_STEP = {"steps": 0, "step_ms": 0.0, "cpu_exec_pct": 0.0, "other_pct": 0.0}  # README: a run without steps


def overview_of(items: list[dict[str, Any]]) -> dict[str, Any]:
    return expected_overview_of({"schemaVersion": 1, "traceEvents": items}) or NO_STEP


TRACE_NAME = "checker.1700000000000.pt.trace.json"
FORMATS = (("gz", ".gz"), ("plain", ""))  # how each generated run is written: gzipped, then plain


def drive_generated(seed: int, scratch: str) -> dict[str, Any] | None:
    """In the learner's process: the smallest generated run (shrunk) on which their read_overview
    and the plugin's computation differ, written gzipped and then as plain .json; None when they
    agree on every one."""
    from tb_logdir import read_overview  # the learner's module

    from labs._exercise.shrink import answer_or_error, smallest_disagreement

    for form, suffix in FORMATS:
        run_dir = Path(scratch) / "generated" / form
        run_dir.mkdir(parents=True, exist_ok=True)
        trace = run_dir / (TRACE_NAME + suffix)
        opener: Any = gzip.open if suffix else open

        def answer_of(
            items: list[dict[str, Any]], trace: Path = trace, opener: Any = opener
        ) -> tuple[bool, Any]:
            with opener(trace, "wt", encoding="utf-8") as handle:
                json.dump({"schemaVersion": 1, "traceEvents": items}, handle)
            return answer_or_error(read_overview, str(trace.parent))

        def agree(answer: Any, expected: dict[str, Any]) -> bool:
            return not compare(answer, expected, exact=True)

        found = smallest_disagreement(generated_runs(random.Random(seed)), answer_of, overview_of, agree)
        if found is not None:
            found["file"] = trace.name
            found["problems"] = (
                compare(found["answer"], found["expected"], exact=True) if "answer" in found else []
            )
            found.pop("answer", None)  # their object may not travel: the problems say what it was
            return found
    return None


def events_text(items: list[dict[str, Any]]) -> str:
    """`ProfilerStep#10 0+1000µs; aten::mm t2 100+600µs; sgemm [kernel] t7 300+600µs`: times from
    the run's first event; the category of every event that is neither a step nor a cpu_op."""
    if not items:
        return say("none (an empty traceEvents)", "없음 (빈 traceEvents)")
    origin = min(float(e["ts"]) for e in items)
    parts = []
    for e in sorted(items, key=lambda e: (float(e["ts"]), str(e["name"]))):
        step = e["cat"] == "user_annotation" and str(e["name"]).startswith("ProfilerStep#")
        cat = "" if step or e["cat"] == "cpu_op" else f" [{e['cat']}]"
        thread = f" t{e['tid']}" if e.get("tid") != 1 else ""
        parts.append(f"{e['name']}{cat}{thread} {float(e['ts']) - origin:g}+{float(e['dur']):g}µs")
    return "; ".join(parts)


def steps_without_operators(path: Path) -> list[tuple[str, float]]:
    """(name, µs) of every recorded ProfilerStep that encloses no operator (cpu_op): a step the
    workload never ran, only the profiler's bookkeeping. Both workloads run operators every step."""
    events = [e for e in support.load_trace(path).get("traceEvents", []) if e.get("ph") == "X"]
    ops = [
        float(e["ts"])
        for e in events
        if e.get("cat") == "cpu_op" and "ts" in e and not str(e.get("name", "")).startswith("ProfilerStep#")
    ]
    empty = []
    for event in events:
        # A GPU trace repeats each step on the GPU (gpu_user_annotation): only the CPU's copy counts.
        if (
            str(event.get("name", "")).startswith("ProfilerStep#")
            and event.get("cat") != "gpu_user_annotation"
        ):
            start, duration = float(event.get("ts", 0)), float(event.get("dur", 0))
            if not any(start <= ts <= start + duration for ts in ops):
                empty.append((str(event["name"]), duration))
    return empty


def expected_overview(path: Path) -> dict[str, Any] | None:
    return expected_overview_of(support.load_trace(path))


def expected_overview_of(document: dict[str, Any]) -> dict[str, Any] | None:
    overview = tb_overview.plugin_overview(document)
    if overview is None:
        return None
    return {
        "steps": overview["steps"],
        "step_ms": overview["step_ms"],
        "cpu_exec_pct": overview["pct"]["CPU Exec"],
        "other_pct": overview["pct"]["Other"],
    }


def compare(answer: Any, expected: dict[str, Any], exact: bool = False) -> list[str]:
    """What is off in the learner's answer (empty: it matches). `exact`: the same numbers but for
    the rounding of a division (generated runs: integer µs, every sum exact); otherwise within the
    tolerances (a real trace's float µs round differently in different sums)."""
    if not isinstance(answer, dict):
        return [
            say(
                f"read_overview returned {one_line(repr(answer), 80)}, not a dict",
                f"read_overview가 dict가 아닌 값을 돌려주었습니다: {one_line(repr(answer), 80)}",
            )
        ]
    problems = []
    for key in ("steps", "step_ms", "cpu_exec_pct", "other_pct"):
        value = answer.get(key)
        want = expected[key]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            problems.append(
                say(
                    f"{key} is {value!r}, expected {want:.12g}",
                    f"{key} 값이 {value!r}입니다; {want:.12g}이어야 합니다",
                )
            )
            continue
        if key == "steps":
            ok = value == want
        elif exact:
            ok = math.isclose(value, want, rel_tol=EXACT, abs_tol=EXACT)
        elif key == "step_ms":
            relative, absolute = STEP_MS_TOLERANCE
            ok = abs(value - want) <= max(relative * want, absolute)
        else:
            ok = abs(value - want) <= PCT_TOLERANCE
        if not ok:
            digits = 12 if exact else 4  # exact: enough digits to show an off-by-one constant
            problems.append(
                say(
                    f"{key} {value:.{digits}g}, the Overview shows {want:.{digits}g}",
                    f"{key} 값이 {value:.{digits}g}인데, Overview에 나오는 값은 {want:.{digits}g}입니다",
                )
            )
    return problems


def shown(expected: dict[str, Any]) -> str:
    return say(
        f"{expected['steps']} steps of {expected['step_ms']:.2f} ms: CPU Exec {expected['cpu_exec_pct']:.1f} %, "
        f"Other {expected['other_pct']:.1f} %",
        f"step {expected['steps']}개, step 시간 {expected['step_ms']:.2f} ms: "
        f"CPU Exec {expected['cpu_exec_pct']:.1f} %, Other {expected['other_pct']:.1f} %",
    )


def real_plugin(check: Checker, logdir: Path, names: list[str]) -> None:
    """Start the real plugin on the logdir when it is installed; see that it lists the runs."""
    from labs.profiler import tensorboard_server

    if not tensorboard_server.available():
        check.progress(
            say(
                "the TensorBoard profiler plugin is not installed: checked the layout the way it reads it",
                "TensorBoard profiler 플러그인이 설치되어 있지 않습니다: 플러그인이 읽는 방식대로 폴더 구성만 "
                "검사했습니다",
            )
        )
        return
    check.progress(
        say(
            "starting TensorBoard on 127.0.0.1 to see that its profiler plugin loads your runs",
            "profiler 플러그인이 여러분의 run을 불러오는지 보려고 127.0.0.1에서 TensorBoard를 시작합니다",
        )
    )
    try:
        process, url = tensorboard_server.start(str(logdir), timeout_s=60)
    except Exception as exc:  # the server's own trouble (a port, a crash): not the learner's logdir
        check.progress(
            say(
                f"TensorBoard did not start ({one_line(exc, 120)}): checked the layout only",
                f"TensorBoard가 시작되지 않았습니다 ({one_line(exc, 120)}): 폴더 구성만 검사했습니다",
            )
        )
        return
    try:
        listed = tensorboard_server.runs(url)
        missing = [name for name in names if name not in listed]
        seen = []
        for name in names:
            if name in listed:
                try:  # what the Overview page itself draws, for the learner to compare
                    pct = tensorboard_server.plugin_overview(url, name)["pct"]
                    seen.append(
                        f"{name}: CPU Exec {pct.get('CPU Exec', 0):.1f} %, Other {pct.get('Other', 0):.1f} %"
                    )
                except Exception:  # the page's data may still be loading: the listing is what counts
                    continue
        check.require(
            "TensorBoard's profiler plugin loads both runs",
            not missing,
            say(
                f"the plugin lists {', '.join(listed)}"
                + (f"; its Overview shows {'; '.join(seen)}" if seen else ""),
                f"플러그인이 보여 주는 run: {', '.join(listed)}"
                + (f"; Overview에 나오는 값: {'; '.join(seen)}" if seen else ""),
            ),
            say(
                f"the plugin lists {', '.join(listed) or 'no run'}; {', '.join(missing)} missing",
                f"플러그인의 run 목록에서 {', '.join(missing)} run이 빠졌습니다 "
                f"(플러그인이 보여 주는 run: {', '.join(listed) or '없음'})",
            ),
        )
    finally:
        tensorboard_server.stop(process)


STEPS_RUN = "each workload runs 5 steps: wait + warmup + active"
STEP_NUMBERS = "each run records ProfilerStep#2-#4: wait=1, warmup=1"
DEVICES = "CUDA is profiled where there is a GPU, and only there"
FIRST_ACTIVE = 2  # wait=1, warmup=1: steps 0 and 1 record nothing
UNAVAILABLE = "is not available, disabling"  # torch's warning when asked for an activity it lacks


def check_schedule(
    check: Checker, by_name: dict[str, tuple[str, list[Path]]], written: dict[str, Any]
) -> None:
    """The schedule, read from what happened: how often each workload ran, which steps were kept."""
    calls = written["calls"]
    expected_steps = FIRST_ACTIVE + ACTIVE_STEPS
    check.require(
        STEPS_RUN,
        all(calls[run] == expected_steps for run in RUNS),
        say(
            f"{', '.join(RUNS)}: {expected_steps} steps each",
            f"{', '.join(RUNS)}: 각각 step {expected_steps}개",
        ),
        say(
            ", ".join(f"{run} ran {calls[run]} steps" for run in RUNS)
            + f"; expected wait 1 + warmup 1 + active {ACTIVE_STEPS} = {expected_steps}",
            ", ".join(f"{run}은 step {calls[run]}개를 실행했습니다" for run in RUNS)
            + f"; wait 1 + warmup 1 + active {ACTIVE_STEPS} = {expected_steps}개여야 합니다",
        ),
    )
    recorded = {
        run: support.trace_steps(by_name[run][1][0])
        for run in RUNS
        if run in by_name and len(by_name[run][1]) == 1
    }
    if not recorded:
        return  # no run with one trace: the cycle requirement above already says so
    want = list(range(FIRST_ACTIVE, FIRST_ACTIVE + ACTIVE_STEPS))
    wrong = {run: steps for run, steps in recorded.items() if steps != want}
    check.require(
        STEP_NUMBERS,
        not wrong,
        say(
            f"{', '.join(recorded)}: ProfilerStep {support.ranges_text(want)}",
            f"{', '.join(recorded)}: ProfilerStep {support.ranges_text(want)}",
        ),
        say(
            "; ".join(
                f"{run} records ProfilerStep {support.ranges_text(steps)}" for run, steps in wrong.items()
            )
            + f"; expected {support.ranges_text(want)}: step 0 waits, step 1 warms up",
            "; ".join(
                f"{run}에 기록된 ProfilerStep은 {support.ranges_text(steps)}입니다"
                for run, steps in wrong.items()
            )
            + f"; {support.ranges_text(want)}이어야 합니다: step 0은 wait, step 1은 warmup",
        ),
    )


def kernels_in(path: Path) -> int:
    return sum(
        1
        for e in support.load_trace(path).get("traceEvents", [])
        if isinstance(e, dict) and e.get("cat") == "kernel"
    )


def check_devices(
    check: Checker, by_name: dict[str, tuple[str, list[Path]]], written: dict[str, Any]
) -> None:
    """With a GPU (the workloads then run on it) the traces hold its kernels; without one the
    profiler was not asked for CUDA (torch then warns that CUDA is not available)."""
    if written["gpu"]:
        counts = {run: sum(kernels_in(f) for f in by_name[run][1]) for run in RUNS if run in by_name}
        missing = [run for run, count in counts.items() if not count]
        check.require(
            DEVICES,
            not missing,
            say(
                "a GPU here: " + ", ".join(f"{run} holds {count} kernels" for run, count in counts.items()),
                "GPU가 있습니다: " + ", ".join(f"{run}에 kernel {count}개" for run, count in counts.items()),
            ),
            say(
                f"a GPU here (torch.cuda.is_available()), but no GPU kernel in {', '.join(missing)}: the "
                "workloads ran on the GPU and ProfilerActivity.CUDA was not profiled",
                f"GPU가 있는데(torch.cuda.is_available()) {', '.join(missing)}에 GPU kernel이 없습니다: workload는 "
                "GPU에서 돌았고 ProfilerActivity.CUDA가 프로파일되지 않았습니다",
            ),
        )
        return
    warned = [one_line(text, 120) for text in written["warnings"] if UNAVAILABLE in text]
    check.require(
        DEVICES,
        not warned,
        say(
            "no GPU here, and the profiler gave no warning of an activity it does not have",
            "GPU가 없고, profiler가 없는 activity에 대한 경고를 내지 않았습니다",
        ),
        say(
            f"no GPU here, and the profiler warned: {warned[0] if warned else ''} — it was asked for "
            "CUDA; add ProfilerActivity.CUDA only when torch.cuda.is_available()",
            f"GPU가 없는데 profiler가 경고했습니다: {warned[0] if warned else ''} — CUDA를 요청받았습니다; "
            "ProfilerActivity.CUDA는 torch.cuda.is_available()일 때만 더하세요",
        ),
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check, tempfile.TemporaryDirectory(prefix="tb-logdir-") as scratch:
        logdir = Path(scratch) / "logdir"
        logdir.mkdir()
        check.progress(
            say(
                "profiling two workloads (compute, waiting) with your write_logdir",
                "여러분의 write_logdir로 두 workload (compute, waiting)를 프로파일링합니다",
            )
        )
        written = run_learner(args.workspace, Path(__file__), "drive_write", str(logdir), timeout_s=60)
        if not check.require_ran("write_logdir() runs", written):
            check.stop()
        runs = support.plugin_runs(logdir)
        by_name = {Path(name).name: (name, files) for name, files in runs.items()}
        check.require(
            "the plugin finds two runs: compute and waiting",
            sorted(by_name) == sorted(RUNS) and len(runs) == len(RUNS),
            say(
                ", ".join(f"{name}/ ({len(files)} file)" for name, files in runs.items()),
                ", ".join(f"{name}/ (파일 {len(files)}개)" for name, files in runs.items()),
            ),
            say(
                f"the plugin would find {', '.join(f'{n!r}' for n in runs)} in the logdir; write each "
                "workload into its own folder, logdir/NAME"
                if runs  # a folder advice only when the traces are there, in the wrong folders
                else "the plugin would find no run: no *.pt.trace.json[.gz] anywhere in the logdir",
                f"플러그인이 logdir에서 찾을 run은 {', '.join(f'{n!r}' for n in runs)}입니다; workload마다 자기 폴더 "
                "logdir/NAME에 쓰세요"
                if runs
                else "플러그인이 run을 하나도 찾지 못합니다: logdir 어디에도 *.pt.trace.json[.gz]가 없습니다",
            ),
        )
        files = [f for run_files in runs.values() for f in run_files]
        plain = [f.name for f in files if not (f.name.endswith(".gz") and support.gzipped(f))]
        if files:
            check.require(
                "the traces are gzipped",
                not plain,
                say("every trace is a .pt.trace.json.gz", "모든 trace가 .pt.trace.json.gz입니다"),
                say(
                    f"not gzipped: {', '.join(plain)} (use_gzip=True)",
                    f"gzip으로 압축되지 않은 파일이 있습니다: {', '.join(plain)} (use_gzip=True로 하세요)",
                ),
            )
        cycle_problems = []
        for run in RUNS:
            if run not in by_name:
                continue
            run_files = by_name[run][1]
            if len(run_files) != 1:
                cycle_problems.append(
                    say(
                        f"{run} has {len(run_files)} traces (one cycle: repeat=1)",
                        f"{run}에 trace가 {len(run_files)}개 있습니다 (cycle은 하나: repeat=1)",
                    )
                )
                continue
            steps = support.trace_steps(run_files[0])
            if len(steps) != ACTIVE_STEPS:
                cycle_problems.append(
                    say(
                        f"{run} records ProfilerStep {support.ranges_text(steps)}",
                        f"{run}에 기록된 ProfilerStep은 {support.ranges_text(steps)}입니다"
                        if steps
                        else f"{run}에 기록된 ProfilerStep이 하나도 없습니다",
                    )
                )
                continue
            empty = steps_without_operators(run_files[0])
            if empty:
                name, duration_us = empty[0]
                cycle_problems.append(
                    say(
                        f"{run}: {name} ran no operator ({duration_us:.0f} µs) — the loop ended before the "
                        "last active step and leaving the profiler saved an empty stub of it; run wait + "
                        "warmup + active steps",
                        f"{run}: {name}에서는 operator가 하나도 돌지 않았습니다 ({duration_us:.0f} µs) — 루프가 "
                        "마지막 active step 전에 끝나서, profiler를 빠져나올 때 그 step이 빈 껍데기로 "
                        "저장되었습니다; 루프를 wait + warmup + active step만큼 돌리세요",
                    )
                )
        present = [run for run in RUNS if run in by_name]
        if present:
            check.require(
                f"each run holds one cycle of {ACTIVE_STEPS} profiled steps",
                not cycle_problems,
                say(
                    f"{', '.join(present)}: {ACTIVE_STEPS} steps each",
                    f"{', '.join(present)}: 각각 step {ACTIVE_STEPS}개",
                ),
                "; ".join(cycle_problems)
                + say(
                    f" — expected schedule(wait=1, warmup=1, active={ACTIVE_STEPS}, repeat=1)",
                    f" — schedule(wait=1, warmup=1, active={ACTIVE_STEPS}, repeat=1)이어야 합니다",
                ),
            )
        check_schedule(check, by_name, written.value)
        check_devices(check, by_name, written.value)
        if len(present) == len(RUNS):
            if args.quick:  # a TensorBoard start costs seconds; the layout above is what it reads
                check.progress(
                    say(
                        "--quick: TensorBoard is not started; checked the layout the way its plugin reads it",
                        "--quick: TensorBoard를 시작하지 않고, 플러그인이 읽는 방식대로 폴더 구성만 검사했습니다",
                    )
                )
            else:
                real_plugin(check, logdir, [by_name[run][0] for run in RUNS])

        planted_dir = Path(scratch) / PLANTED_RUN
        planted_dir.mkdir()
        planted_file = planted_dir / "checker.1700000000000.pt.trace.json.gz"
        with gzip.open(planted_file, "wt", encoding="utf-8") as handle:
            json.dump(planted_trace(random.Random()), handle)
        targets: list[tuple[str, Path, Path]] = []  # (label, run folder, its trace)
        for run in RUNS:
            if run in by_name and len(by_name[run][1]) == 1:
                targets.append((run, by_name[run][1][0].parent, by_name[run][1][0]))
        targets.append((CHECKER_RUN, planted_dir, planted_file))
        check.progress(
            say(
                "calling your read_overview on " + ", ".join(label for label, _, _ in targets),
                "여러분의 read_overview를 호출합니다: "
                + ", ".join(LABELS_KO.get(label, label) for label, _, _ in targets),
            )
        )
        seed = random.randrange(2**32)
        read = run_learner(
            args.workspace,
            Path(__file__),
            "drive_read",
            [str(folder) for _, folder, _ in targets],
            seed,
            scratch,
            timeout_s=90,
        )
        if not check.require_ran("read_overview() runs", read):
            check.stop()
        for (label, _folder, trace), answer in zip(targets, read.value["answers"], strict=True):
            expected = expected_overview(trace)
            if expected is None:
                check.requirement(
                    f"read_overview: {label}",
                    False,
                    say("the trace has no ProfilerStep#N events", "trace에 ProfilerStep#N 이벤트가 없습니다"),
                )
                continue
            problems = compare(answer, expected)
            check.require(
                f"read_overview matches the Overview: {label}",
                not problems,
                shown(expected),
                "; ".join(problems),
            )
        check_generated(check, seed, read.value["generated"])


GENERATED = "read_overview matches the Overview on generated runs"


def check_generated(check: Checker, seed: int, found: dict[str, Any] | None) -> None:
    """Their read_overview against the plugin's computation on `generated_runs(seed)`: `found` is
    the smallest run they got wrong (drive_generated), None when they got every one right."""
    check.progress(
        say(
            f"your read_overview against the plugin's computation on generated runs (seed {seed})",
            f"생성한 run들에서 여러분의 read_overview를 플러그인의 계산과 비교합니다 (seed {seed})",
        )
    )
    if found is None:
        check.requirement(
            GENERATED,
            True,
            say(
                "exactly the same, as .json.gz and as plain .json, on an empty trace, a run with no step, "
                "an empty step, a run near time 0, one busy and one idle step, an operator around its step, operators at "
                "the step's bounds, steps 9, 10, 100 and beyond out of order, gaps, nested operators on "
                "two threads, and GPU kernels, copies and memsets",
                ".json.gz와 plain .json 모두에서, 빈 trace, step이 없는 run, 길이 0인 step, 시간 0 근처의 run, 바쁜 step 하나, "
                "쉬는 step 하나, step을 덮는 operator, step 경계에 닿은 operator, 순서가 섞인 step 9·10·100과 그 "
                "이상, step 사이 틈, 두 스레드의 중첩된 operator, GPU kernel·복사·memset에서 정확히 같습니다",
            ),
        )
        return
    what = "; ".join(found["problems"]) or say(
        f"raised {found.get('raised')}", f"{found.get('raised')} 예외 발생"
    )
    check.requirement(
        GENERATED,
        False,
        say(
            f"on {found['case']} written as {found['file']}, cut to {len(found['items'])} of {found['size']} "
            f"events: {what} — the events: {events_text(found['items'])}",
            f"{found['case']} run ({found['file']})을 이벤트 {found['size']}개 중 {len(found['items'])}개로 줄여도 "
            f"다릅니다: {what} — 이벤트: {events_text(found['items'])}",
        ),
    )


if __name__ == "__main__":
    main()
