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
GENERATED = "agrees with the reference reading on generated traces"
REAL = "a recorded 2-process DDP run: your reading = the checker's reading of the same trace"


def test_starter_fails_on_its_todo(catalogue: Catalogue) -> None:
    report = assert_starter_fails_usefully(catalogue, ID, "distributed")
    assert set(failed(report)) == {"communication_share() runs"}


@pytest.mark.slow
def test_solution_passes_or_the_machine_was_too_busy(catalogue: Catalogue) -> None:
    code, report = catalogue.report(ID, "solution")  # the catalogue's run of the solution, read again
    assert [r["name"] for r in report["requirements"]] == [SHAPE, STEPS, STEP_S, COMM, SHARE, GENERATED, REAL]
    planted = [r for r in report["requirements"] if r["name"] != REAL]
    assert all(r["passed"] for r in planted), failed(report)
    real = next(r for r in report["requirements"] if r["name"] == REAL)
    if report["verdict"] == "undecided":  # only the recording may be spoiled by a busy machine
        assert real.get("undecided") and "says nothing about your code" in real["message"], real
        return
    assert (code, report["verdict"]) == (0, "passed"), failed(report)
    assert "as the checker read it" in real["message"] and "comm hook timed" in real["message"]


def test_every_kept_slip_is_kept() -> None:
    assert wrong_solutions(ID) == [
        "all-reduce-only",
        "enqueue-op",
        "microseconds",
        "no-step-divides",
        "one-digit-steps",
        "summed-spans",
        "whole-trace",
    ]


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


@pytest.mark.parametrize(
    ("slip", "shown"),
    [
        # The planted traces have only all-reduce and steps below 10: only the generated ones see
        # these, and the message shows the smallest trace that does, cut to the events that matter.
        ("all-reduce-only", ["ProfilerStep#", "gloo:", "you: steps=1", "expected: steps=1"]),
        ("one-digit-steps", ["ProfilerStep#", "you: steps=0", "expected: steps=1"]),
        ("no-step-divides", ["on no-step", "raised ZeroDivisionError", "expected: steps=0"]),
    ],
)
def test_generated_traces_catch_what_the_planted_ones_miss_and_show_the_smallest(
    slip: str, shown: list[str], catalogue: Catalogue
) -> None:
    code, report = catalogue.wrong(ID, slip)
    assert code == 1 and report["verdict"] == "failed", report
    problems = failed(report)
    assert set(problems) == {GENERATED}, problems  # every planted requirement passed
    message = problems[GENERATED]
    assert all(part in message for part in shown), message
    # shrunk: at most a few events are left to read (each "; " separates two)
    assert message.split(" — the events: ")[1].count("; ") <= 3, message


def load_checker() -> Any:
    return checker_module("comm-share-from-trace")


def test_the_generated_traces_cover_the_edges_and_the_solution_is_their_oracle(tmp_path: Path) -> None:
    """The reference solution and the checker's own reading (two separate implementations) agree on
    every generated trace, and the generator really plants the edges the README promises."""
    import importlib.util
    import random
    import re

    checker = load_checker()
    # loaded from a copy: importing it in place would leave a __pycache__ in the shipped folder
    copied = tmp_path / "comm_share.py"
    shutil.copyfile(EXERCISE / "solution" / "comm_share.py", copied)
    spec = importlib.util.spec_from_file_location("comm_share_reference", copied)
    assert spec is not None and spec.loader is not None
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    names: set[str] = set()
    step_numbers: set[int] = set()
    step_counts: set[int] = set()
    for seed in range(20):
        for _name, items in checker.generated_traces(random.Random(seed)):
            path = tmp_path / "trace.json"
            path.write_text(json.dumps(checker.as_trace(items)), encoding="utf-8")
            expected = checker.answer_part(checker.reading(checker.as_trace(items)))
            assert checker.agrees(reference.communication_share(str(path)), expected), (seed, _name)
            names |= {e["name"] for e in items if e["name"].startswith("gloo:")}
            steps = [int(m[1]) for e in items if (m := re.fullmatch(r"ProfilerStep#(\d+)", e["name"]))]
            step_numbers |= set(steps)
            step_counts.add(len(steps))
    assert set(checker.COLLECTIVES) <= names
    assert {0, 1} <= step_counts and max(step_counts) >= 10
    assert {9, 10, 100} <= step_numbers and max(step_numbers) >= 1000


def test_the_agreement_is_exact_where_the_readme_says() -> None:
    checker = load_checker()
    expected = {"steps": 2, "step_s": 0.001, "comm_s": 0.0004, "share": 0.4}
    assert checker.agrees(dict(expected), expected)
    assert not checker.agrees(expected | {"steps": 3}, expected)
    assert not checker.agrees(expected | {"comm_s": 0.0004 * (1 + 1e-5)}, expected)  # over 1e-6 relative
    assert not checker.agrees(expected | {"share": True}, expected)
    assert not checker.agrees([0.4], expected)


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
