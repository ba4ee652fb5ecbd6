"""Checker of the tensorboard-logdir exercise (README.md).

1. `drive_write` (in the learner's child process) profiles two workloads with their write_logdir.
2. The logdir is read here the way torch-tb-profiler finds runs; when the plugin is installed, a
   real TensorBoard is started on 127.0.0.1 for a few seconds to see that it lists both runs.
3. `drive_read` (another child) calls their read_overview on both runs and on a run the checker
   writes with random numbers; the answers are compared with labs/profiler/tb_overview.py, which
   computes the Overview's step time breakdown the way the plugin does.
"""

from __future__ import annotations

import gzip
import json
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
PLANTED_RUN = "planted"
CHECKER_RUN = "a run the checker wrote"  # a label in requirement names (translated with the names)
LABELS_KO = {CHECKER_RUN: "검사기가 쓴 run"}


def drive_write(logdir: str) -> None:
    """In the learner's process: two workloads, profiled by their write_logdir."""
    import time

    import torch
    from tb_logdir import write_logdir  # the learner's module

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256))
    batch = torch.randn(64, 256)

    def compute() -> None:
        model(batch).sum().backward()

    def waiting() -> None:
        time.sleep(WAIT_S)  # e.g. waiting for the next batch: no operator runs meanwhile
        compute()

    write_logdir(logdir, {"compute": compute, "waiting": waiting})


def drive_read(run_dirs: list[str]) -> list[Any]:
    """In the learner's process: their read_overview for each run folder."""
    from tb_logdir import read_overview  # the learner's module

    return [read_overview(run_dir) for run_dir in run_dirs]


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


def _x(name: str, cat: str, tid: int, ts: int, dur: int) -> dict[str, Any]:
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur}


def edge_runs(base: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Small runs, each for one edge: one busy step, one idle step, an operator around its step,
    steps 9, 10 and 100 listed out of order with operators across their edges and in the gaps."""
    return [
        (
            "one-busy-step",
            [
                _x("ProfilerStep#12", "user_annotation", 1, base, 1000),
                _x("aten::mm", "cpu_op", 1, base, 1000),
            ],
        ),
        (
            "one-idle-step",
            [
                _x("ProfilerStep#3", "user_annotation", 1, base, 1000),
                _x("stage:load", "user_annotation", 1, base, 900),
            ],
        ),
        (
            "operator-around-the-step",
            [
                _x("ProfilerStep#40", "user_annotation", 1, base, 1000),
                _x("aten::linear", "cpu_op", 1, base - 300, 1500),
            ],
        ),
        (
            "steps-100-9-10",
            [
                _x("ProfilerStep#100", "user_annotation", 1, base + 5000, 2000),
                _x("ProfilerStep#9", "user_annotation", 1, base, 1000),
                _x("ProfilerStep#10", "user_annotation", 1, base + 1000, 3000),
                _x("aten::linear", "cpu_op", 1, base + 800, 400),  # across the edge of steps 9 and 10
                _x("aten::addmm", "cpu_op", 1, base + 850, 100),  # nested in it
                _x("aten::mm", "cpu_op", 2, base + 1100, 600),  # another thread, overlapping
                _x("aten::relu", "cpu_op", 1, base + 4200, 500),  # in the gap: no step
                _x("aten::copy_", "cpu_op", 1, base + 6500, 900),  # past the end of step 100
            ],
        ),
    ]


def random_run(rng: random.Random, base: int, size: int) -> list[dict[str, Any]]:
    """`size` steps with multi-digit, often non-contiguous numbers, some with gaps between them and
    one mostly idle; operators nested, on two threads and across step edges; labels and Python
    frames the plugin drops; the events shuffled."""
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
            cursor += op + rng.randint(0, busy // 4)
        at += length + (rng.randint(1, 2_000) if rng.random() < 0.4 else 0)
    rng.shuffle(items)
    return items


def generated_runs(rng: random.Random) -> list[tuple[str, list[dict[str, Any]]]]:
    """The edge runs, then random runs of 1 to 10 steps: smallest first."""
    base = rng.randrange(10**9, 10**12)  # integer µs: every sum is exact
    cases = edge_runs(base)
    for index, size in enumerate([1, 2, 3, 4, 6, 8, 10]):
        cases.append((f"random-{index + 1}", random_run(rng, base, size)))
    return sorted(cases, key=lambda case: len(case[1]))


def overview_of(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    return expected_overview_of({"schemaVersion": 1, "traceEvents": items})


def drive_generated(seed: int, scratch: str) -> dict[str, Any] | None:
    """In the learner's process: the smallest generated run (shrunk) on which their read_overview
    and the plugin's computation differ; None when they agree on every one."""
    from tb_logdir import read_overview  # the learner's module

    from labs._exercise.shrink import answer_or_error, smallest_disagreement

    run_dir = Path(scratch) / "generated"
    run_dir.mkdir(exist_ok=True)
    trace = run_dir / "checker.1700000000000.pt.trace.json.gz"

    def answer_of(items: list[dict[str, Any]]) -> tuple[bool, Any]:
        with gzip.open(trace, "wt", encoding="utf-8") as handle:
            json.dump({"schemaVersion": 1, "traceEvents": items}, handle)
        return answer_or_error(read_overview, str(run_dir))

    def agree(answer: Any, expected: dict[str, Any] | None) -> bool:
        return expected is None or not compare(answer, expected)  # a run with no step asks nothing

    found = smallest_disagreement(generated_runs(random.Random(seed)), answer_of, overview_of, agree)
    if found is not None:
        found["problems"] = compare(found["answer"], found["expected"]) if "answer" in found else []
        found.pop("answer", None)  # their object may not travel: the problems say what it was
    return found


def events_text(items: list[dict[str, Any]]) -> str:
    """`ProfilerStep#10 0+1000µs; aten::mm t2 100+600µs`: times from the run's first event."""
    origin = min((float(e["ts"]) for e in items), default=0.0)
    parts = []
    for e in sorted(items, key=lambda e: (float(e["ts"]), str(e["name"]))):
        thread = f" t{e['tid']}" if e.get("tid") != 1 else ""
        parts.append(f"{e['name']}{thread} {float(e['ts']) - origin:g}+{float(e['dur']):g}µs")
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
        if str(event.get("name", "")).startswith("ProfilerStep#"):
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


def compare(answer: Any, expected: dict[str, Any]) -> list[str]:
    """What is off in the learner's answer (empty: it matches within the tolerances)."""
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
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            problems.append(
                say(
                    f"{key} is {value!r}, expected {expected[key]:.4g}",
                    f"{key} 값이 {value!r}입니다; {expected[key]:.4g}이어야 합니다",
                )
            )
            continue
        want = expected[key]
        if key == "steps":
            ok = value == want
        elif key == "step_ms":
            relative, absolute = STEP_MS_TOLERANCE
            ok = abs(value - want) <= max(relative * want, absolute)
        else:
            ok = abs(value - want) <= PCT_TOLERANCE
        if not ok:
            problems.append(
                say(
                    f"{key} {value:.4g}, the Overview shows {want:.4g}",
                    f"{key} 값이 {value:.4g}인데, Overview에 나오는 값은 {want:.4g}입니다",
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
                f"the plugin would find {', '.join(f'{n!r}' for n in runs) or 'no run'} in the logdir; "
                "write each workload into its own folder, logdir/NAME",
                (
                    f"플러그인이 logdir에서 찾을 run은 {', '.join(f'{n!r}' for n in runs)}입니다"
                    if runs
                    else "플러그인이 logdir에서 run을 하나도 찾지 못합니다"
                )
                + "; workload마다 자기 폴더 logdir/NAME에 쓰세요",
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
        if len(present) == len(RUNS):
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
        answers = run_learner(
            args.workspace,
            Path(__file__),
            "drive_read",
            [str(folder) for _, folder, _ in targets],
            timeout_s=60,
        )
        if not check.require_ran("read_overview() runs", answers):
            check.stop()
        for (label, _folder, trace), answer in zip(targets, answers.value, strict=True):
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
        check_generated(check, args.workspace, random.randrange(2**32), Path(scratch))


GENERATED = "read_overview matches the Overview on generated runs"


def check_generated(check: Checker, workspace: Path, seed: int, scratch: Path) -> None:
    """Their read_overview against the plugin's computation on `generated_runs(seed)`."""
    check.progress(
        say(
            f"your read_overview against the plugin's computation on generated runs (seed {seed})",
            f"생성한 run들에서 여러분의 read_overview를 플러그인의 계산과 비교합니다 (seed {seed})",
        )
    )
    result = run_learner(workspace, Path(__file__), "drive_generated", seed, str(scratch), timeout_s=60)
    if not check.require_ran(GENERATED, result):
        return
    found = result.value
    if found is None:
        check.requirement(
            GENERATED,
            True,
            say(
                "the same on one busy and one idle step, an operator around its step, steps 9, 10, 100 and "
                "beyond out of order, gaps, nested operators on two threads",
                "바쁜 step 하나, 쉬는 step 하나, step을 덮는 operator, 순서가 섞인 step 9·10·100과 그 이상, "
                "step 사이 틈, 두 스레드의 중첩된 operator에서 모두 같습니다",
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
            f"on {found['case']} cut to {len(found['items'])} of {found['size']} events: {what} — the events: "
            f"{events_text(found['items'])}",
            f"{found['case']} run을 이벤트 {found['size']}개 중 {len(found['items'])}개로 줄여도 다릅니다: {what} — "
            f"이벤트: {events_text(found['items'])}",
        ),
    )


if __name__ == "__main__":
    main()
