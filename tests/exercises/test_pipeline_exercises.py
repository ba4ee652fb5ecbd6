"""The pipeline lab's exercise, checked as a learner checks it: the untouched starter, the reference
solution and the plausible wrong solutions kept as patches in tests/exercises/wrong/pipeline/NAME.yaml
come from the session's `catalogue` (each checked once, judged generically by test_catalogue.py);
this file checks what their messages say.

The throughput requirement is measured. The solution must pass; `undecided` is accepted only when
the checker says why — the reference, measured in the same rounds, fell short too (a busy machine).
A measured number is asserted as a band, never as formatted text: the machine is shared.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.exercises.exercise_runs import Catalogue, checker_module, failed, solution_folder

SPEED = "throughput ≈ 1 / slowest stage (measured)"


def measured_throughput(message: str) -> float:
    """The learner's median throughput, as a share of theory, that a speed message reports
    ("throughput end to end 0.33× of theory (interval …)", labs._exercise.decide_with_control)."""
    found = re.search(r"throughput end to end (\d+(?:\.\d+)?)×", message)
    assert found, message
    return float(found.group(1))


def test_starter_fails_where_the_todos_are(catalogue: Catalogue) -> None:
    code, result = catalogue.report("pipeline", "starter")
    assert code == 1 and result["verdict"] == "failed"
    problems = failed(result)
    assert (
        "at most 1 item(s) inside transform at once"
        in problems["the slow stage runs its threads at the same time"]
    )
    assert "NotImplementedError: TODO: bottleneck(report)" in problems["bottleneck() names the slowest stage"]
    assert "NotImplementedError" in problems["relieve() spends the threads on the bottleneck"]
    # one thread on a 15 ms stage: at most a third of 1 / 5 ms (0.33×), less when sleeps overshoot
    assert SPEED in problems  # not passed: yours / the reference's ≈ 0.35, below any busy-machine excuse
    assert 0.2 <= measured_throughput(problems[SPEED]) <= 0.4, problems[SPEED]
    assert "pipeline.py" in (result["learner_traceback"] or "")


def test_stage_by_stage_is_no_pipeline_whatever_the_load(catalogue: Catalogue) -> None:
    """Each stage over all items before the next: every stage runs its threads at once and every
    item is right, but save starts only after load is done — seen from the order, not a clock."""
    code, result = catalogue.wrong("pipeline", "stage-by-stage")
    assert code == 1 and result["verdict"] == "failed"
    problems = failed(result)
    assert (
        "save began only after load had finished every item"
        in problems["the stages work at the same time (a pipeline)"]
    )
    assert "the slow stage runs its threads at the same time" not in problems


# decide_with_control's three reasons for an undecided speed (labs/_exercise/speed.py)
UNDECIDED_REASONS = ("too busy to tell", "the rounds vary too much to tell", "yours varies across it")


def test_solution_passes_or_the_machine_is_shown_too_busy(catalogue: Catalogue) -> None:
    code, result = catalogue.report("pipeline", "solution")
    problems = failed(result)
    if result["verdict"] == "undecided":  # the noise path, and only that: nothing else may fail
        assert set(problems) == {SPEED} and any(reason in problems[SPEED] for reason in UNDECIDED_REASONS)
        assert code == 3
        return
    assert (code, result["verdict"]) == (0, "passed"), problems
    assert len(result["requirements"]) == 11  # 9, the stages' overlap and the generated pipelines
    speed = next(r["message"] for r in result["requirements"] if r["name"] == SPEED)
    assert "the reference's" in speed and "rounds" in speed


def test_a_lock_around_work_is_caught_by_concurrency_and_speed(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("pipeline", "lock-around-work")
    assert code == 1 and result["verdict"] == "failed"
    problems = failed(result)
    assert set(problems) == {"the slow stage runs its threads at the same time", SPEED}
    assert (
        "where the reference does not" in problems[SPEED] or "the reference's throughput" in problems[SPEED]
    )
    message = problems["the slow stage runs its threads at the same time"]
    assert "at most 1 item(s) inside transform at once, with workers[1] = 3" in message
    assert "outside work() between two items" in message and "a lock held while work() runs" in message


def test_a_sleep_after_each_item_is_caught_by_speed(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("pipeline", "sleep-after-each-item")
    problems = failed(result)
    if result["verdict"] == "undecided":
        assert set(problems) == {SPEED} and any(reason in problems[SPEED] for reason in UNDECIDED_REASONS)
        return
    assert code == 1 and SPEED in problems, problems
    together = problems.get("the slow stage runs its threads at the same time")
    if together:  # the sleeps may or may not keep a transform thread out of every overlap
        assert "sleeping or other work after each item" in together


def load_checker() -> Any:
    """The checker module itself, to test its messages on numbers chosen by hand."""
    return checker_module("pipeline")


def test_too_few_threads_inside_says_what_kept_them_out() -> None:
    """Review row 24: a sleep between items is not called a lock; what the probe saw is shown."""
    too_few_inside = load_checker().too_few_inside
    slept = too_few_inside(2, 3, {"transform": 0.0052}, 0.006)  # measured: a 5 ms sleep per item
    assert slept.startswith("at most 2 item(s) inside transform at once, with workers[1] = 3")
    assert "5.2 ms outside work() between two items on average (work() takes 6.0 ms)" in slept
    assert slept.endswith("or sleeping or other work after each item")
    assert len(slept) <= 300  # a requirement's message is cut at 300 characters
    locked = too_few_inside(1, 3, {"transform": 0.028}, 0.006)  # measured: one lock around work()
    assert "a lock held while work() runs" in locked
    one_thread = too_few_inside(1, 3, {"transform": 0.00003}, 0.006)  # no gap: threads not started
    assert one_thread.endswith("start workers[i] threads per stage") and "lock" not in one_thread
    assert too_few_inside(1, 3, {}, 0.006).endswith("start workers[i] threads per stage")


def test_one_done_marker_for_many_threads_hangs_and_is_explained(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("pipeline", "one-done-marker")
    assert code == 1
    (message,) = failed(result).values()
    assert "did not finish within" in message and "_DONE" in message


def test_busy_time_not_shared_among_threads_names_the_wrong_stage(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("pipeline", "busy-not-per-thread")
    assert code == 1
    problems = failed(result)
    assert set(problems) - {SPEED} == {"bottleneck() names the slowest stage"}
    assert "you said 'transform'" in problems["bottleneck() names the slowest stage"]


def test_busy_time_that_includes_waiting_is_caught(catalogue: Catalogue) -> None:
    """Starting the clock before get() counts a starved stage's waiting as work."""
    code, result = catalogue.wrong("pipeline", "busy-includes-waiting")
    assert code == 1
    problems = failed(result)
    assert "not the waiting in get()/put()" in problems["busy_s is the time spent inside work()"]


# -- generated pipelines and reports (issue 31: the reference as the oracle) --------------------------

GENERATED = "run_pipeline agrees with the reference on generated pipelines"
BOTTLENECK = "bottleneck() names the slowest stage"
RELIEVE = "relieve() spends the threads on the bottleneck"


def load_driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pipeline_py: str) -> Any:
    """The exercise's driver in this process, with `pipeline_py` as the learner's pipeline.py (the
    driver imports it by name, as in the learner's child)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "pipeline.py").write_text(pipeline_py, encoding="utf-8")
    monkeypatch.syspath_prepend(str(workspace))
    monkeypatch.delitem(sys.modules, "pipeline", raising=False)
    monkeypatch.chdir(workspace)
    path = solution_folder("pipeline").parent / "pipeline_driver.py"
    spec = importlib.util.spec_from_file_location("pipeline_driver_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_source() -> str:
    return (solution_folder("pipeline") / "pipeline.py").read_text(encoding="utf-8")


def test_generated_inputs_are_the_same_every_run_and_smallest_first() -> None:
    check = load_checker()
    reports = check.generated_reports()
    assert reports == check.generated_reports()  # seeded: a mutant meets the same reports every run
    sizes = [(len(r["stages"]), r["items"], r["threads"]) for r in reports]
    assert sizes == sorted(sizes) and len(reports) == 53  # the README names 53
    assert {len(r["stages"]) for r in reports} == {1, 2, 3, 4}
    assert any(r["items"] == 0 for r in reports) and any(r["items"] == 1 for r in reports)
    tied = [r for r in reports if len({b / w for b, w in zip(r["busy_s"], r["workers"], strict=True)}) == 1]
    assert any(len(r["stages"]) > 1 for r in tied)  # a tie among several stages
    pipelines = check.generated_pipelines()
    runnable = [p for p in pipelines if len(p["workers"]) == len(p["stages"]) and min(p["workers"]) >= 1]
    assert len(runnable) == 16 and len(pipelines) - len(runnable) == 3  # as the README says
    assert [p["items"] for p in runnable] == sorted(p["items"] for p in runnable)
    assert runnable[0]["items"] == 0 and any(max(p["workers"]) > p["items"] > 0 for p in runnable)


def test_the_reference_agrees_with_itself_on_every_generated_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = load_checker()
    driver = load_driver(tmp_path, monkeypatch, reference_source())
    assert driver.judge_reports(check.generated_reports()) == {"bottleneck": None, "relieve": None}
    cases = check.generated_pipelines()
    results = driver.run_generated(cases)
    assert len(results) == len(cases)
    assert [check.generated_problem(c, r) for c, r in zip(cases, results, strict=True)] == [""] * len(cases)


def test_a_relieve_that_hands_out_every_thread_at_once_shows_the_smallest_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All spare threads to the first bottleneck: right while one stage dominates, worse as soon as
    the bottleneck moves; the smallest such report is shown with both answers."""
    source = reference_source().replace(
        """    for _ in range(threads - len(workers)):
        slowest = max(per_item, key=lambda name: per_item[name] / workers[name])
        workers[slowest] += 1""",
        """    slowest = max(per_item, key=lambda name: per_item[name])
    workers[slowest] += threads - len(workers)""",
    )
    assert source != reference_source()
    check = load_checker()
    driver = load_driver(tmp_path, monkeypatch, source)
    reports = check.generated_reports()
    found = driver.judge_reports(reports)
    assert found["bottleneck"] is None
    wrong = found["relieve"]
    case = wrong["case"]
    # the first report (smallest first) on which its split is worse than the reference's
    learner, oracle = driver.learner(), driver.reference()
    assert case == next(
        r for r in reports if not driver.split_as_good(split_of(learner, r), split_of(oracle, r), r)
    )
    message = check.report_problem(SimpleNamespace(learner_traceback=None), "relieve", ok_result(found))
    assert message.startswith(f"on a report of {case['items']} item(s), busy_s ")
    assert (
        f"relieve(report, {case['threads']}) = {wrong['answer']}, the reference's {wrong['expected']}"
        in message
    )
    assert ": its slowest stage takes " in message  # a valid split, only slower: both times shown


def split_of(module: Any, case: dict[str, Any]) -> list[int]:
    """`module.relieve` on a generated report, built from `module`'s own Report."""
    report = module.Report(
        1.0,
        case["items"],
        dict(zip(case["stages"], case["workers"], strict=True)),
        dict(zip(case["stages"], case["busy_s"], strict=True)),
    )
    return list(module.relieve(report, case["threads"]))


def ok_result(value: Any) -> Any:
    return SimpleNamespace(ok=True, value=value, error=None)


def test_a_tie_may_be_answered_with_any_tied_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """max() keeps the first of tied stages; min() over the negated ratio the last: both right."""
    source = reference_source().replace(
        "return max(report.busy_s, key=lambda name: report.busy_s[name] / report.workers[name])",
        "return list(report.busy_s)[::-1][\n"
        "        [-report.busy_s[n] / report.workers[n] for n in list(report.busy_s)[::-1]].index(\n"
        "            min(-report.busy_s[n] / report.workers[n] for n in report.busy_s)\n"
        "        )\n"
        "    ]",
    )
    assert source != reference_source()
    driver = load_driver(tmp_path, monkeypatch, source)
    assert driver.judge_reports(load_checker().generated_reports())["bottleneck"] is None


def test_generated_pipeline_messages_name_the_case_and_what_was_seen() -> None:
    check = load_checker()
    case = {"stages": ["load", "save"], "workers": [1, 2], "items": 1, "costs": [0.0004, 0.0008]}
    expected = {"wall_s": 0.01, "items": 1, "workers": {"load": 1, "save": 2}, "busy_s": {}, "outputs": []}
    expected["outputs"] = [(0, ("load", "save"))]
    late = {**expected, "wall_s": 2.0}
    ran = {"status": "ok", "expected": expected, "report": late, "worked": [1.0, 1.002], "called": [0.9, 1.1]}
    message = check.generated_problem(case, {**ran, "timeout_s": 5.0})
    assert message.startswith(
        "on 1 item(s) (each == anything) through ['load', 'save'] on [1, 2] thread(s): wall_s = 2.000000 s"
    )
    assert "the stages worked for 0.002000 s and the call took 0.200000 s" in message
    lost = {**ran, "report": {**expected, "wall_s": 0.1, "outputs": []}, "timeout_s": 5.0}
    assert "outputs [], the reference's [(0, ('load', 'save'))]" in check.generated_problem(case, lost)
    raised = {
        "error": "your code raised IndexError: list index out of range (pipeline.py:61)",
        "traceback": None,
    }
    hung = {"status": "hung", "expected": expected, "timeout_s": 5.0}
    assert "_DONE" in check.generated_problem(case, hung)  # no cause seen: the usual one is named
    with_cause = check.generated_problem(case, {**hung, "thread_error": raised})
    assert with_cause.endswith(
        "did not finish within 5 s, after a thread raised IndexError: list index out of range (pipeline.py:61)"
    )
    assert "_DONE" not in with_cause  # the cause seen, not a guess
    refused = {"status": "ok", "expected": {"raises": "ValueError"}, "report": expected, "timeout_s": 5.0}
    assert check.generated_problem(case, refused).endswith(
        "returned a report; the reference raises ValueError for these workers"
    )
    same = {"status": "raised", "expected": {"raises": "ValueError"}, "timeout_s": 5.0, "worked": None}
    assert check.generated_problem(case, {**same, "error": {**raised, "type": "ValueError"}}) == ""
    late_refusal = {**same, "error": {**raised, "type": "ValueError"}, "worked": [1.0, 1.01]}
    assert "ValueError only after the stages had worked" in check.generated_problem(case, late_refusal)


def test_recorded_slips_of_the_generated_checks_say_where(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("pipeline", "relieve-divides-by-items")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {RELIEVE}
    assert (
        problems[RELIEVE].startswith("on a report of 0 item(s)") and "ZeroDivisionError" in problems[RELIEVE]
    )
    code, result = catalogue.wrong("pipeline", "last-stage-by-index")
    assert code == 1
    message = failed(result)[GENERATED]
    assert message.startswith("on 1 item(s) (each == anything) through ['load'] on [1] thread(s): outputs []")
    assert "after a thread raised IndexError" in message
    code, result = catalogue.wrong("pipeline", "done-compared-with-eq")
    assert code == 1
    message = failed(result)[GENERATED]  # the items said to equal anything: `==` takes one for _DONE
    assert message.startswith("on 1 item(s) (each == anything) through ['load'] on [1] thread(s): outputs []")
