"""The pipeline lab's exercise, checked as a learner checks it: `studyapp exercise check pipeline
--path DIR --json --quick` in a subprocess, on the untouched starter, the reference solution and the
plausible wrong solutions kept as patches in tests/exercises/wrong/pipeline/NAME.yaml.

The throughput requirement is measured. The solution must pass; `undecided` is accepted only when
the checker says why — the reference, measured in the same rounds, fell short too (a busy machine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.exercises.exercise_runs import check_folder, check_wrong_solution, failed

EXERCISE = REPO / "labs" / "pipeline" / "exercises" / "pipeline"
SPEED = "throughput ≈ 1 / slowest stage (measured)"


def check(folder: Path, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    return check_folder("pipeline", folder, tmp_path)


def test_starter_fails_where_the_todos_are(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check(EXERCISE / "starter", tmp_path)
    assert code == 1 and result["verdict"] == "failed"
    problems = failed(result)
    assert (
        "at most 1 item(s) inside transform at once"
        in problems["the slow stage runs its threads at the same time"]
    )
    assert "NotImplementedError: TODO: bottleneck(report)" in problems["bottleneck() names the slowest stage"]
    assert "NotImplementedError" in problems["relieve() spends the threads on the bottleneck"]
    assert "0.33×" in problems[SPEED]  # one thread on a 15 ms stage: a third of 1 / 5 ms
    assert "pipeline.py" in (result["learner_traceback"] or "")


def test_solution_passes_or_the_machine_is_shown_too_busy(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check(EXERCISE / "solution", tmp_path)
    problems = failed(result)
    if result["verdict"] == "undecided":  # the noise path, and only that: nothing else may fail
        assert set(problems) == {SPEED} and "too busy to tell" in problems[SPEED], problems
        assert code == 1
        return
    assert (code, result["verdict"]) == (0, "passed"), problems
    assert len(result["requirements"]) == 9
    speed = next(r["message"] for r in result["requirements"] if r["name"] == SPEED)
    assert "the reference's" in speed and "rounds" in speed


def test_a_lock_around_work_is_caught_by_concurrency_and_speed(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check_wrong_solution("pipeline", "lock-around-work", tmp_path)
    assert code == 1 and result["verdict"] == "failed"
    problems = failed(result)
    assert set(problems) == {"the slow stage runs its threads at the same time", SPEED}
    assert (
        "where the reference does not" in problems[SPEED] or "the reference's throughput" in problems[SPEED]
    )


def test_one_done_marker_for_many_threads_hangs_and_is_explained(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check_wrong_solution("pipeline", "one-done-marker", tmp_path)
    assert code == 1
    (message,) = failed(result).values()
    assert "did not finish within" in message and "_DONE" in message


def test_busy_time_not_shared_among_threads_names_the_wrong_stage(
    isolated_home: Path, tmp_path: Path
) -> None:
    code, result = check_wrong_solution("pipeline", "busy-not-per-thread", tmp_path)
    assert code == 1
    problems = failed(result)
    assert set(problems) - {SPEED} == {"bottleneck() names the slowest stage"}
    assert "you said 'transform'" in problems["bottleneck() names the slowest stage"]


def test_busy_time_that_includes_waiting_is_caught(isolated_home: Path, tmp_path: Path) -> None:
    """Starting the clock before get() counts a starved stage's waiting as work."""
    code, result = check_wrong_solution("pipeline", "busy-includes-waiting", tmp_path)
    assert code == 1
    problems = failed(result)
    assert "not the waiting in get()/put()" in problems["busy_s is the time spent inside work()"]
