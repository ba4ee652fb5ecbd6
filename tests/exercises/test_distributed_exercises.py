"""The distributed lab's exercise, checked as a learner checks it: `studyapp exercise check
comm-share-from-trace --path DIR --json --quick` in a subprocess, on the untouched starter, the
reference solution and the plausible wrong solutions kept as patches in
tests/exercises/wrong/comm-share-from-trace/NAME.yaml.

The planted traces decide every slip without a clock. Only the recorded 2-process run depends on the
machine; when it cannot finish the verdict is `undecided`, which a test below forces.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.exercises.exercise_runs import (
    Catalogue,
    assert_starter_fails_usefully,
    checker_module,
    failed,
    wrong_solutions,
)

EXERCISE = REPO / "labs" / "distributed" / "exercises" / "comm-share-from-trace"
ID = "comm-share-from-trace"
SHAPE = "returns steps, step_s, comm_s and share as numbers"
STEPS = "steps: one per ProfilerStep#N span"
STEP_S = "step_s: the steps' total time, in seconds"
COMM = "comm_s: time inside the steps when at least one gloo collective runs"
SHARE = "share = comm_s / step_s"
REAL = "a recorded 2-process DDP run: your reading = the checker's reading of the same trace"


def test_starter_fails_on_its_todo(catalogue: Catalogue) -> None:
    report = assert_starter_fails_usefully(catalogue, ID, "distributed")
    assert set(failed(report)) == {"communication_share() runs"}


@pytest.mark.slow
def test_solution_passes_or_the_machine_was_too_busy(catalogue: Catalogue) -> None:
    code, report = catalogue.report(ID, "solution")  # the catalogue's run of the solution, read again
    assert [r["name"] for r in report["requirements"]] == [SHAPE, STEPS, STEP_S, COMM, SHARE, REAL]
    planted = [r for r in report["requirements"] if r["name"] != REAL]
    assert all(r["passed"] for r in planted), failed(report)
    real = next(r for r in report["requirements"] if r["name"] == REAL)
    if report["verdict"] == "undecided":  # only the recording may be spoiled by a busy machine
        assert real.get("undecided") and "says nothing about your code" in real["message"], real
        return
    assert (code, report["verdict"]) == (0, "passed"), failed(report)
    assert "as the checker read it" in real["message"] and "comm hook timed" in real["message"]


def test_every_kept_slip_is_kept() -> None:
    assert wrong_solutions(ID) == ["enqueue-op", "microseconds", "summed-spans", "whole-trace"]


@pytest.mark.parametrize(
    ("slip", "requirement", "hint"),
    [
        ("summed-spans", COMM, "two gloo threads reduced at the same time"),
        ("enqueue-op", COMM, "only queue a collective"),
        ("whole-trace", COMM, "count only the time inside the ProfilerStep#N spans"),
        ("microseconds", STEP_S, "trace times are microseconds"),
    ],
)
def test_each_slip_is_caught_with_its_hint(
    slip: str, requirement: str, hint: str, catalogue: Catalogue
) -> None:
    code, report = catalogue.wrong(ID, slip)
    assert code == 1 and report["verdict"] == "failed", report
    problems = failed(report)
    assert requirement in problems and hint in problems[requirement], problems
    assert REAL not in [r["name"] for r in report["requirements"]]  # stopped before the slow recording


def load_checker() -> Any:
    return checker_module("comm-share-from-trace")


def test_a_recording_the_machine_could_not_finish_is_undecided_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from labs.distributed import launcher

    checker = load_checker()

    def too_busy(*_args: Any) -> Any:
        raise launcher.RankFailed("the ranks did not finish within 120 s")

    workspace = tmp_path / "ws"
    shutil.copytree(EXERCISE / "solution", workspace)
    monkeypatch.setattr(checker, "record_run", too_busy)
    monkeypatch.setenv("STUDYAPP_EXERCISE_PROTOCOL", "jsonl")
    monkeypatch.setattr(sys, "argv", ["check.py", "--workspace", str(workspace), "--quick"])
    with pytest.raises(SystemExit) as exited:
        checker.main()
    assert exited.value.code == 3
    lines = [json.loads(line) for line in capfd.readouterr().out.splitlines()]
    result = lines[-1]
    assert result["type"] == "result" and result["verdict"] == "undecided"
    real = next(r for r in result["requirements"] if r["name"] == REAL)
    assert real.get("undecided") and "did not finish" in real["message"]
