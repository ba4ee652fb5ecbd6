"""Checker of the schedule exercise (README.md): profile an 18-step loop with the learner's schedule
and read the ProfilerStep#N events of every trace it saved.

`drive` runs in the learner's child process; the checks read its files here.
"""

from __future__ import annotations

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

STEPS = 18
WANTED = [[3, 4, 5], [9, 10, 11]]


def drive(out_dir: str) -> dict[str, Any]:
    """In the learner's process: the schedule's action per step, then a profiled 18-step loop."""
    import torch
    from profiling_schedule import make_schedule  # the learner's module
    from torch.profiler import ProfilerActivity, profile

    chosen = make_schedule()
    if not callable(chosen):
        raise TypeError(f"make_schedule() returned a {type(chosen).__name__}, not a schedule function")
    actions = [getattr(chosen(step), "name", str(chosen(step))) for step in range(STEPS)]
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    batch = torch.randn(8, 16)
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    saved = []

    def save(prof: Any) -> None:
        path = Path(out_dir) / f"cycle{len(saved) + 1}.pt.trace.json"
        prof.export_chrome_trace(str(path))
        saved.append(path.name)

    with profile(activities=activities, schedule=chosen, on_trace_ready=save) as prof:
        for _ in range(STEPS):
            model(batch).sum().backward()
            prof.step()
    return {"actions": actions, "saved": saved}


def actions_text(actions: list[str]) -> str:
    short = {"NONE": "-", "WARMUP": "W", "RECORD": "R", "RECORD_AND_SAVE": "S"}
    return " ".join(f"{step}:{short.get(a, a)}" for step, a in enumerate(actions))


def warmup_note(actions: list[str]) -> str:
    """Why the steps before the recordings are not WARMUP, from what the schedule did: no WARMUP at
    all is warmup=0; WARMUP elsewhere is a cycle that does not line up with steps 3 and 9."""
    warm = [step for step, action in enumerate(actions) if action == "WARMUP"]
    if not warm:
        return say(
            " (with warmup=0 the first recorded step carries start-up costs)",
            " (warmup=0이면 처음 기록하는 step에 시작 비용이 섞입니다)",
        )
    return say(
        f" (your schedule warms up at steps {support.ranges_text(warm)}: its cycles do not line up with 3 and 9)",
        f" (여러분의 schedule은 step {support.ranges_text(warm)}에서 warmup합니다: "
        "cycle이 step 3과 9에 맞춰져 있지 않습니다)",
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check, tempfile.TemporaryDirectory(prefix="schedule-") as scratch:
        check.progress(
            say(
                f"profiling an {STEPS}-step loop with your schedule",
                f"여러분의 schedule로 {STEPS} step짜리 루프를 프로파일링합니다",
            )
        )
        result = run_learner(
            args.workspace, Path(__file__), "drive", scratch, timeout_s=45 if args.quick else 75
        )
        if not check.require_ran("make_schedule() gives a schedule the profiler runs", result):
            check.stop()
        actions: list[str] = result.value["actions"]
        check.progress(
            say(
                "actions per step (-: NONE, W: WARMUP, R: RECORD, S: RECORD_AND_SAVE): ",
                "step별 action (-: NONE, W: WARMUP, R: RECORD, S: RECORD_AND_SAVE): ",
            )
            + actions_text(actions)
        )
        cycles = []
        for name in result.value["saved"]:
            cycles.append(support.trace_steps(Path(scratch) / name))
        recorded = sorted({step for steps in cycles for step in steps})
        wanted = sorted(step for steps in WANTED for step in steps)
        check.require(
            "exactly steps 3–5 and 9–11 are recorded",
            recorded == wanted,
            say(
                "the traces hold ProfilerStep#3–5 and #9–11",
                "trace에 ProfilerStep#3–5와 #9–11이 들어 있습니다",
            ),
            say(
                f"the traces hold ProfilerStep {support.ranges_text(recorded)}; wanted 3–5, 9–11 "
                f"(actions {actions_text(actions)})",
                (
                    f"trace에 든 ProfilerStep은 {support.ranges_text(recorded)}입니다"
                    if recorded
                    else "trace에 ProfilerStep이 하나도 없습니다"
                )
                + f"; 3–5와 9–11이 기록되어야 합니다 (action: {actions_text(actions)})",
            ),
        )
        check.require(
            "two cycles, one trace each",
            cycles == WANTED,
            say("cycle 1 holds 3–5, cycle 2 holds 9–11", "cycle 1에 3–5, cycle 2에 9–11이 들어 있습니다"),
            say(
                f"{len(cycles)} trace(s) saved, holding "
                + ("; ".join(support.ranges_text(c) for c in cycles) or "nothing")
                + ": a cycle is wait + warmup + active steps",
                f"trace {len(cycles)}개가 저장되었고 "
                + (
                    f"담긴 step은 {'; '.join(support.ranges_text(c) for c in cycles)}입니다"
                    if cycles
                    else "담긴 step이 없습니다"
                )
                + ": cycle 하나는 wait + warmup + active step입니다",
            ),
        )
        before = [wanted_steps[0] - 1 for wanted_steps in WANTED]
        not_warm = [step for step in before if actions[step] != "WARMUP"]
        check.require(
            "a warmup step before each recording",
            not not_warm,
            say(
                f"steps {', '.join(map(str, before))} are WARMUP",
                f"step {', '.join(map(str, before))}의 action이 WARMUP입니다",
            ),
            say(
                "the step just before each recording should be WARMUP: "
                + ", ".join(f"step {s} is {actions[s]}" for s in not_warm),
                "기록 바로 전 step은 WARMUP이어야 하는데, "
                + ", ".join(f"step {s}의 action은 {actions[s]}" for s in not_warm)
                + "입니다",
            )
            + warmup_note(actions),
        )
        after = [step for step in range(WANTED[-1][-1] + 1, STEPS) if actions[step] != "NONE"]
        check.require(
            "nothing is profiled after step 11",
            not after,
            say(
                "steps 12–17 are NONE (repeat ends the schedule)",
                "step 12–17의 action이 NONE입니다 (repeat가 schedule을 끝냅니다)",
            ),
            say(
                f"steps {support.ranges_text(after)} are still warming up or recording: set repeat",
                f"step {support.ranges_text(after)}에서 아직 warmup하거나 기록하고 있습니다: repeat를 지정하세요",
            ),
        )


if __name__ == "__main__":
    main()
