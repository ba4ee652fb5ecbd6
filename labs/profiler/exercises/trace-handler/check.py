"""Checker of the trace-handler exercise (README.md): run the learner's handler, read its files.

`drive` runs in the learner's child process (labs._exercise.run_learner): it trains a tiny MLP under
two schedules with the learner's handler and reports which files each schedule left. The checks
themselves read those files here, with the standard library only.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from labs._exercise import Checker, parse_args, run_learner
from labs.profiler import exercise_support as support

# Two schedules with different `active`: a handler that guesses the range cannot pass both.
SCHEDULES: list[dict[str, int]] = [
    {"wait": 1, "warmup": 1, "active": 2, "repeat": 2},
    {"skip_first": 1, "wait": 1, "warmup": 1, "active": 3, "repeat": 1},
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
        traces == expected_traces,
        f"{', '.join(expected_traces)}",
        f"expected {', '.join(expected_traces)}; out_dir holds {', '.join(found) or 'nothing'}",
    )
    wrong_steps = []
    for name, (first, last) in zip(names, cycles, strict=True):
        path = out_dir / f"{name}.pt.trace.json"
        if path.is_file():
            try:
                steps = support.trace_steps(path)
            except ValueError as exc:
                wrong_steps.append(f"{path.name}: {exc}")
                continue
            if steps != list(range(first, last + 1)):
                wrong_steps.append(f"{path.name} holds ProfilerStep {support.ranges_text(steps)}")
    present = [n for n in names if (out_dir / f"{n}.pt.trace.json").is_file()]
    if present:
        check.require(
            f"{label}: each trace holds its cycle's ProfilerStep#N",
            not wrong_steps,
            "the step numbers in each file match its name",
            "; ".join(wrong_steps),
        )
    tables = [out_dir / f"{n}.key_averages.txt" for n in names]
    missing = [t.name for t in tables if not t.is_file()]
    if not check.require(
        f"{label}: one key_averages table per cycle",
        not missing,
        ", ".join(t.name for t in tables),
        f"missing {', '.join(missing)} (out_dir holds {', '.join(found) or 'nothing'})",
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
            problems.append(f"{table.name}: not a key_averages table with a {SORT_COLUMN!r} column")
            continue
        values = [support.parse_time_us(row[SORT_COLUMN]) for row in rows]
        times = [v for v in values if v is not None]
        unsorted = next((i for i in range(1, len(times)) if times[i] > times[i - 1] + 1e-9), None)
        if unsorted is not None:
            problems.append(
                f"{table.name}: row {unsorted + 1} ({rows[unsorted]['Name']}, {rows[unsorted][SORT_COLUMN]}) "
                f"has more self CPU time than the row above it: sort_by='self_cpu_time_total'"
            )
    check.require(
        f"{label}: tables sorted by self CPU time",
        not problems,
        "every table's Self CPU column goes down",
        "; ".join(problems),
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check, tempfile.TemporaryDirectory(prefix="trace-handler-") as scratch:
        out_dirs = [Path(scratch) / f"schedule{i + 1}" for i in range(len(SCHEDULES))]
        for folder in out_dirs:
            folder.mkdir()
        before = set(os.listdir(args.workspace))
        check.progress("running your handler on a tiny MLP under two schedules")
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
            "nothing was written into your workspace",
            f"the handler wrote {', '.join(stray)} into the working directory instead of out_dir",
        )


if __name__ == "__main__":
    main()
