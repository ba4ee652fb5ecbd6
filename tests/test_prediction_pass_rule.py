"""The one pass rule (studyapp/quiz/pass_rule.py): the mock exam's verdict and the prediction's
pass probability apply the same pass mark and 과락 cutoff."""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np
import pytest

from studyapp.quiz import pass_rule
from studyapp.quiz.pass_rule import RULE_PASS_MARK, questions_needed
from studyapp.report.prediction import outlook, poisson_binomial

RULE_CUTOFF = pass_rule.RULE_TOPIC_CUTOFF


class Verdict(NamedTuple):
    passed: bool
    rule: str
    topic: str | None = None


def verdict(scores: dict[str, tuple[int, int]], pass_mark: float, cutoff: float | None = None) -> Verdict:
    """The exam's one rule, asked with per-topic scores only (the total is their sum)."""
    right = sum(got for got, _ in scores.values())
    total = sum(count for _, count in scores.values())
    decided = pass_rule.verdict(right, total, scores, pass_mark, cutoff)
    return Verdict(decided.passed, decided.rule, decided.topic)


def test_questions_needed_reaches_the_share_exactly() -> None:
    assert questions_needed(30, 0.6) == 18  # 18/30 is 60 % in floating point too
    assert questions_needed(10, 0.4) == 4 and questions_needed(7, 0.4) == 3
    assert questions_needed(0, 0.6) == 0 and questions_needed(5, 1.0) == 5


def test_the_pass_mark_decides_without_a_cutoff() -> None:
    assert verdict({"A": (10, 15), "B": (8, 15)}, 0.6) == Verdict(True, RULE_PASS_MARK)
    assert verdict({"A": (10, 15), "B": (7, 15)}, 0.6) == Verdict(False, RULE_PASS_MARK)
    assert verdict({"A": (15, 15), "B": (0, 15)}, 0.5) == Verdict(True, RULE_PASS_MARK)


def test_a_topic_under_the_cutoff_fails_the_exam_and_is_named() -> None:
    # 24/30 is well over the pass mark, but topic B has 1 of 5 under a 40 % cutoff: 과락
    scores = {"A": (13, 13), "B": (1, 5), "C": (10, 12)}
    assert verdict(scores, 0.6, 0.4) == Verdict(False, RULE_CUTOFF, "B")
    # two topics short: the one with the lowest share is named
    assert verdict({"A": (1, 5), "B": (0, 5), "C": (20, 20)}, 0.6, 0.4).topic == "B"
    # every topic at its cutoff: the total decides
    assert verdict({"A": (2, 5), "B": (2, 5), "C": (20, 20)}, 0.6, 0.4) == Verdict(True, RULE_PASS_MARK)
    assert verdict({"A": (2, 5), "B": (2, 5), "C": (10, 20)}, 0.6, 0.4) == Verdict(False, RULE_PASS_MARK)


def test_an_exam_without_questions_is_not_passed() -> None:
    assert verdict({}, 0.6) == Verdict(False, RULE_PASS_MARK)


@pytest.mark.parametrize("cutoff", [None, 0.4, 0.67])
def test_the_predicted_pass_probability_is_the_verdict_over_every_outcome(cutoff: float | None) -> None:
    """Brute force: every way each question can go, weighted, graded by `verdict`."""
    topics = {"A": [0.9, 0.6, 0.3], "B": [0.5, 0.8], "C": [0.7, 0.2, 0.4]}
    questions = [(topic, p) for topic, ps in topics.items() for p in ps]
    expected = 0.0
    for outcome in itertools.product((False, True), repeat=len(questions)):
        weight = float(
            np.prod([p if right else 1 - p for (_, p), right in zip(questions, outcome, strict=True)])
        )
        scores = {
            topic: (sum(r for (t, _), r in zip(questions, outcome, strict=True) if t == topic), len(ps))
            for topic, ps in topics.items()
        }
        expected += weight * verdict(scores, 0.6, cutoff).passed
    predicted = outlook({t: poisson_binomial(ps) for t, ps in topics.items()}, 0.6, cutoff)
    assert predicted.pass_probability == pytest.approx(expected, abs=1e-12)
