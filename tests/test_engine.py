"""The quiz engine and statistics with a fixed clock: selection, grading, undo, summary, mastery."""

from __future__ import annotations

from datetime import date, timedelta, timezone
from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.errors import StudyappError
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions, interleave, new_quota, select_questions
from studyapp.quiz.questions import Question
from studyapp.report.stats import due_forecast, progress_report, reviews_per_day, streak, topic_stats
from tests.conftest import FakeClock
from tests.helpers_content import write_content

UTC = timezone.utc


@pytest.fixture
def content(tmp_path: Path):
    return load_content(write_content(tmp_path / "content"))


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> ProgressStore:
    return ProgressStore(tmp_path / "p.db", clock)


def ox(options: SessionOptions) -> SessionOptions:
    return SessionOptions(**{**options.__dict__, "include_drills": False})


def test_new_items_come_first_time_then_wait(content, store, clock) -> None:
    session = QuizSession(content, store, ox(SessionOptions(count=5, seed=1)))
    assert session.total == 5
    for _ in range(5):
        question = session.current
        assert question is not None
        feedback = session.answer(question.answer)
        assert feedback is not None and feedback.correct
    assert session.finished
    # Right after answering, nothing answered is due; the next session offers other new items.
    nxt = select_questions(content, store, ox(SessionOptions(count=20, seed=1)), clock.now, UTC)
    answered = {r.question.id for r in session.answers}
    assert not answered & {q.id for q in nxt}
    # Days later the answered items are due again and come before new ones.
    clock.advance(days=30)
    later = select_questions(content, store, ox(SessionOptions(count=20, seed=1)), clock.now, UTC)
    assert {q.id for q in later[:5]} == answered


def test_wrong_answer_is_due_again_soon_and_in_wrong_mode(content, store, clock) -> None:
    session = QuizSession(content, store, ox(SessionOptions(count=2, seed=3)))
    first = session.current
    assert first is not None
    wrong = "X" if first.answer == "O" else "O"
    feedback = session.answer(wrong)
    assert feedback is not None and not feedback.correct
    assert feedback.next_due - clock.now <= timedelta(minutes=10)
    wrong_mode = select_questions(content, store, ox(SessionOptions(mode="wrong")), clock.now, UTC)
    assert [q.id for q in wrong_mode] == [first.id]


def test_unreadable_answer_records_nothing(content, store) -> None:
    session = QuizSession(content, store, ox(SessionOptions(count=1)))
    assert session.answer("maybe") is None
    assert store.review_count() == 0 and session.position == 0


def test_undo_makes_the_question_current_again(content, store) -> None:
    session = QuizSession(content, store, ox(SessionOptions(count=3, seed=2)))
    first = session.current
    assert first is not None
    session.answer("O", unsure=True)
    assert store.review_count() == 1
    assert session.undo() == first
    assert store.review_count() == 0 and session.position == 0
    assert session.undo() is None


def test_changed_text_is_shown_again_once(content, store, clock) -> None:
    session = QuizSession(content, store, ox(SessionOptions(count=1, seed=5)))
    question = session.current
    assert question is not None
    session.answer(question.answer)
    edited = Question(**{**question.__dict__, "prompt": question.prompt + " (고침)"})
    schedules = store.schedules()
    from studyapp.quiz.engine import is_due

    assert not is_due(schedules[question.id], question, clock.now)
    assert is_due(schedules[question.id], edited, clock.now)


def test_the_mock_exam_is_not_a_quiz_session_and_cram_ignores_schedule(content, store) -> None:
    # `--mode exam` is the timed sitting of studyapp/quiz/exam.py, never a practice session.
    with pytest.raises(StudyappError, match="unknown mode 'exam'"):
        QuizSession(content, store, SessionOptions(mode="exam", count=5, seed=1))
    with pytest.raises(StudyappError, match="unknown mode 'exam'"):
        select_questions(content, store, SessionOptions(mode="exam"), store.clock(), UTC)
    cram = select_questions(content, store, ox(SessionOptions(mode="cram", topic="demo")), store.clock(), UTC)
    assert len(cram) == 20


def test_filters_and_bad_options(content, store, clock) -> None:
    by_checklist = select_questions(
        content, store, ox(SessionOptions(mode="cram", checklist="demo-check")), clock.now, UTC
    )
    assert len(by_checklist) == 20
    with pytest.raises(StudyappError, match="unknown topic"):
        select_questions(content, store, SessionOptions(topic="nope"), clock.now, UTC)
    with pytest.raises(StudyappError, match="unknown checklist"):
        select_questions(content, store, SessionOptions(checklist="nope"), clock.now, UTC)
    with pytest.raises(StudyappError, match="count"):
        select_questions(content, store, SessionOptions(count=0), clock.now, UTC)


def test_exam_date_raises_the_new_quota() -> None:
    today = date(2026, 3, 2)
    assert new_quota(100, None, today, 10) == 10
    assert new_quota(100, today + timedelta(days=4), today, 10) == 25
    assert new_quota(100, today, today, 10) == 100
    assert new_quota(5, today + timedelta(days=30), today, 10) == 10


def test_interleave_round_robins_topics() -> None:
    def q(qid: str, topic: str) -> Question:
        return Question(qid, "ox", topic, "p", "O", "e")

    order = interleave([q("a1", "a"), q("a2", "a"), q("b1", "b"), q("a3", "a"), q("c1", "c")])
    assert [x.id for x in order] == ["a1", "b1", "c1", "a2", "a3"]


def test_summary_counts_per_topic(content, store) -> None:
    session = QuizSession(content, store, ox(SessionOptions(count=4, seed=9)))
    outcomes = []
    while not session.finished:
        question = session.current
        assert question is not None
        right = len(outcomes) % 2 == 0
        session.answer(question.answer if right else ("X" if question.answer == "O" else "O"))
        outcomes.append(right)
    summary = session.summary()
    assert summary.answered == 4 and summary.correct == 2
    assert summary.per_topic == {"demo": (2, 2)}
    assert len(summary.misses) == 2


def test_statistics_from_the_log(content, store, clock) -> None:
    for _day in range(3):
        for item in ("demo-001", "demo-002"):
            store.record_answer(item, answer="O", correct=True)
        clock.advance(days=1)
    clock.advance(hours=-10)  # back to the third day, late evening
    assert streak(store, clock.now, UTC) == 3
    per_day = reviews_per_day(store, clock.now, UTC, days=5)
    assert [n for _, n in per_day] == [0, 0, 2, 2, 2]
    forecast = due_forecast(store, clock.now, UTC)
    assert sum(n for _, n in forecast) <= 2 and len(forecast) == 7
    stats = topic_stats(content, store, clock.now, UTC)[0]
    assert stats.items == 20 and stats.seen == 2 and stats.accuracy == 1.0
    report = progress_report(content, store, clock.now, UTC)
    assert report["reviews_total"] == 6
    assert set(report["topics"]["demo"]) >= {"items", "seen", "mastered", "accuracy", "due"}
