"""Checker of the find-the-bottleneck exercise (README.md): plant a slow stage at random, twice, and
see whether the learner's profile finds it.

`drive` runs in the learner's child process: it builds the staged model with the planted slow stage
and calls their `find_bottleneck`. The trace they export is read here (standard library only).
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, parse_args, run_learner, say
from labs.profiler import exercise_support as support

STAGES = ("embed", "encoder", "mixer", "head")
LABEL = "stage:"
WIDTH = 128
BATCH = 64
HIDDEN = 1024
# The planted stage detours through a 1024-wide hidden layer and back (~10 ms a call, ~100× a plain
# stage): far beyond the noise of a busy machine, so the answer is decided by the learner's code,
# not by luck. Every stage has the same parameters and buffers: sizes give nothing away.
SLOW_REPEATS = 4


def drive(planted: list[str], trace_paths: list[str]) -> list[str]:
    """In the learner's process: one model per planted stage, their answer for each."""
    import torch
    from bottleneck import find_bottleneck  # the learner's module

    torch.set_num_threads(1)  # steadier timings on a machine shared with other work

    class Stage(torch.nn.Module):
        def __init__(self, repeats: int) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(WIDTH, WIDTH)
            self.repeats = repeats
            self.register_buffer("up", torch.randn(WIDTH, HIDDEN) / WIDTH**0.5)
            self.register_buffer("mix", torch.randn(HIDDEN, HIDDEN) / HIDDEN**0.5)
            self.register_buffer("down", torch.randn(HIDDEN, WIDTH) / HIDDEN**0.5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = torch.relu(self.linear(x))
            if self.repeats:
                hidden = x @ self.up
                for _ in range(self.repeats):
                    hidden = torch.tanh(hidden @ self.mix)
                x = hidden @ self.down
            return x

    class StagedModel(torch.nn.Module):
        def __init__(self, slow: str) -> None:
            super().__init__()
            self.stages = torch.nn.ModuleDict(
                {name: Stage(SLOW_REPEATS if name == slow else 0) for name in STAGES}
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for stage in self.stages.values():
                x = stage(x)
            return x

    # The first profiler session of a process pays one-off costs (lazy imports, ~1 s) inside the
    # first ops it records: spend them here, so they cannot pass for a slow stage.
    from torch.profiler import ProfilerActivity, profile

    for _ in range(2):
        with profile(activities=[ProfilerActivity.CPU]):
            StagedModel("head")(torch.randn(BATCH, WIDTH))
    torch.manual_seed(0)
    answers = []
    for slow, trace_path in zip(planted, trace_paths, strict=True):
        model = StagedModel(slow).eval()
        answer = find_bottleneck(model, torch.randn(BATCH, WIDTH), trace_path)
        answers.append(answer if isinstance(answer, str) else repr(answer))
    return answers


def label_times(trace_path: Path) -> dict[str, float]:
    """Total duration (ms) of each `stage:NAME` label in a trace."""
    document = support.load_trace(trace_path)
    totals: dict[str, float] = {}
    for event in document["traceEvents"]:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        name = str(event.get("name", ""))
        if name.startswith(LABEL) and isinstance(event.get("dur"), (int, float)):
            stage = name[len(LABEL) :]
            totals[stage] = totals.get(stage, 0.0) + float(event["dur"]) / 1000
    return totals


def main() -> None:
    args = parse_args()
    chooser = random.Random()
    planted = chooser.sample(STAGES, 2)  # two different stages: a fixed answer cannot pass both
    with Checker(args) as check, tempfile.TemporaryDirectory(prefix="bottleneck-") as scratch:
        traces = [Path(scratch) / f"run{i + 1}.pt.trace.json" for i in range(len(planted))]
        check.progress(
            say(
                "planting a slow stage at random, twice, and calling your find_bottleneck()",
                "느린 단계 하나를 무작위로 심고 여러분의 find_bottleneck()을 호출합니다 (두 번)",
            )
        )
        result = run_learner(
            args.workspace,
            Path(__file__),
            "drive",
            planted,
            [str(t) for t in traces],
            timeout_s=60 if args.quick else 90,
        )
        if not check.require_ran("find_bottleneck() runs", result):
            check.stop()
        answers: list[str] = result.value
        for run, (slow, trace, answer) in enumerate(zip(planted, traces, answers, strict=True), start=1):
            if not check.require(
                f"run {run}: the trace is exported to trace_path",
                trace.is_file(),
                say(f"{trace.name} written", f"{trace.name} 파일이 만들어졌습니다"),
                say(
                    "no file at trace_path: call prof.export_chrome_trace(trace_path)",
                    "trace_path에 파일이 없습니다: prof.export_chrome_trace(trace_path)를 호출하세요",
                ),
            ):
                continue
            try:
                times = label_times(trace)
            except ValueError as exc:
                check.requirement(
                    f"run {run}: the trace can be read",
                    False,
                    say(str(exc), f"trace를 읽을 수 없습니다: {exc}"),
                )
                continue
            missing = [name for name in STAGES if name not in times]
            check.require(
                f"run {run}: every stage is labelled stage:NAME",
                not missing,
                say(
                    ", ".join(f"{LABEL}{name}" for name in STAGES) + " are in the trace",
                    f"trace에 {', '.join(f'{LABEL}{name}' for name in STAGES)} 라벨이 모두 있습니다",
                ),
                say(
                    f"no record_function label for {', '.join(LABEL + m for m in missing)} in the trace"
                    + (f" (it has {', '.join(LABEL + t for t in times)})" if times else ""),
                    f"trace에 {', '.join(LABEL + m for m in missing)}의 record_function 라벨이 없습니다"
                    + (f" (trace에 있는 라벨: {', '.join(LABEL + t for t in times)})" if times else ""),
                ),
            )
            if not missing:
                ranked = sorted(times.items(), key=lambda item: -item[1])
                shown = ", ".join(f"{name} {ms:.2f} ms" for name, ms in ranked)
                check.require(
                    f"run {run}: the labels wrap the stages' work",
                    ranked[0][0] == slow,
                    say(
                        f"your trace shows {LABEL}{slow} as the slowest ({shown})",
                        f"여러분의 trace에서 가장 느린 것은 {LABEL}{slow}입니다 ({shown})",
                    ),
                    say(
                        f"the slow stage was {slow}, but your trace's labels show {shown}: "
                        "does each label enclose its stage's call?",
                        f"심어 둔 느린 단계는 {slow}인데, 여러분의 trace 라벨로 본 시간은 {shown}입니다: "
                        "라벨마다 자기 단계의 호출을 감싸고 있나요?",
                    ),
                )
            given = answer[len(LABEL) :] if answer.startswith(LABEL) else answer
            check.require(
                f"run {run}: the answer names the planted slow stage",
                given == slow,
                say(
                    f"planted {slow!r}, you answered {answer!r}",
                    f"심어 둔 느린 단계는 {slow!r}, 여러분의 답도 {answer!r}입니다",
                ),
                say(
                    f"planted {slow!r}, you answered {answer!r}",
                    f"심어 둔 느린 단계는 {slow!r}인데, 여러분의 답은 {answer!r}입니다",
                ),
            )


if __name__ == "__main__":
    main()
