"""How the recall model reads a pick answer's credits (report/recall_model.py).

A wrong 4-choice answer credits the missed key and the picked option. The pick was chosen because
the learner did not know it, and the options they knew are never credited: read as answers, the
picks made the learner's `prior` come out at about half the truth (docs/READINESS.md). These tests
hold the reading that replaced it: a pick says only "not known then", the key's credit carries the
answer's evidence at the guess rate left once the known distractors are struck.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from studyapp.progress.scheduler import Grade, recall_after
from studyapp.progress.store import Review
from studyapp.quiz.kinds.base import eliminated_guess
from studyapp.report.recall_model import (
    BETA_PRIORS,
    BROUGHT_STABILITY,
    Params,
    by_item,
    fit_learner,
    item_logs,
    struck_guess,
    trace,
    unsure_keys,
    wrong_picks,
)

START = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)


def credit(
    uid: str, item_id: str, grade: Grade, moment: datetime, session: str = "s", mode: str = "due"
) -> Review:
    correct = grade != Grade.AGAIN
    return Review(
        uid,
        item_id,
        "choice",
        "O",
        correct,
        grade == Grade.HARD,
        int(grade),
        mode,
        session,
        moment,
        None,
        None,
    )


def answer(
    number: int, key: str, distractors: list[str], picked: str | None, unsure: bool = False
) -> list[Review]:
    """One 4-choice answer's credits in the store's order (studyapp.quiz.choice.choice_credits)."""
    moment = START + timedelta(seconds=20 * number)
    if picked == key:
        if unsure:
            return [credit(f"{number}-k", key, Grade.HARD, moment)]
        return [credit(f"{number}-k", key, Grade.GOOD, moment)] + [
            credit(f"{number}-d{n}", item, Grade.HARD, moment) for n, item in enumerate(distractors)
        ]
    return [
        credit(f"{number}-k", key, Grade.AGAIN, moment),
        credit(f"{number}-p", picked or key, Grade.AGAIN, moment),
    ]


def test_the_pick_of_a_wrong_answer_is_the_second_credit_and_only_outside_an_exam() -> None:
    reviews = [
        *answer(1, "k1", ["a", "b", "c"], "b"),
        *answer(2, "k2", ["d", "e", "f"], "k2"),
        *answer(3, "k3", ["g", "h", "i"], "k3", unsure=True),
    ]
    assert wrong_picks(reviews) == {"1-p"}
    assert unsure_keys(reviews) == {"3-k"}
    exam = [r._replace(mode="exam") for r in answer(4, "k4", ["j", "k", "l"], "j")]
    assert wrong_picks(exam) == frozenset()


def test_an_item_first_met_as_a_wrong_pick_starts_unknown_and_weighs_nothing_else() -> None:
    reviews = answer(1, "k1", ["a", "b", "c"], "b")
    logs = item_logs(by_item(reviews), ["k1", "b"], picked_wrong=wrong_picks(reviews))
    assert logs["b"].prior == 0.0 and logs["k1"].prior is None
    assert logs["b"].steps[0].picked_wrong and not logs["k1"].steps[0].picked_wrong
    # over the whole grid, the pick's log-likelihood is the same at every point: it says nothing
    # of the learner's parameters (the key's credit does)
    grid = Params.grid()
    pick_only = trace([logs["b"]], grid, keep_answers=False).log_likelihood_before[-1]
    assert np.ptp(pick_only) == pytest.approx(0.0, abs=1e-12)
    key_only = trace([logs["k1"]], grid, keep_answers=False).log_likelihood_before[-1]
    assert np.ptp(key_only) > 0.01


@pytest.mark.parametrize("known", [0.0, 0.1, 0.35, 0.8])
def test_the_struck_guess_is_the_forecasts_own(known: float) -> None:
    """The tracer's closed form and the forecast's Poisson-binomial agree (three distractors)."""
    assert struck_guess(0.25, known) == pytest.approx(eliminated_guess([known] * 3))
    assert struck_guess(0.5, known) == pytest.approx(eliminated_guess([known]))


def test_a_key_picked_right_but_unsure_is_evidence_like_an_unsure_direct_answer() -> None:
    reviews = answer(1, "k1", ["a", "b", "c"], "k1", unsure=True)
    (log,) = item_logs(by_item(reviews), ["k1"], keys_unsure=unsure_keys(reviews)).values()
    assert log.steps[0].unsure_key
    likelihood = trace([log], Params.grid(), keep_answers=False).log_likelihood_before[-1]
    assert np.ptp(likelihood) > 0.01  # before, an unsure key said nothing at all


def simulated_answers(known_share: float, questions: int, seed: int) -> tuple[list[Review], dict[str, str]]:
    """A learner meeting every item once, in 4-choice questions of fresh items: each item known
    with `known_share`; a known key is picked, otherwise the known distractors are struck and the
    pick is a guess among the rest (the simulated learner's rule, tests/learner_sim.py)."""
    rng = random.Random(seed)
    reviews: list[Review] = []
    topic_of: dict[str, str] = {}
    for number in range(questions):
        items = [f"q{number}-{n}" for n in range(4)]
        topic_of.update({item: f"t{number % 5}" for item in items})
        key, distractors = items[0], items[1:]
        known = {item: rng.random() < known_share for item in items}
        picked = key if known[key] else rng.choice([key, *(d for d in distractors if not known[d])])
        reviews.extend(answer(number, key, distractors, picked))
    return reviews, topic_of


def test_picks_no_longer_pull_the_prior_down() -> None:
    """Read as answers, the picks put the prior at a third of the truth or less; read as "not
    known then", the estimate is nearer the truth on every seed, and near it on average."""
    truth = 0.3
    estimates = []
    for seed in range(4):
        reviews, topic_of = simulated_answers(truth, 150, seed)
        histories = by_item(reviews)
        read_now = fit_learner(histories, topic_of, picked_wrong=wrong_picks(reviews)).model.params.prior
        read_as_answers = fit_learner(histories, topic_of).model.params.prior
        assert abs(read_now - truth) < abs(read_as_answers - truth), (seed, read_now, read_as_answers)
        estimates.append(read_now)
    assert abs(sum(estimates) / len(estimates) - truth) < 0.1, estimates


def test_what_the_learner_brought_fades_from_their_first_answer() -> None:
    """An item never answered is known with the learner's `prior` on the day of their first
    answer, and less each day after: like a card first answered Easy then (FSRS-6's w[3]), time
    running at the learner's own pace. An item first reviewed later starts from the faded value."""
    reviews, topic_of = simulated_answers(0.3, 60, seed=5)
    topic_of["never-met"] = "t0"
    fitted = fit_learner(by_item(reviews), topic_of, picked_wrong=wrong_picks(reviews))
    params = fitted.model.params
    assert fitted.start == START
    # no options shown after the last question's moment in topic t0 teach it anything more, so
    # far ahead the forecast is the faded prior plus what showings taught, both fading
    on_the_day = fitted.knows("never-met", START)
    later = [fitted.knows("never-met", START + timedelta(days=days)) for days in (30, 90, 365)]
    assert on_the_day == pytest.approx(params.prior)
    assert on_the_day > later[0] > later[1] > later[2] > 0
    far = START + timedelta(days=365)
    taught = fitted.knows("never-met", far) - params.prior * recall_after(
        BROUGHT_STABILITY, 365 * params.pace
    )
    assert 0 <= taught < 0.05  # what options shown in passing taught, faded over a year
    # an item first reviewed 10 days after the first answer starts from the faded prior
    late = Review(
        "late",
        "late-item",
        "ox",
        "O",
        True,
        False,
        int(Grade.GOOD),
        "due",
        "s",
        START + timedelta(days=10),
        None,
        None,
    )
    logs = item_logs(by_item([late]), ["late-item"], start=START)
    assert logs["late-item"].since_start == pytest.approx(10.0)


def test_the_grid_carries_each_beta_prior_as_stated() -> None:
    """The grid is denser near 0 (PRIOR_GRID); weighed by density at its values, `prior`'s mean
    was 0.096 against the stated 0.15. Weighed by cell, each parameter's mean is its Beta's."""
    grid = Params.grid()
    log_prior = grid.log_prior()
    weights = np.exp(log_prior - log_prior.max())
    weights /= weights.sum()
    for name, (alpha, beta) in BETA_PRIORS.items():
        assert abs(float(np.dot(weights, getattr(grid, name))) - alpha / (alpha + beta)) < 0.025, name
    high = float(weights[grid.prior >= 0.3].sum())  # Beta(1.2, 6.8) puts 0.22 past the cell edge 0.225
    assert 0.2 < high < 0.26
