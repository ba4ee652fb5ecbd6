"""The exam prediction (studyapp/report/prediction.py, recall_model.py), its settings and archive,
reviews aimed at the exam day, today's plan, and `STUDYAPP_NOW`."""

from __future__ import annotations

import itertools
import json
import math
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from studyapp import clock
from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.locations import content_dir
from studyapp.progress import exams, goals
from studyapp.progress.db import StoreError
from studyapp.progress.exam_aim import EXAM_DAY_RECALL, exam_due
from studyapp.progress.scheduler import Grade, replay
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.report import prediction
from studyapp.report.prediction import (
    Knowledge,
    choice_probability,
    drawn_sum,
    eliminated_guess,
    outlook,
    poisson_binomial,
)
from studyapp.report.recall_model import fit_learner, score_predictions
from tests.conftest import FakeClock, InProcessCli

START = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def bank():
    return load_content(content_dir(None))


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def store(tmp_path: Path, fake_clock: FakeClock) -> ProgressStore:
    return ProgressStore.in_dir(tmp_path / "data", clock=fake_clock)


# ---------------------------------------------------------------------------------------------
# STUDYAPP_NOW
# ---------------------------------------------------------------------------------------------


def test_studyapp_now_starts_the_clock_there_and_lets_it_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDYAPP_NOW", "2030-01-05T09:00:00+00:00")
    first = clock.now_utc()
    second = clock.now_utc()
    assert first >= datetime(2030, 1, 5, 9, 0, tzinfo=timezone.utc)
    assert timedelta(0) <= second - first < timedelta(seconds=5)
    monkeypatch.setenv("STUDYAPP_NOW", "2030-02-01T09:00Z")  # a new value starts over
    assert clock.now_utc() - datetime(2030, 2, 1, 9, 0, tzinfo=timezone.utc) < timedelta(seconds=5)
    assert clock.local_today() == date(2030, 2, 1) or clock.local_today() == date(2030, 2, 2)
    monkeypatch.delenv("STUDYAPP_NOW")
    assert abs(clock.now_utc() - datetime.now(timezone.utc)) < timedelta(seconds=5)


def test_studyapp_now_reads_dates_offsets_and_local_times() -> None:
    assert clock.parse_now("2026-11-02T09:00+09:00") == datetime(2026, 11, 2, 0, 0, tzinfo=timezone.utc)
    assert clock.parse_now("2026-11-02").tzinfo is timezone.utc  # local midnight, in UTC
    with pytest.raises(clock.ClockSettingError, match="ISO date-time"):
        clock.parse_now("next tuesday")


def test_the_store_and_every_command_read_studyapp_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, studyapp_cli: InProcessCli
) -> None:
    monkeypatch.setenv("STUDYAPP_NOW", "2031-03-04T10:00:00+00:00")
    store = ProgressStore.in_dir(tmp_path)  # the default clock
    review, _ = store.record_answer("x-1", answer="O", correct=True)
    assert review.reviewed_at.date() == date(2031, 3, 4)
    env = {"STUDYAPP_HOME": str(tmp_path / "cli"), "STUDYAPP_NOW": "2031-03-04T10:00"}
    data = json.loads(studyapp_cli("progress", "--json", env=env).stdout)
    assert data["generated_at"].startswith("2031-03-04")
    bad = studyapp_cli("progress", "--json", env={**env, "STUDYAPP_NOW": "soon"})
    assert bad.returncode == 2 and "STUDYAPP_NOW='soon' is not an ISO date-time" in bad.stderr
    # the exam date is checked against the clock's today, not the machine's
    past = studyapp_cli("quiz", "--exam-date", "2031-03-01", "--mode", "exam", "--plain", env=env)
    assert past.returncode == 2 and "in the past (today is 2031-03-04)" in past.stderr


# ---------------------------------------------------------------------------------------------
# distributions
# ---------------------------------------------------------------------------------------------


def brute_force(probabilities: list[float]) -> np.ndarray:
    result = np.zeros(len(probabilities) + 1)
    for outcome in itertools.product((0, 1), repeat=len(probabilities)):
        weight = math.prod(p if hit else 1 - p for p, hit in zip(probabilities, outcome, strict=True))
        result[sum(outcome)] += weight
    return result


def test_poisson_binomial_is_exact() -> None:
    probabilities = [0.1, 0.5, 0.9, 0.3, 0.77]
    assert np.allclose(poisson_binomial(probabilities), brute_force(probabilities))


def test_drawn_sum_averages_every_subset_equally() -> None:
    probabilities = [0.1, 0.5, 0.9, 0.3, 0.8, 0.6]
    expected = np.zeros(4)
    subsets = list(itertools.combinations(probabilities, 3))
    for subset in subsets:
        expected += brute_force(list(subset)) / len(subsets)
    assert np.allclose(drawn_sum(probabilities, 3), expected)
    assert np.isclose(drawn_sum(probabilities, 3).sum(), 1.0)


def test_the_cutoff_needs_every_topic_and_the_total() -> None:
    topics = {"a": poisson_binomial([0.9, 0.9]), "b": poisson_binomial([0.2, 0.3])}
    plain = outlook(topics, pass_mark=0.5)
    with_cutoff = outlook(topics, pass_mark=0.5, cutoff=0.5)
    # brute force: pass = total ≥ 2 and each topic ≥ 1
    passed = 0.0
    for outcome in itertools.product((0, 1), repeat=4):
        weight = math.prod(p if hit else 1 - p for p, hit in zip([0.9, 0.9, 0.2, 0.3], outcome, strict=True))
        if sum(outcome) >= 2 and sum(outcome[:2]) >= 1 and sum(outcome[2:]) >= 1:
            passed += weight
    assert with_cutoff.pass_probability == pytest.approx(passed)
    assert plain.pass_probability > with_cutoff.pass_probability
    assert plain.expected == pytest.approx((0.9 + 0.9 + 0.2 + 0.3) / 4)
    assert 0 <= plain.low <= plain.expected <= plain.high <= 1
    assert set(with_cutoff.topic_pass) == {"a", "b"}


def test_a_choice_question_counts_known_distractors() -> None:
    assert eliminated_guess([0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert eliminated_guess([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert eliminated_guess([1.0, 0.0, 0.0]) == pytest.approx(1 / 3)
    assert choice_probability(1.0, [0.0] * 3) == pytest.approx(1.0)
    assert choice_probability(0.5, [0.0] * 3) == pytest.approx(0.5 + 0.5 * 0.25)


# ---------------------------------------------------------------------------------------------
# the recall model
# ---------------------------------------------------------------------------------------------


def answer_many(store: ProgressStore, fake_clock: FakeClock, items: list[str], rule, days: int = 6) -> None:
    for day in range(days):
        fake_clock.now = START + timedelta(days=day)
        for item_id in items:
            correct, unsure = rule(item_id, day)
            fake_clock.advance(seconds=20)
            store.record_answer(item_id, answer="O" if correct else "X", correct=correct, unsure=unsure)


def test_sure_right_answers_are_knowledge_and_unsure_lucky_guesses_are_not(store, fake_clock) -> None:
    known = [f"known-{n}" for n in range(12)]
    guessed = [f"guess-{n}" for n in range(12)]
    flip = itertools.cycle([True, False])

    def rule(item_id: str, day: int) -> tuple[bool, bool]:
        if item_id.startswith("known"):
            return True, False
        return next(flip), True  # a coin, marked unsure

    answer_many(store, fake_clock, known + guessed, rule)
    topics = {i: "t" for i in known + guessed + ["never-seen"]}
    fitted = fit_learner(prediction.by_item(store.reviews()), topics)
    assert fitted.model.fitted
    now = fake_clock() + timedelta(hours=1)
    knows_known = np.mean([fitted.knows(i, now) for i in known])
    knows_guessed = np.mean([fitted.knows(i, now) for i in guessed])
    # a guessed item that happened to be right last time is still not known
    lucky = [i for i in guessed if store.reviews(i)[-1].correct]
    assert lucky and max(fitted.knows(i, now) for i in lucky) < 0.5
    assert knows_known > 0.8 and knows_guessed < 0.3
    assert fitted.knows("never-seen", now) < 0.5
    # projected a long way ahead, recall decays
    assert np.mean([fitted.knows(i, now + timedelta(days=200)) for i in known]) < knows_known
    assert fitted.calibration.answers == len(store.reviews())
    assert 0 <= fitted.calibration.brier < 0.25


def test_a_few_answers_move_an_honest_prior(store, fake_clock) -> None:
    """No floor of 50 O/X answers: with none the priors speak, and each answer moves them."""
    topics = {f"i{n}": "t" for n in range(40)}
    nothing = fit_learner({}, topics)
    assert nothing.model.answers == 0 and nothing.model.thin
    unseen_before = nothing.knows("i39", fake_clock())
    assert 0 < unseen_before < 0.3  # never seen, nothing answered: the prior
    store.record_answer("i0", answer="O", correct=True)
    one = fit_learner(prediction.by_item(store.reviews()), topics)
    assert one.model.fitted and one.model.answers == 1 and one.model.thin
    assert 0 < one.knows("i39", fake_clock()) < 0.3  # one answer is not a verdict
    for n in range(1, 30):  # sure and right on first sight, 29 more items
        fake_clock.advance(seconds=20)
        store.record_answer(f"i{n}", answer="O", correct=True)
    many = fit_learner(prediction.by_item(store.reviews()), topics)
    assert many.model.answers == 30
    # a learner right on first sight 30 times knows the items not asked yet, too
    assert many.knows("i39", fake_clock()) > unseen_before + 0.3


def test_brier_and_log_loss() -> None:
    result = score_predictions([0.5, 0.5, 1.0, 0.0], [True, False, True, False])
    assert result.brier == pytest.approx(0.125)
    assert result.log_loss == pytest.approx(-(2 * math.log(0.5) + 2 * math.log(1 - 1e-6)) / 4, rel=1e-3)
    assert sum(b.count for b in result.bins) == 4
    assert score_predictions([], []).brier is None


# ---------------------------------------------------------------------------------------------
# settings and the exam archive
# ---------------------------------------------------------------------------------------------


def test_pass_mark_and_cutoff_settings(store) -> None:
    assert goals.pass_mark(store) is None and goals.topic_cutoff(store) is None
    goals.set_pass_mark(store, 0.7)
    goals.set_topic_cutoff(store, 0.4)
    assert goals.pass_mark(store) == 0.7 and goals.topic_cutoff(store) == 0.4
    goals.set_topic_cutoff(store, None)
    assert goals.topic_cutoff(store) is None
    with pytest.raises(ValueError):
        goals.set_pass_mark(store, 1.5)
    store.set_meta(goals.PASS_MARK_KEY, "lots")
    with pytest.raises(StoreError, match="pass mark is damaged"):
        goals.pass_mark(store)


def test_each_mock_exam_is_archived_with_the_prediction_made_before_it(bank, store) -> None:
    session = ExamSession(bank, store, ExamSettings(count=6, seed=3))
    prediction.attach_prediction(session)
    assert session.prediction is not None
    per_question = session.prediction["per_question"]
    assert len(per_question) == 6 and all(0 < p < 1 for p in per_question)
    session.start()
    for number in range(1, 7):
        session.go(number)
        session.answer(session.current.answer)
    session.submit()
    row = exams.attempts(store)[-1].to_dict()
    assert row["predicted"] == session.prediction["expected_score"]
    assert 0 <= row["predicted_pass"] <= 1 and row["percent"] == 1.0
    lines = exams.attempt_lines([row], lambda key, **v: key + str(v))
    assert any("exams.predicted" in line for line in lines)
    pairs = prediction.attempt_outcomes(exams.attempts(store))
    assert [p for p, _ in pairs] == per_question and all(right for _, right in pairs)


def test_old_archives_without_a_prediction_still_load(bank, store) -> None:
    session = ExamSession(bank, store, ExamSettings(count=3, seed=1))
    session.start()
    session.submit()
    row = exams.attempts(store)[0].to_dict()
    assert row["predicted"] is None and row["predicted_pass"] is None
    assert prediction.attempt_outcomes(exams.attempts(store)) == []


def test_the_stored_pass_mark_is_the_exams_default(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    env = {"STUDYAPP_HOME": str(tmp_path / "h")}
    saved = studyapp_cli("progress", "--pass-mark", "70", "--cutoff", "40%", env=env)
    assert saved.returncode == 0, saved.stderr
    assert "pass mark 70%" in saved.stdout and "topic cutoff 40%" in saved.stdout
    exam = studyapp_cli("quiz", "--mode", "exam", "--plain", "--count", "2", input_text="s\n", env=env)
    assert exam.returncode == 0, exam.stderr
    data = json.loads(studyapp_cli("progress", "--json", env=env).stdout)
    assert data["exams"][0]["pass_mark"] == 0.7 and data["exams"][0]["predicted"] is not None
    assert data["exam_prediction"]["today"]["pass_mark"] == 0.7
    cleared = studyapp_cli("progress", "--pass-mark", "none", env=env)
    assert "pass mark none" in cleared.stdout
    bad = studyapp_cli("progress", "--cutoff", "150", env=env)
    assert bad.returncode == 2


# ---------------------------------------------------------------------------------------------
# `studyapp progress --json`
# ---------------------------------------------------------------------------------------------


def check_outlook(value: dict) -> None:
    assert set(value) == {"expected_score", "low", "high", "pass_probability", "pass_mark", "questions"}
    for key in ("expected_score", "low", "high", "pass_probability", "pass_mark"):
        assert 0 <= value[key] <= 1
    assert value["low"] <= value["expected_score"] <= value["high"]
    assert value["questions"] == 30


def test_progress_json_has_the_prediction_the_calibration_and_the_plan(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    env = {"STUDYAPP_HOME": str(tmp_path / "h"), "STUDYAPP_NOW": "2026-11-02T09:00"}
    data = json.loads(studyapp_cli("progress", "--json", env=env).stdout)
    assert data["exam_prediction"]["exam_day"] is None and data["exam_prediction"]["exam_date"] is None
    check_outlook(data["exam_prediction"]["today"])
    assert data["calibration"] == {"answers": 0, "brier": None, "log_loss": None}
    assert studyapp_cli("progress", "--exam-date", "2026-11-20", env=env).returncode == 0
    answers = "o\nx\no?\nx\no\nq\n"
    quiz = studyapp_cli("quiz", "--plain", "--kind", "ox", "--count", "5", input_text=answers, env=env)
    assert quiz.returncode == 0, quiz.stderr
    data = json.loads(studyapp_cli("progress", "--json", env=env).stdout)
    forecast = data["exam_prediction"]
    assert forecast["exam_date"] == "2026-11-20"
    check_outlook(forecast["today"])
    check_outlook(forecast["exam_day"])
    assert set(data["calibration"]) == {"answers", "brier", "log_loss"}
    assert data["calibration"]["answers"] == 5
    kinds = [entry["kind"] for entry in data["today_plan"]]
    assert kinds[:2] == ["reviews", "new"] and "mock_exam" in kinds
    new = data["today_plan"][1]
    assert new["days_left"] == 18 and new["per_day"] * 18 >= new["unseen"]
    text = studyapp_cli("progress", env=env).stdout
    assert "D-18" in text and "Today's plan" in text


# ---------------------------------------------------------------------------------------------
# reviews aimed at the exam day
# ---------------------------------------------------------------------------------------------


def test_an_item_fsrs_would_show_after_the_exam_comes_due_before_it() -> None:
    reviews = [(START + timedelta(days=d), Grade.GOOD) for d in (0, 1, 4, 12)]
    schedule = replay("x", reviews)
    assert schedule.stability is not None and schedule.last_review is not None
    assert exam_due(schedule, None) == schedule.due
    far_exam = schedule.due + timedelta(days=30)
    assert exam_due(schedule, far_exam) == schedule.due  # FSRS shows it before the exam anyway
    exam = schedule.due - timedelta(days=1)
    assert schedule.retrievability(exam) < EXAM_DAY_RECALL
    aimed = exam_due(schedule, exam)
    assert schedule.last_review <= aimed < exam
    # one review at that moment is enough: recall there is still high
    assert schedule.retrievability(aimed) > 0.9
    soon = schedule.last_review + timedelta(days=1)
    assert schedule.retrievability(soon) >= EXAM_DAY_RECALL
    assert exam_due(schedule, soon) == schedule.due  # still above the target on the exam day


def test_pool_forecast_for_a_learner_who_knows_everything_or_nothing(bank) -> None:
    now = START
    everything = Knowledge(now, {i: 1.0 for i in bank.items}, 1.0)
    nothing = Knowledge(now, {i: 0.0 for i in bank.items}, 0.0)
    top = prediction.pool_forecast(bank, everything, 0.6)
    bottom = prediction.pool_forecast(bank, nothing, 0.6)
    assert top.expected == pytest.approx(1.0) and top.pass_probability == pytest.approx(1.0)
    assert bottom.expected == pytest.approx(0.25, abs=1e-6)  # blind 4-choice guesses
    assert bottom.pass_probability < 0.001 and top.questions == bottom.questions == 30


def test_pool_forecast_prices_the_glossary_and_trace_shares_as_their_own_kinds(bank) -> None:
    """A mock exam not yet built holds the glossary's and trace reading's shares (6 and 3 of 30):
    a learner who knows every bank item but no term and no trace guesses those questions."""
    from studyapp.quiz.exam import ExamSettings, share_pools

    shares = {
        kind.name: min(int(30 * kind.exam_share), len(pool))
        for kind, pool in share_pools(bank, ExamSettings(count=30))
    }
    assert shares.get("glossary", 0) > 0 and shares.get("trace", 0) > 0
    shared = sum(shares.values())
    items_only = Knowledge(START, {i: 1.0 for i in bank.items}, 0.0)
    forecast = prediction.pool_forecast(bank, items_only, 0.6)
    assert forecast.expected == pytest.approx((30 - shared + 0.25 * shared) / 30, abs=1e-6)


def test_the_forecast_weighs_every_prior_the_answers_leave_open(bank, store, fake_clock) -> None:
    """With few answers the model is unsure what an unseen item is known with: the forecast is
    the mixture over the posterior of the learner's `prior`, which narrows as answers come."""
    state = prediction.learner_state(bank, store)
    points = state.fitted.prior_points()
    assert len(points) >= 3 and sum(w for _, w in points) == pytest.approx(1.0)
    now = fake_clock()
    forecast = prediction.uncertain_forecast(state, now, 0.6, None)
    each = [prediction.pool_forecast(bank, state.knowledge(now, value), 0.6) for value, _ in points]
    assert forecast.expected == pytest.approx(
        sum(w * o.expected for (_, w), o in zip(points, each, strict=True))
    )
    assert forecast.pass_probability == pytest.approx(
        sum(w * o.pass_probability for (_, w), o in zip(points, each, strict=True))
    )
    assert min(o.expected for o in each) < forecast.expected < max(o.expected for o in each)
    for item_id in sorted(bank.items)[:120]:  # right and sure on first sight, 120 times
        fake_clock.advance(seconds=20)
        store.record_answer(item_id, answer=bank.items[item_id].answer, correct=True, kind="ox")
    sure = prediction.learner_state(bank, store).fitted.prior_points()
    assert max(w for _, w in sure) > max(w for _, w in points)
    assert sum(v * w for v, w in sure) > sum(v * w for v, w in points) + 0.2


def test_a_glossary_question_strikes_the_terms_known_to_be_wrong() -> None:
    from studyapp.quiz.kinds import kind_of
    from studyapp.quiz.question import Option, Question

    terms = ("term:a", "term:b", "term:c", "term:d")
    question = Question(
        id="term:a",
        kind="glossary",
        topic="t",
        prompt="?",
        answer="1",
        explanation="",
        options=tuple(Option(t, t, "", n == 0) for n, t in enumerate(terms)),
    )
    glossary = kind_of("glossary")
    assert glossary.knows_probability(question, lambda i: 0.0) == pytest.approx(0.25)
    assert glossary.knows_probability(question, lambda i: 0.0 if i == "term:a" else 1.0) == pytest.approx(1.0)
    one_struck = {"term:b": 1.0}
    assert glossary.knows_probability(question, lambda i: one_struck.get(i, 0.0)) == pytest.approx(1 / 3)
    # before its options are drawn (the pool forecast): distractors at the terms' average
    unknown_key = [question]
    assert glossary.forecast_probabilities(unknown_key, lambda i: 0.0) == [pytest.approx(0.25)]


def test_reading_a_trace_is_a_skill_of_its_own(bank, store, fake_clock) -> None:
    """A learner right on first sight about the bank's facts brought facts, not trace reading:
    unseen trace questions start at OWN_SKILL_PRIOR, and right answers to trace questions move them."""
    items = sorted(bank.items)[:40]
    for item_id in items:
        fake_clock.advance(seconds=20)
        answer = bank.items[item_id].answer
        store.record_answer(item_id, answer=answer, correct=True, kind="ox")
    state = prediction.learner_state(bank, store)
    knowledge = state.knowledge(fake_clock())
    unseen_item = next(i for i in sorted(bank.items) if i not in items)
    traces = prediction.own_skill_ids(bank)["trace"]
    assert knowledge.of(unseen_item) > 0.4
    assert knowledge.of(traces[0]) == pytest.approx(prediction.OWN_SKILL_PRIOR)
    assert len(traces) >= 4
    for trace_id in traces[: len(traces) // 2]:
        for _ in range(2):
            fake_clock.advance(minutes=5)
            store.record_answer(trace_id, answer="1", correct=True, kind="trace")
    later = prediction.learner_state(bank, store).knowledge(fake_clock())
    assert later.of(traces[-1]) > prediction.OWN_SKILL_PRIOR + 0.2  # unseen, but the skill was shown
    assert later.of(traces[0]) > later.of(traces[-1])  # answered twice, right


# ---------------------------------------------------------------------------------------------
# resuming an exam that ended without a submit
# ---------------------------------------------------------------------------------------------


def test_an_unfinished_exam_resumes_with_its_answers_and_the_time_it_had_left(
    bank, store, fake_clock
) -> None:
    from studyapp.quiz.exam_resume import resumable, resume_session, time_left

    session = ExamSession(bank, store, ExamSettings(count=4, seed=2, time_limit_s=600))
    prediction.attach_prediction(session)
    session.start()
    fake_clock.advance(seconds=100)
    session.answer("1")
    session.toggle_flag(2)
    session.go(3)
    fake_clock.advance(seconds=50)
    session.answer("2")  # the process dies here: no submit
    session.release()  # …and the OS drops its hold on the attempt
    fake_clock.advance(hours=3)
    attempt = resumable(store, fake_clock())
    assert attempt is not None and attempt.uid == session.attempt_id
    assert time_left(attempt) == pytest.approx(450, abs=1)
    resumed = resume_session(bank, store, attempt)
    assert resumed.answers == {0: "1", 2: "2"}
    assert resumed.flags == {2}  # saved with the answer after it
    assert resumed.position == 1 and resumed.prediction == session.prediction
    assert resumed.remaining_s() == pytest.approx(450, abs=1)
    resumed.answer("3")
    result = resumed.submit()
    assert result.time_used_s == pytest.approx(150, abs=1)
    every = exams.attempts(store)
    assert len(every) == 1 and every[0].finished and every[0].answered == 3
    assert resumable(store, fake_clock()) is None
    # a day later an unfinished attempt is no longer offered
    stale = ExamSession(bank, store, ExamSettings(count=2, seed=3))
    stale.start()
    stale.answer("1")
    fake_clock.advance(days=2)
    assert resumable(store, fake_clock()) is None


def test_quiz_resume_goes_on_with_the_newest_unfinished_exam(
    tmp_path: Path, bank: Content, studyapp_cli: InProcessCli
) -> None:
    home = tmp_path / "h"
    store = ProgressStore.in_dir(home)
    session = ExamSession(bank, store, ExamSettings(count=3, seed=5))
    session.start()
    session.answer("1")
    session.release()  # the terminal closed: its hold on the attempt is gone
    store.close()
    env = {"STUDYAPP_HOME": str(home)}
    done = studyapp_cli("quiz", "--mode", "exam", "--plain", "--resume", input_text="2\ns\n", env=env)
    assert done.returncode == 0, done.stderr
    assert "2/3" in done.stdout  # it opens on the first unanswered question
    data = json.loads(studyapp_cli("progress", "--json", env=env).stdout)["exams"]
    assert len(data) == 1 and data[0]["finished_at"] and data[0]["answered"] == 2
    nothing = studyapp_cli("quiz", "--mode", "exam", "--plain", "--resume", env=env)
    assert nothing.returncode == 2 and "no unfinished mock exam" in nothing.stderr
