"""Checker of the trace-handler exercise (README.md): run the learner's handler, read its files.

`drive` runs in the learner's child process (labs._exercise.run_learner): it trains a tiny MLP under
three schedules with the learner's handler and reports which files each schedule left. The checks
themselves read those files here, with the standard library only.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, parse_args, run_learner, say
from labs.profiler import exercise_support as support

# Schedules with different `active` and `skip_first`: a handler that guesses the range cannot pass
# them all. The third records steps 9–11 and 15–17: a cycle across the one-to-two-digit edge, where
# step numbers compared as strings ("10" < "9") or read with a one-digit pattern go wrong.
SCHEDULES: list[dict[str, int]] = [
    {"wait": 1, "warmup": 1, "active": 2, "repeat": 2},
    {"skip_first": 1, "wait": 1, "warmup": 1, "active": 3, "repeat": 1},
    {"skip_first": 6, "wait": 2, "warmup": 1, "active": 3, "repeat": 2},
]
SORT_COLUMN = "Self CPU"


def steps_for(settings: dict[str, int]) -> int:
    """A loop that ends right after the schedule's last cycle."""
    length = settings["wait"] + settings["warmup"] + settings["active"]
    return settings.get("skip_first", 0) + settings["repeat"] * length


def drive(out_dirs: list[str]) -> dict[str, Any]:
    """In the learner's process: profile a tiny MLP with their handler under each schedule."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule
    from trace_handler import make_handler  # the learner's module (the workspace is on sys.path)

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    batch = torch.randn(16, 32)
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    calls = []
    for settings, out_dir in zip(SCHEDULES, out_dirs, strict=True):
        handler = make_handler(out_dir)
        count = 0

        def counted(prof: Any, handler: Any = handler) -> None:
            nonlocal count
            count += 1
            handler(prof)

        with profile(activities=activities, schedule=schedule(**settings), on_trace_ready=counted) as prof:
            for _ in range(steps_for(settings)):
                model(batch).sum().backward()
                prof.step()
        calls.append(count)
    return {"calls": calls}


def check_schedule(check: Checker, settings: dict[str, int], out_dir: Path) -> None:
    label = support.schedule_text(settings)
    cycles = support.recorded_cycles(**settings, steps=steps_for(settings))
    names = [f"steps_{first}-{last}" for first, last in cycles]
    found = sorted(p.name for p in out_dir.iterdir())
    traces = sorted(n for n in found if n.endswith(".pt.trace.json"))
    expected_traces = [f"{n}.pt.trace.json" for n in names]
    check.require(
        f"{label}: one trace per cycle, named by its steps",
        traces == sorted(expected_traces),  # both as sorted text: steps_15-17 comes before steps_9-11
        say(f"{', '.join(expected_traces)}", f"{', '.join(expected_traces)} 파일이 있습니다"),
        say(
            f"expected {', '.join(expected_traces)}; out_dir holds {', '.join(found) or 'nothing'}",
            f"{', '.join(expected_traces)} 파일이 있어야 하는데, "
            + (f"out_dir에 있는 파일은 {', '.join(found)}입니다" if found else "out_dir가 비어 있습니다"),
        ),
    )
    wrong_steps = []
    for name, (first, last) in zip(names, cycles, strict=True):
        path = out_dir / f"{name}.pt.trace.json"
        if path.is_file():
            try:
                steps = support.trace_steps(path)
            except ValueError as exc:
                wrong_steps.append(say(f"{path.name}: {exc}", f"{path.name} 파일을 읽을 수 없습니다: {exc}"))
                continue
            if steps != list(range(first, last + 1)):
                wrong_steps.append(
                    say(
                        f"{path.name} holds ProfilerStep {support.ranges_text(steps)}",
                        f"{path.name}에 든 ProfilerStep은 {support.ranges_text(steps)}입니다"
                        if steps
                        else f"{path.name}에 ProfilerStep이 하나도 없습니다",
                    )
                )
    present = [n for n in names if (out_dir / f"{n}.pt.trace.json").is_file()]
    if present:
        check.require(
            f"{label}: each trace holds its cycle's ProfilerStep#N",
            not wrong_steps,
            say(
                "the step numbers in each file match its name",
                "파일마다 안에 든 step 번호가 파일 이름과 맞습니다",
            ),
            "; ".join(wrong_steps),
        )
    tables = [out_dir / f"{n}.key_averages.txt" for n in names]
    missing = [t.name for t in tables if not t.is_file()]
    if not check.require(
        f"{label}: one key_averages table per cycle",
        not missing,
        say(", ".join(t.name for t in tables), f"{', '.join(t.name for t in tables)} 파일이 있습니다"),
        say(
            f"missing {', '.join(missing)} (out_dir holds {', '.join(found) or 'nothing'})",
            f"{', '.join(missing)} 파일이 없습니다 (out_dir에 있는 파일: {', '.join(found) or '없음'})",
        ),
    ):
        return
    problems = []
    for table in tables:
        try:
            columns, rows = support.table_rows(table.read_text(encoding="utf-8", errors="replace"))
        except ValueError as exc:
            problems.append(f"{table.name}: {exc}")
            continue
        if SORT_COLUMN not in columns or len(rows) < 3:
            problems.append(
                say(
                    f"{table.name}: not a key_averages table with a {SORT_COLUMN!r} column",
                    f"{table.name}: {SORT_COLUMN!r} 열이 있는 key_averages 표가 아닙니다",
                )
            )
            continue
        values = [support.parse_time_us(row[SORT_COLUMN]) for row in rows]
        times = [v for v in values if v is not None]
        unsorted = next((i for i in range(1, len(times)) if times[i] > times[i - 1] + 1e-9), None)
        if unsorted is not None:
            problems.append(
                say(
                    f"{table.name}: row {unsorted + 1} ({rows[unsorted]['Name']}, {rows[unsorted][SORT_COLUMN]}) "
                    f"has more self CPU time than the row above it: sort_by='self_cpu_time_total'",
                    f"{table.name}: {unsorted + 1}번째 행 ({rows[unsorted]['Name']}, {rows[unsorted][SORT_COLUMN]})의 "
                    f"self CPU time이 바로 위 행보다 큽니다: sort_by='self_cpu_time_total'로 정렬하세요",
                )
            )
    check.require(
        f"{label}: tables sorted by self CPU time",
        not problems,
        say("every table's Self CPU column goes down", "모든 표에서 Self CPU 열이 위에서 아래로 줄어듭니다"),
        "; ".join(problems),
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check, tempfile.TemporaryDirectory(prefix="trace-handler-") as scratch:
        out_dirs = [Path(scratch) / f"schedule{i + 1}" for i in range(len(SCHEDULES))]
        for folder in out_dirs:
            folder.mkdir()
        before = set(os.listdir(args.workspace))
        check.progress(
            say(
                "running your handler on a tiny MLP under three schedules",
                "작은 MLP를 세 가지 schedule로 프로파일링하며 여러분의 handler를 실행합니다",
            )
        )
        result = run_learner(
            args.workspace,
            Path(__file__),
            "drive",
            [str(f) for f in out_dirs],
            timeout_s=60 if args.quick else 90,
        )
        if not check.require_ran("your handler runs under the profiler", result):
            check.stop()
        for settings, folder in zip(SCHEDULES, out_dirs, strict=True):
            check_schedule(check, settings, folder)
        stray = sorted(set(os.listdir(args.workspace)) - before)
        check.require(
            "files go to out_dir only",
            not stray,
            say(
                "nothing was written into your workspace",
                "여러분의 workspace에는 아무 파일도 쓰이지 않았습니다",
            ),
            say(
                f"the handler wrote {', '.join(stray)} into the working directory instead of out_dir",
                f"handler가 out_dir가 아니라 작업 디렉터리에 파일을 썼습니다: {', '.join(stray)}",
            ),
        )


if __name__ == "__main__":
    main()
