"""Today's plan to the exam date: what `studyapp progress` and Home show under the prediction.

In this order, each entry only when it applies:
- `reviews`: the items due by the end of today, with reviews aimed at the exam day
  (studyapp/progress/exam_aim.py);
- `new`: new items a day so that every item is seen before the exam date (the quiz's own quota,
  `studyapp.quiz.engine.new_quota`), with how many are still unseen. When that is more than a
  learner can take in (`MAX_NEW_PER_DAY`, or the exam is today) the entry says so and triages:
  `triage` names the topics with the most expected exam misses among the unseen, weakest first,
  and the command starts on the first of them. After the exam date it plans as if there were none
  and names the passed date (`exam_passed`);
- `exercise`: the exercise not yet passed whose checklist items hold the most expected misses in
  a mock exam — the exam questions on those items you would get wrong on the exam day, scaled by
  how much exercise evidence is missing (an exercise does not enter the score model itself: it
  is where the predicted misses are thickest);
- `explain`: the same for the explain-it prompt not yet fully covered;
- `mock_exam`: a mock exam when none was taken in the last week (it checks the prediction).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from studyapp.content.model import Content
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import (
    DEFAULT_NEW_PER_SESSION,
    due_window_end,
    exam_at_of,
    is_due,
    local_tz,
    new_quota,
)
from studyapp.quiz.exam import DEFAULT_COUNT, ExamSettings, exam_pool
from studyapp.quiz.questions import all_questions
from studyapp.report.prediction import Knowledge, Prediction, pool_question_probabilities
from studyapp.report.readiness import explain_answers, explain_prompts_by_checklist

MOCK_EXAM_EVERY = timedelta(days=7)
# More new items a day than this is not a plan anyone keeps (five sessions of ten, each bringing
# its own reviews the next days): past it the plan triages instead of asking for 327 a day (m6).
MAX_NEW_PER_DAY = 50
TRIAGE_TOPICS = 3


def weakest_unseen_topics(
    content: Content, knowledge: Knowledge, seen: set[str], limit: int = TRIAGE_TOPICS
) -> list[str]:
    """Topic ids with unseen items, the most expected mock-exam misses on those items first."""
    pool = exam_pool(content, ExamSettings())
    misses: dict[str, float] = defaultdict(float)
    for topic, per_item in pool_question_probabilities(pool, knowledge).items():
        for item_id, p in per_item.items():
            if item_id not in seen:
                misses[topic] += 1 - p
    ranked = sorted((topic for topic, miss in misses.items() if miss > 0), key=lambda t: (-misses[t], t))
    return ranked[:limit]


def expected_misses(
    content: Content, knowledge: Knowledge, questions: int = DEFAULT_COUNT
) -> dict[str, float]:
    """Checklist id → expected mock-exam questions missed on its items (a default exam)."""
    pool = exam_pool(content, ExamSettings())
    probabilities = {
        item_id: p
        for per_topic in pool_question_probabilities(pool, knowledge).values()
        for item_id, p in per_topic.items()
    }
    if not probabilities:
        return {}
    scale = questions / len(probabilities)  # each keyable item is asked with this probability
    misses: dict[str, float] = defaultdict(float)
    for entry in content.checklist:
        linked = set(entry.items) | {i.id for i in content.items.values() if entry.id in i.checklist}
        misses[entry.id] = sum((1 - probabilities[i]) * scale for i in linked if i in probabilities)
    return dict(misses)


def _best_exercise(
    misses: Mapping[str, float], exercises: Mapping[str, Any], statuses: Mapping[str, Any]
) -> dict[str, Any] | None:
    best: tuple[float, str] | None = None
    for exercise_id, info in exercises.items():
        status = statuses.get(exercise_id)
        score = status.score if status is not None else 0.0
        if score >= 1.0:
            continue
        stake = sum(misses.get(c, 0.0) for c in info.checklist) * (1 - score)
        if stake > 0 and (best is None or stake > best[0]):
            best = (stake, exercise_id)
    if best is None:
        return None
    stake, exercise_id = best
    status = statuses.get(exercise_id)
    verb = "start" if status is None or status.status == "not started" else "check"
    return {
        "kind": "exercise",
        "id": exercise_id,
        "checklist": list(exercises[exercise_id].checklist),
        "at_stake": round(stake, 2),
        "command": f"studyapp exercise {verb} {exercise_id}",
    }


def _best_explain(
    content: Content, store: ProgressStore, misses: Mapping[str, float]
) -> dict[str, Any] | None:
    prompts = explain_prompts_by_checklist(content)
    every = [pid for ids in prompts.values() for pid in ids]
    coverage = {
        pid: answer["score"] for pid, answer in explain_answers(store, {p: [p] for p in every}).items()
    }
    best: tuple[float, str, str] | None = None
    for checklist_id, prompt_ids in prompts.items():
        for prompt_id in prompt_ids:
            stake = misses.get(checklist_id, 0.0) * (1 - coverage.get(prompt_id, 0.0)) / len(prompt_ids)
            if stake > 0 and (best is None or stake > best[0]):
                best = (stake, prompt_id, checklist_id)
    if best is None:
        return None
    stake, prompt_id, checklist_id = best
    return {
        "kind": "explain",
        "id": prompt_id,
        "checklist": checklist_id,
        "at_stake": round(stake, 2),
        "command": f"studyapp explain {prompt_id}",
    }


def _new_entry(
    content: Content, store: ProgressStore, knowledge: Knowledge, seen: set[str], unseen: int, today: date
) -> dict[str, Any]:
    """The `new` entry: the pace that sees every item before the exam, or a triage when that pace
    cannot be kept, or the no-date pace once the exam date has passed (no negative days)."""
    exam = store.exam_date()
    days_left = (exam - today).days if exam else None
    entry: dict[str, Any] = {"kind": "new", "unseen": unseen, "days_left": days_left}
    if exam is not None and days_left is not None and days_left < 0:
        exam, entry["days_left"], entry["exam_passed"] = None, None, exam.isoformat()
    needed = min(unseen, new_quota(unseen, exam, today, DEFAULT_NEW_PER_SESSION))
    if entry["days_left"] is not None and (needed > MAX_NEW_PER_DAY or entry["days_left"] == 0):
        per_day = min(unseen, MAX_NEW_PER_DAY)
        triage = weakest_unseen_topics(content, knowledge, seen)
        titles = [content.topics[topic].title for topic in triage]
        entry.update(per_day=per_day, needed=needed, triage=triage, triage_titles=titles)
        where = f" --topic {triage[0]}" if triage else ""
        entry["command"] = f"studyapp quiz --mode new{where} --count {per_day}"
        return entry
    entry["per_day"] = needed
    entry["command"] = f"studyapp quiz --mode new --count {needed}"
    return entry


def today_plan(
    content: Content,
    store: ProgressStore,
    now: datetime,
    prediction: Prediction,
    tz: tzinfo | None = None,
    exercises: Mapping[str, Any] | None = None,
    statuses: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The plan as plain data (`today_plan` in `studyapp progress --json`)."""
    zone = tz or local_tz()
    plan: list[dict[str, Any]] = []
    questions = all_questions(content)
    schedules = store.schedules()
    exam_at = exam_at_of(store, zone)
    end_of_day = due_window_end(now, zone)
    due = sum(
        1
        for qid, s in schedules.items()
        if qid in questions and is_due(s, questions[qid], end_of_day, exam_at)
    )
    if due:
        plan.append({"kind": "reviews", "count": due, "command": "studyapp quiz"})
    knowledge = prediction.knowledge_exam_day or prediction.knowledge_today
    unseen = sum(1 for qid in questions if qid not in schedules)
    if unseen:
        plan.append(
            _new_entry(content, store, knowledge, set(schedules), unseen, now.astimezone(zone).date())
        )
    misses = expected_misses(content, knowledge)
    exercise = _best_exercise(misses, exercises or {}, statuses or {})
    if exercise:
        plan.append(exercise)
    explain = _best_explain(content, store, misses)
    if explain:
        plan.append(explain)
    recent = [a for a in exams.attempts(store) if a.finished and a.started_at >= now - MOCK_EXAM_EVERY]
    if not recent:
        plan.append({"kind": "mock_exam", "command": "studyapp quiz --mode exam"})
    return plan
