"""The profiler lab's exercises, checked the way a learner checks them.

For every exercise: the untouched starter fails (exit 1) with messages a learner can act on, the
reference solution passes (exit 0), and each plausible wrong solution kept in
tests/exercises/wrong/ID/NAME.yaml (a patch on the solution) fails (exit 1). The runs are the
session's `catalogue` (each variant checked once, judged generically by test_catalogue.py); this
file checks what their messages say.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

from studyapp.cli import main
from tests.exercises.exercise_runs import (
    Catalogue,
    checker_module,
    exercises,
    failed,
    solution_folder,
    wrong_solutions,
)

IDS = ["trace-handler", "schedule", "find-the-bottleneck", "tensorboard-logdir"]

pytestmark = pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch") is None, reason="the profiler exercises need torch"
)


def test_every_profiler_exercise_has_a_kept_wrong_solution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    profiler = {row["id"] for row in listed if row["lab"] == "profiler"}
    assert profiler == set(IDS)
    for exercise_id in IDS:
        assert wrong_solutions(exercise_id), exercise_id


TWO_DIGITS = "schedule(skip_first=6, wait=2, warmup=1, active=3, repeat=2)"

# -- trace-handler -----------------------------------------------------------------------------------


def test_trace_handler_starter_fails_naming_the_expected_files(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("trace-handler", "starter")
    assert code == 1 and outcome["verdict"] == "failed"
    messages = " | ".join(failed(outcome).values())
    assert "expected steps_2-3.pt.trace.json, steps_6-7.pt.trace.json; out_dir holds trace.json" in messages
    assert "missing steps_3-5.key_averages.txt" in messages


def test_trace_handler_solution_passes(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("trace-handler", "solution")
    assert code == 0, failed(outcome)
    assert outcome["verdict"] == "passed" and len(outcome["requirements"]) == 13  # 4 per schedule, 1 more


@pytest.mark.parametrize("wrong", wrong_solutions("trace-handler"))
def test_trace_handler_wrong_solutions_fail(wrong: str, catalogue: Catalogue) -> None:
    code, outcome = catalogue.wrong("trace-handler", wrong)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    if wrong == "sorted-by-total":
        assert all("sorted by self CPU time" in name for name in problems), problems
        assert "sort_by='self_cpu_time_total'" in " ".join(problems.values())
    if wrong == "guessed-range":  # right for active=2, wrong for active=3
        assert all("active=3" in name for name in problems), problems
        assert "holds steps_4-5" in " ".join(problems.values())
    if wrong in ("steps-as-text", "one-digit-pattern"):  # right while every step number has one digit
        assert all("skip_first=6" in name for name in problems), problems
        named = problems[f"{TWO_DIGITS}: one trace per cycle, named by its steps"]
        assert "expected steps_9-11.pt.trace.json, steps_15-17.pt.trace.json" in named
        assert (
            "steps_10-9.pt.trace.json" if wrong == "steps-as-text" else "steps_1-9.pt.trace.json"
        ) in named


# -- schedule ----------------------------------------------------------------------------------------


def test_schedule_starter_fails_showing_what_it_recorded(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("schedule", "starter")
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    assert (
        "the traces hold ProfilerStep 2–3, 6–7, 10–11, 14–15"
        in problems["exactly steps 3–5 and 9–11 are recorded"]
    )
    assert "set repeat" in problems["nothing is profiled after step 11"]


def test_schedule_solution_passes(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("schedule", "solution")
    assert code == 0, failed(outcome)
    assert len(outcome["requirements"]) == 4


@pytest.mark.parametrize("wrong", wrong_solutions("schedule"))
def test_schedule_wrong_solutions_fail(wrong: str, catalogue: Catalogue) -> None:
    code, outcome = catalogue.wrong("schedule", wrong)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    if wrong == "repeat-forever":
        assert "15–17" in problems["exactly steps 3–5 and 9–11 are recorded"]
    if wrong == "no-warmup":  # the right steps, recorded cold
        assert list(problems) == ["a warmup step before each recording"]
        assert "step 2 is NONE" in problems["a warmup step before each recording"]
        assert "with warmup=0" in problems["a warmup step before each recording"]
    if wrong == "warmup-misaligned":  # warmup=1, so the warmup=0 note would blame the wrong cause
        message = problems["a warmup step before each recording"]
        assert "step 2 is RECORD" in message and "warmup=0" not in message
        assert "warms up at steps 1, 6" in message


def test_schedule_last_hint_leads_to_the_answer_without_giving_it() -> None:
    hints = exercises()["schedule"].hints()
    solution = (solution_folder("schedule") / "profiling_schedule.py").read_text(encoding="utf-8")
    answer = re.search(r"return (schedule\(.*\))", solution)
    assert answer and "warmup=1" in answer.group(1)
    assert len(hints) >= 4
    assert not any(answer.group(1) in hint or "wait=2, warmup=1" in hint for hint in hints)
    assert "WARMUP" in hints[-1]  # the last one says how to check a choice instead


# -- find-the-bottleneck -----------------------------------------------------------------------------


def test_find_the_bottleneck_starter_fails_asking_for_labels(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("find-the-bottleneck", "starter")
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    assert "no record_function label for stage:embed" in problems["run 1: every stage is labelled stage:NAME"]
    assert "you answered 'unknown'" in problems["run 2: the answer names the planted slow stage"]


def test_find_the_bottleneck_solution_passes(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("find-the-bottleneck", "solution")
    assert code == 0, failed(outcome)
    planted = [r["message"] for r in outcome["requirements"] if "planted slow stage" in r["name"]]
    assert len(planted) == 2 and planted[0] != planted[1]  # two different stages were planted


@pytest.mark.parametrize("wrong", wrong_solutions("find-the-bottleneck"))
def test_find_the_bottleneck_wrong_solutions_fail(wrong: str, catalogue: Catalogue) -> None:
    code, outcome = catalogue.wrong("find-the-bottleneck", wrong)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    if wrong == "picks-fastest":  # labels right, answer wrong: both runs
        assert sorted(problems) == [f"run {n}: the answer names the planted slow stage" for n in (1, 2)]
    if wrong == "unlabelled":
        assert "run 1: every stage is labelled stage:NAME" in problems


# -- tensorboard-logdir ------------------------------------------------------------------------------


def test_tensorboard_logdir_starter_fails_on_layout_gzip_and_the_unwritten_reader(
    catalogue: Catalogue,
) -> None:
    code, outcome = catalogue.report("tensorboard-logdir", "starter")
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    assert (
        "write each workload into its own folder"
        in problems["the plugin finds two runs: compute and waiting"]
    )
    assert "use_gzip=True" in problems["the traces are gzipped"]
    assert "NotImplementedError" in problems["read_overview() runs"]
    assert outcome["learner_traceback"].splitlines()[1].startswith('  File "tb_logdir.py"')


def test_tensorboard_logdir_solution_passes(catalogue: Catalogue) -> None:
    code, outcome = catalogue.report("tensorboard-logdir", "solution")
    assert code == 0, failed(outcome)
    names = [r["name"] for r in outcome["requirements"]]
    assert "read_overview matches the Overview: a run the checker wrote" in names
    assert "read_overview matches the Overview: waiting" in names
    assert "read_overview matches the Overview on generated runs" in names
    for name in (
        "each workload runs 5 steps: wait + warmup + active",
        "each run records ProfilerStep#2-#4: wait=1, warmup=1",
        "CUDA is profiled where there is a GPU, and only there",
    ):
        assert name in names, name
    if __import__("importlib").util.find_spec("torch_tb_profiler") is not None:
        assert "TensorBoard's profiler plugin loads both runs" not in names  # --quick: not started


@pytest.mark.parametrize("wrong", wrong_solutions("tensorboard-logdir"))
def test_tensorboard_logdir_wrong_solutions_fail(wrong: str, catalogue: Catalogue) -> None:
    code, outcome = catalogue.wrong("tensorboard-logdir", wrong)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failed(outcome)
    if wrong == "summed-durations":  # nested ops counted twice: wrong on every run
        assert len(problems) == 4 and all(name.startswith("read_overview matches") for name in problems)
    if wrong == "one-folder":
        assert list(problems) == ["the plugin finds two runs: compute and waiting"]
    if wrong == "unclipped-operators":  # the planted run has no operator across a step's edge
        assert list(problems) == ["read_overview matches the Overview on generated runs"], problems
        message = problems["read_overview matches the Overview on generated runs"]
        assert "cpu_exec_pct" in message and "the Overview shows" in message, message
        events = message.split(" — the events: ")[1]
        assert events.count("; ") <= 2 and "ProfilerStep#" in events and "aten::" in events, message
    generated = problems.get("read_overview matches the Overview on generated runs", "")
    if wrong == "gzip-only":  # the gzipped runs pass; the same runs written plain do not
        assert list(problems) == ["read_overview matches the Overview on generated runs"], problems
        assert "written as checker.1700000000000.pt.trace.json," in generated, generated
    if wrong == "no-empty-run":
        assert "on empty-trace" in generated and "ZeroDivisionError" in generated, generated
    if wrong == "kernels-as-cpu-exec":  # the smallest run shown holds the GPU work it ignored
        events = generated.split(" — the events: ")[1]
        assert any(f"[{cat}]" in events for cat in ("kernel", "gpu_memcpy", "gpu_memset")), generated
    if wrong == "gpu-steps-counted":
        assert "[gpu_user_annotation]" in generated and "steps 1, the Overview shows 0" in generated, (
            generated
        )
    if wrong == "no-wait":
        assert list(problems) == ["each run records ProfilerStep#2-#4: wait=1, warmup=1"], problems
        assert (
            "compute records ProfilerStep 1–3"
            in problems["each run records ProfilerStep#2-#4: wait=1, warmup=1"]
        )
    if wrong == "six-steps":
        assert list(problems) == ["each workload runs 5 steps: wait + warmup + active"], problems
        assert "compute ran 6 steps" in problems["each workload runs 5 steps: wait + warmup + active"]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_tensorboard_logdir_reference_is_exactly_the_plugins_reading_on_generated_runs(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference read_overview and the plugin's computation (tb_overview) agree exactly on every
    generated run, gzipped and plain: the checker may then compare learners exactly."""
    check = checker_module("tensorboard-logdir")
    monkeypatch.syspath_prepend(str(solution_folder("tensorboard-logdir")))
    monkeypatch.delitem(sys.modules, "tb_logdir", raising=False)
    assert check.drive_generated(seed, str(tmp_path)) is None
    names = [name for name, _ in check.generated_runs(random.Random(seed))]
    assert {"empty-trace", "no-step", "zero-length-step", "kernel-under-an-operator"} <= set(names)
    assert any(name.startswith("random-gpu-") for name in names)


def test_tensorboard_logdir_generated_runs_are_compared_exactly_and_real_runs_within_tolerance() -> None:
    check = checker_module("tensorboard-logdir")
    expected = {"steps": 3, "step_ms": 2.5, "cpu_exec_pct": 60.0, "other_pct": 40.0}
    off_by_one = {**expected, "cpu_exec_pct": 60.0 * 101 / 100}  # `100 *` slipped to `101 *`
    assert check.compare(off_by_one, expected) == []  # inside the 2 points a real trace is given
    (problem,) = check.compare(off_by_one, expected, exact=True)
    assert problem == "cpu_exec_pct 60.6, the Overview shows 60"
    rounded = {**expected, "step_ms": 2.5 * (1 + 1e-12)}  # a division rounded another way
    assert check.compare(rounded, expected, exact=True) == []
    assert check.overview_of([]) == {"steps": 0, "step_ms": 0.0, "cpu_exec_pct": 0.0, "other_pct": 0.0}


@pytest.mark.slow
@pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch_tb_profiler") is None,
    reason="the real TensorBoard step needs the tensorboard extra",
)
def test_tensorboard_logdir_full_check_loads_both_runs_in_the_real_tensorboard(tmp_path: Path) -> None:
    """--quick skips starting TensorBoard (~4.6 s); the full check a learner runs still does it."""
    import shutil

    from studyapp.exercises import checker, registry

    info = registry.discover()["tensorboard-logdir"]
    workspace = tmp_path / "workspace"
    shutil.copytree(info.solution_dir, workspace)
    outcome = checker.run_check(info, workspace, quick=False)
    assert outcome.verdict == checker.PASSED, outcome.message
    names = [requirement.name for requirement in outcome.requirements]
    assert "TensorBoard's profiler plugin loads both runs" in names, names
