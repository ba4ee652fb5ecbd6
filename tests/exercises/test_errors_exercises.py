"""The errors lab's exercises (bias-variance, confusion, imbalance), checked as a learner checks:
the untouched starter fails with messages that say what to write, the reference solution passes,
and every plausible wrong solution (a patch in tests/exercises/wrong/ID/NAME.yaml) fails with a message naming the
slip. The runs are the session's `catalogue` (each variant checked once, judged generically by
test_catalogue.py); this file checks what their messages say. The checkers plant fresh data (a new
seed) on every run, so these tests see new cases each time; their verdicts do not depend on timing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studyapp.cli import main
from tests.exercises.exercise_runs import (
    Catalogue,
    assert_starter_fails_usefully,
    checker_module,
    exercise_folder,
    failed,
    wrong_solutions,
)

EXERCISES = ["bias-variance", "confusion", "imbalance"]

# wrong solution → (the requirement that must fail, a fragment its message must hold)
EXPECTED_SLIPS = {
    ("bias-variance", "sample-variance"): ("variance matches the reference", "not R − 1"),
    ("bias-variance", "bias-against-labels"): ("bias2 matches the reference", "not the noisy y_test"),
    ("bias-variance", "no-bootstrap"): ("fits one model per round on a bootstrap sample", "WITH replacement"),
    ("confusion", "micro-f1"): ("macro_f1: the mean of the per-class F1", "micro F1"),
    ("confusion", "rows-and-columns-swapped"): (
        "per_class_metrics: precision, recall, F1, support",
        "swapped",
    ),
    ("confusion", "divides-by-zero"): (
        "a class never predicted (or absent) has precision 0, no crash",
        "ZeroDivisionError",
    ),
    ("imbalance", "accuracy-not-balanced"): ("balanced_accuracy: mean per-class recall", "plain accuracy"),
    ("imbalance", "balanced-over-all-labels"): (
        "balanced_accuracy: mean per-class recall",
        "a label the data never has",
    ),
    ("imbalance", "imbalance-is-the-trap"): (
        "accuracy_is_misleading: spots the accuracy trap",
        "imbalance alone is not the trap",
    ),
}


def test_every_wrong_solution_on_disk_has_an_expected_slip() -> None:
    on_disk = {(e, w) for e in EXERCISES for w in wrong_solutions(e)}
    assert on_disk == set(EXPECTED_SLIPS)
    assert all(len(wrong_solutions(e)) >= 1 for e in EXERCISES)


def test_the_exercises_are_listed_with_their_checklist_items(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise", "list", "--json"]) == 0
    listed = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    expected = {
        "bias-variance": ["bias-variance"],
        "confusion": ["confusion-matrix"],
        "imbalance": ["imbalance-detection"],
    }
    for exercise_id, checklist in expected.items():
        row = listed[exercise_id]
        assert row["lab"] == "errors" and row["checklist"] == checklist
        starter = {p.name for p in (exercise_folder("errors", exercise_id) / "starter").iterdir()}
        assert starter <= {p.name for p in Path(row["solution_path"]).iterdir()}
        hints = (exercise_folder("errors", exercise_id) / "hints.md").read_text(encoding="utf-8")
        assert len([h for h in hints.split("\n---\n") if h.strip()]) >= 3


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_the_untouched_starter_fails_and_says_what_to_write(exercise_id: str, catalogue: Catalogue) -> None:
    assert_starter_fails_usefully(catalogue, exercise_id, "errors")


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_the_reference_solution_passes(exercise_id: str, catalogue: Catalogue) -> None:
    code, report = catalogue.report(exercise_id, "solution")
    assert code == 0 and report["verdict"] == "passed", failed(report)
    assert len(report["requirements"]) >= 5


@pytest.mark.parametrize(("exercise_id", "wrong"), sorted(EXPECTED_SLIPS))
def test_a_plausible_wrong_solution_fails_and_names_the_slip(
    exercise_id: str, wrong: str, catalogue: Catalogue
) -> None:
    code, report = catalogue.wrong(exercise_id, wrong)
    assert code == 1 and report["verdict"] == "failed", report
    requirement, fragment = EXPECTED_SLIPS[(exercise_id, wrong)]
    failures = failed(report)
    assert requirement in failures, failures
    assert fragment in failures[requirement], failures[requirement]
    # the rest of a wrong solution is right: a slip fails few requirements, not everything
    assert len(failures) < len(report["requirements"]), failures


def test_a_crash_in_the_learners_code_shows_their_traceback_only(catalogue: Catalogue) -> None:
    code, report = catalogue.wrong("confusion", "divides-by-zero")
    assert code == 1
    traceback = report["learner_traceback"]
    assert 'File "confusion.py"' in traceback and "ZeroDivisionError" in traceback
    assert "check.py" not in traceback and "labs/" not in traceback


def test_a_wrong_macro_f1_says_which_other_average_it_is() -> None:
    """Review row 25: a wrong macro F1 that equals another average is named, not only shown."""
    check = checker_module("confusion")
    case = {
        "name": "hand",
        "labels": ["a", "b", "c", "d"],  # d is never the truth: its F1 is 0 and counts in the macro
        "y_true": ["a", "a", "a", "a", "a", "b", "b", "c"],
        "y_pred": ["a", "a", "a", "b", "d", "b", "a", "c"],
    }
    ref = check.reference(case)
    rows = list(ref["per_class"].values())
    present = [row["f1"] for row in rows if row["support"] > 0]
    weighted = sum(row["f1"] * row["support"] for row in rows) / sum(row["support"] for row in rows)
    mean_p = sum(row["precision"] for row in rows) / len(rows)
    mean_r = sum(row["recall"] for row in rows) / len(rows)
    assert "accuracy (micro F1)" in check.macro_slip(ref["accuracy"], ref)
    assert "absent from y_true" in check.macro_slip(sum(present) / len(present), ref)
    assert "weighted by support" in check.macro_slip(weighted, ref)
    assert "mean precision and the mean recall" in check.macro_slip(
        2 * mean_p * mean_r / (mean_p + mean_r), ref
    )
    assert check.macro_slip(0.123, ref) == ""
