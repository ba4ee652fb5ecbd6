"""The exam prediction against simulated learners (tests/learner_sim.py: exponential forgetting,
not FSRS) who study with the real engine for days and then sit real mock exams.

A small version of benchmarks/exam_prediction.py (which prints the full table): three learners,
one each who can learn 30 %, 60 % and 90 % of the items, eight days of study, three exams each.
"""

from __future__ import annotations

import statistics
from datetime import timedelta
from pathlib import Path

import pytest

from benchmarks import exam_prediction as bench
from studyapp.content.loader import load_content
from studyapp.locations import content_dir
from studyapp.report import prediction
from tests.learner_sim import START, Learner, SimClock, open_store, sit_exam, study_day

pytestmark = pytest.mark.slow  # about 20-40 s: eight simulated days for three learners


def simulate(tmp_path: Path, share: float, seed: int, days: int = 8, exams: int = 3):
    content = load_content(content_dir(None))
    clock = SimClock()
    store = open_store(tmp_path / f"learner-{seed}", clock)
    store.set_exam_date((START + timedelta(days=days)).date())
    learner = Learner.create(content, share, seed)
    for day in range(days):
        clock.now = START + timedelta(days=day)
        study_day(content, store, learner, clock, 30, seed * 100 + day)
    clock.now = START + timedelta(days=days - 1, hours=10)
    forecast = prediction.predict(content, store, clock())
    sittings = [sit_exam(content, store, learner, clock, seed * 31 + n, forecast.today) for n in range(exams)]
    return forecast, sittings


def test_predicted_scores_track_what_simulated_learners_score(tmp_path: Path) -> None:
    results = {share: simulate(tmp_path, share, seed) for seed, share in enumerate((0.3, 0.6, 0.9), start=1)}
    predicted = {share: forecast.today.expected for share, (forecast, _) in results.items()}
    actual = {share: statistics.mean(s.score for s in sittings) for share, (_, sittings) in results.items()}
    # the better learner is predicted to score better, and the prediction is near the mean score
    assert predicted[0.3] < predicted[0.6] < predicted[0.9]
    for share in results:
        assert abs(predicted[share] - actual[share]) < 0.12, (share, predicted[share], actual[share])
    every = [s for _, sittings in results.values() for s in sittings]
    assert statistics.mean(abs(s.predicted_pool - s.score) for s in every) < 0.12
    # the prediction archived with each exam is for exactly its questions
    assert all(len(s.per_question) == 30 for s in every)
    pairs = [pair for s in every for pair in s.per_question]
    brier = statistics.mean((p - right) ** 2 for p, right in pairs)
    assert brier < 0.24  # a coin flip scores 0.25; knowing nothing about the learner, about that
    # the exam day is the day after the last study: the projection is there, and close to today's
    for forecast, _ in results.values():
        assert forecast.exam_day is not None
        assert abs(forecast.exam_day.expected - forecast.today.expected) < 0.1
        assert forecast.calibration.answers > 100 and forecast.model.fitted


def test_a_learner_who_studied_before_is_seen_from_the_first_answers(tmp_path: Path) -> None:
    """tui M3: 42 answers at ~88 % and a mock exam at 80 % gave "34 % · pass 0 %" (a floor that
    waited for 50 O/X answers). Now every answer and the mock exam are evidence."""
    content = load_content(content_dir(None))
    clock = SimClock()
    store = open_store(tmp_path / "early", clock)
    learner = Learner.create(content, 0.9, 1, prior_known=0.9)  # studied before the app
    for day in range(2):
        clock.now = START + timedelta(days=day)
        study_day(content, store, learner, clock, 21, 100 + day)
    before = prediction.predict(content, store, clock())
    mock = sit_exam(content, store, learner, clock, 31, before.today)
    clock.advance(minutes=30)
    after = prediction.predict(content, store, clock())
    assert after.answers > before.answers  # the mock exam's answers count
    assert after.today.expected > before.today.expected  # and it scored well
    later = [sit_exam(content, store, learner, clock, 31 + n, after.today) for n in range(1, 4)]
    actual = statistics.mean(s.score for s in [mock, *later])
    # measured 2026-12-06: 60 % predicted (P(pass) 0.56), 66 % over its four mocks (before the fix: 34 %)
    assert abs(after.today.expected - actual) < 0.15, (after.today.expected, actual)
    assert after.today.pass_probability > 0.5 and actual >= 0.6


def test_early_learners_in_their_first_hundred_answers(tmp_path: Path) -> None:
    """The benchmark's "first 90 answers" row, small: three days of 30 mixed answers."""
    errors = []
    for seed, (share, before) in enumerate(((0.3, 0.25), (0.6, 0.8), (0.9, 0.8)), start=11):
        content = load_content(content_dir(None))
        clock = SimClock()
        store = open_store(tmp_path / f"early-{seed}", clock)
        learner = Learner.create(content, share, seed, prior_known=before)
        for day in range(3):
            clock.now = START + timedelta(days=day)
            study_day(content, store, learner, clock, 30, seed * 100 + day)
        forecast = prediction.predict(content, store, clock())
        assert forecast.answers <= 100 + 30  # credits of 4-choice answers count one a credit
        sittings = [sit_exam(content, store, learner, clock, seed * 31 + n, forecast.today) for n in range(3)]
        errors.append(abs(forecast.today.expected - statistics.mean(s.score for s in sittings)))
    # measured 2026-12-06: 0.8, 0.7 and 5.4 points (3, 10 and 15 before the kind merges). The
    # worst is a learner who knew 80 % beforehand: the simulator's prior knowledge has been fading
    # for weeks before day 0, the model holds an unseen item's prior constant (docs/READINESS.md)
    assert max(errors) < 0.2 and statistics.mean(errors) < 0.1, errors


def test_a_kept_learner_replays_to_the_prediction_it_was_given(tmp_path: Path, capsys) -> None:
    """`benchmarks/exam_prediction.py --keep DIR` then `--replay DIR`: today's code, run again on
    the kept store, gives the prediction the learner was given, against the same scores."""
    content = load_content(content_dir(None))
    kept = tmp_path / "kept"
    run = bench.run_learner(content, tmp_path / "l5", 0.6, bench.EARLY_PLAN, 5, 2, 0.8, keep=kept)
    again = bench.replay_learner(content, kept / "l5")
    assert [s.score for s in again.sittings] == [s.score for s in run.sittings]
    assert again.pool_oracle == run.pool_oracle
    assert again.sittings[0].predicted_pool == pytest.approx(run.sittings[0].predicted_pool, abs=1e-9)
    assert again.sittings[0].pool_pass_probability == pytest.approx(
        run.sittings[0].pool_pass_probability, abs=1e-9
    )
    assert bench.main(["--replay", str(kept)]) == 0
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if line.startswith("| first 90 answers |"))
    assert f"| {bench.points(run.sittings[0].predicted_pool)} |" in row
    assert bench.main(["--replay", str(tmp_path / "nothing")]) == 2
