"""Statistics computed from the review log and schedules: mastery, accuracy, streak, forecast.

Times are stored in UTC; days are cut at the learner's local midnight (`tz`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any

from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import due_window_end, exam_at_of, is_due, local_tz
from studyapp.quiz.questions import Question, all_questions

RECENT_ANSWERS = 20  # recent accuracy looks at a topic's last N answers


@dataclass(frozen=True)
class TopicStats:
    id: str
    title: str
    items: int
    seen: int
    mastered: int
    accuracy: float | None  # share right among the topic's last RECENT_ANSWERS answers
    due: int  # due by the end of today

    @property
    def mastery(self) -> float:
        return self.mastered / self.items if self.items else 0.0


def topic_stats(
    content: Content, store: ProgressStore, now: datetime, tz: tzinfo | None = None
) -> list[TopicStats]:
    questions = all_questions(content)
    schedules = store.schedules()
    end_of_day = due_window_end(now, tz)
    result = []
    for topic in content.ordered_topics():
        topic_questions = [q for q in questions.values() if q.topic == topic.id]
        seen = [schedules[q.id] for q in topic_questions if q.id in schedules]
        recent = store.newest_answers((q.id for q in topic_questions if q.id in schedules), RECENT_ANSWERS)
        result.append(
            TopicStats(
                id=topic.id,
                title=topic.title,
                items=len(topic_questions),
                seen=len(seen),
                mastered=sum(s.is_mastered(now) for s in seen),
                accuracy=(sum(recent) / len(recent)) if recent else None,
                due=sum(
                    1 for q in topic_questions if q.id in schedules and is_due(schedules[q.id], q, end_of_day)
                ),
            )
        )
    return result


def due_today(
    questions: dict[str, Question], store: ProgressStore, now: datetime, tz: tzinfo | None = None
) -> int:
    schedules = store.schedules()
    end = due_window_end(now, tz)
    return sum(1 for qid, s in schedules.items() if qid in questions and is_due(s, questions[qid], end))


def due_now_and_later(
    questions: dict[str, Question], store: ProgressStore, now: datetime, tz: tzinfo | None = None
) -> tuple[int, int]:
    """Today's reviews split in two: due now, and due later today. An answer puts a new item (and
    the 4-choice options it was judged against) into FSRS learning steps, due again within the
    hour: counted with the rest, "오늘 복습 48" became 47 after a 20-question session (m5). As in
    Anki, those coming back later are counted apart, so the number to do now shrinks."""
    schedules = store.schedules()
    end = due_window_end(now, tz)
    exam_at = exam_at_of(store, tz)  # as the `s` session picks its questions
    now_due = later = 0
    for qid, schedule in schedules.items():
        question = questions.get(qid)
        if question is None:
            continue
        if is_due(schedule, question, now, exam_at):
            now_due += 1
        elif is_due(schedule, question, end, exam_at):
            later += 1
    return now_due, later


def reviews_per_day(
    store: ProgressStore, now: datetime, tz: tzinfo | None = None, days: int = 30
) -> list[tuple[date, int]]:
    zone = tz or local_tz()
    today = now.astimezone(zone).date()
    counts = Counter(
        moment.astimezone(zone).date() for moment, _ in store.answer_marks(now - timedelta(days=days + 1))
    )
    return [
        (today - timedelta(days=offset), counts.get(today - timedelta(days=offset), 0))
        for offset in range(days - 1, -1, -1)
    ]


def streak(store: ProgressStore, now: datetime, tz: tzinfo | None = None) -> int:
    """Consecutive local days with at least one review, ending today (or yesterday, if none yet today).
    Asked a day at a time (one index seek each), so a long history is never read whole."""
    zone = tz or local_tz()

    def answered_on(day: date) -> bool:
        start = datetime.combine(day, time(0), tzinfo=zone)
        return store.answered_between(start, datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone))

    day = now.astimezone(zone).date()
    if not answered_on(day):
        day -= timedelta(days=1)
    count = 0
    while day > date.min and answered_on(day):
        count += 1
        day -= timedelta(days=1)
    return count


def due_forecast(
    store: ProgressStore, now: datetime, tz: tzinfo | None = None, days: int = 7
) -> list[tuple[date, int]]:
    """Items falling due on each of the next `days` local days (today includes anything overdue)."""
    zone = tz or local_tz()
    today = now.astimezone(zone).date()
    counts: Counter[date] = Counter()
    for schedule in store.schedules().values():
        counts[max(today, schedule.due.astimezone(zone).date())] += 1
    return [
        (today + timedelta(days=offset), counts.get(today + timedelta(days=offset), 0))
        for offset in range(days)
    ]


def progress_report(
    content: Content, store: ProgressStore, now: datetime, tz: tzinfo | None = None
) -> dict[str, Any]:
    """The object behind `studyapp progress --json`."""
    questions = all_questions(content)
    topics = topic_stats(content, store, now, tz)
    totals = store.review_totals()
    exam = store.exam_date()
    return {
        "generated_at": now.isoformat(),
        "reviews_total": totals.reviews,
        "accuracy": (totals.right / totals.reviews) if totals.reviews else None,
        "due_today": due_today(questions, store, now, tz),
        "streak_days": streak(store, now, tz),
        "exam_date": exam.isoformat() if exam else None,
        "topics": {
            t.id: {**{k: v for k, v in asdict(t).items() if k != "id"}, "mastery": t.mastery} for t in topics
        },
        "reviews_per_day": [
            {"date": d.isoformat(), "reviews": n} for d, n in reviews_per_day(store, now, tz, 14)
        ],
        "due_forecast": [{"date": d.isoformat(), "due": n} for d, n in due_forecast(store, now, tz)],
    }


def retention_curve(store: ProgressStore, now: datetime, days: int = 30) -> list[tuple[int, float]]:
    """The forgetting curve of what has been learnt: the mean probability (FSRS) of recalling the
    items answered so far, today and on each of the next `days` days if none is reviewed again.
    Empty before the first answer."""
    schedules = [s for s in store.schedules().values() if s.last_review is not None]
    if not schedules:
        return []
    return [
        (offset, sum(s.retrievability(now + timedelta(days=offset)) for s in schedules) / len(schedules))
        for offset in range(days + 1)
    ]


def accuracy_per_day(
    store: ProgressStore, now: datetime, tz: tzinfo | None = None, days: int = 30
) -> list[tuple[date, float | None]]:
    """Retention as measured: the share of right answers on each of the last `days` local days
    (None on a day without answers)."""
    zone = tz or local_tz()
    today = now.astimezone(zone).date()
    right: Counter[date] = Counter()
    answered: Counter[date] = Counter()
    for moment, correct in store.answer_marks(now - timedelta(days=days + 1)):
        day = moment.astimezone(zone).date()
        answered[day] += 1
        right[day] += correct
    result: list[tuple[date, float | None]] = []
    for offset in range(days - 1, -1, -1):
        day = today - timedelta(days=offset)
        result.append((day, right[day] / answered[day] if answered[day] else None))
    return result
