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
