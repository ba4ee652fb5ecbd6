"""The pipeline lab's exercise, checked as a learner checks it: the untouched starter, the reference
solution and the plausible wrong solutions kept as patches in tests/exercises/wrong/pipeline/NAME.yaml
come from the session's `catalogue` (each checked once, judged generically by test_catalogue.py);
this file checks what their messages say.

The throughput requirement is measured. The solution must pass; `undecided` is accepted only when
the checker says why — the reference, measured in the same rounds, fell short too (a busy machine).
A measured number is asserted as a band, never as formatted text: the machine is shared.
"""

from __future__ import annotations

import re
from typing import Any

from tests.exercises.exercise_runs import Catalogue, checker_module, failed

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
    assert len(result["requirements"]) == 10  # 9 + the stages' overlap
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
