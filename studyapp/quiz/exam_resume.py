"""Resume a mock exam that ended without a submit (ctrl+q, a closed terminal, a crash).

Every answer of a sitting is archived as it is given, with the time used so far
(studyapp/progress/exams.py), so an unfinished attempt can be picked up again: the same attempt
(its id, questions, answers, flags and prediction), with the time that was left at its last saved
answer — the minutes between the interruption and the resume are not counted, the ones before it
are. Only attempts started within `RESUME_WITHIN` are offered; older ones stay in the archive as
not submitted.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime, timedelta
from typing import Any

from studyapp.content.model import Content
from studyapp.errors import StudyappError
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.kinds import kind_of, kinds
from studyapp.quiz.kinds.base import archived_question, row_kind
from studyapp.quiz.question import Question

RESUME_WITHIN = timedelta(hours=24)


def time_used(attempt: exams.ExamAttempt) -> float:
    value = attempt.settings.get("elapsed_s")
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0.0
    )


def time_left(attempt: exams.ExamAttempt) -> float:
    limit = attempt.settings.get("time_limit_s")
    if not isinstance(limit, int | float) or isinstance(limit, bool):
        return 0.0
    return max(0.0, float(limit) - time_used(attempt))


def resumable(store: ProgressStore, now: datetime) -> exams.ExamAttempt | None:
    """The newest unfinished attempt started within RESUME_WITHIN that has time left."""
    for attempt in reversed(exams.attempts(store)):
        if attempt.finished:
            continue
        if now - attempt.started_at <= RESUME_WITHIN and time_left(attempt) > 0:
            return attempt
        return None  # only the newest unfinished one is offered
    return None


def question_from_row(content: Content, row: dict[str, Any]) -> Question:
    """The row's kind rebuilds it as asked; a row it cannot rebuild is shown as archived."""
    kind = kinds().get(row_kind(row))
    made = kind.exam_from_row(row, content) if kind is not None else None
    return made if made is not None else archived_question(row)


def resume_session(
    content: Content, store: ProgressStore, attempt: exams.ExamAttempt, clock: Any = None
) -> ExamSession:
    """The attempt as a sitting again, its clock running from the time it had used."""
    if attempt.finished:
        raise StudyappError(f"attempt {attempt.short_id} was submitted already: nothing to resume")
    damage = exams.attempt_problem(attempt)
    if damage is not None:  # a hand-edited or damaged store: one line, not a TypeError
        raise StudyappError(
            f"attempt {attempt.short_id} cannot be resumed: {damage}",
            key="cli.resume_damaged",
            values={"id": attempt.short_id, "problem": damage},
        )
    rows = sorted(attempt.questions, key=lambda r: int(r.get("number") or 0))
    questions = [question_from_row(content, row) for row in rows]
    known = {f.name for f in fields(ExamSettings)}
    settings = ExamSettings(**{k: v for k, v in attempt.settings.items() if k in known})
    session = ExamSession(content, store, settings, questions=questions, clock=clock)
    session.attempt_id = attempt.uid
    session.hold()  # a second window resuming the same attempt is refused, in one line (M6)
    prediction = attempt.settings.get("prediction")
    session.prediction = prediction if isinstance(prediction, dict) else None
    for index, (row, question) in enumerate(zip(rows, questions, strict=True)):
        response = row.get("response")
        if isinstance(response, str) and kind_of(question).exam_response(question, response) is not None:
            session.answers[index] = response
        if row.get("flagged"):
            session.flags.add(index)
    unanswered = [i for i in range(len(questions)) if i not in session.answers]
    session.position = unanswered[0] if unanswered else 0
    session.carry_on(time_used(attempt))
    return session


def find_unfinished(store: ProgressStore, wanted: str) -> exams.ExamAttempt:
    """An attempt to resume, by id or `last` (the newest unfinished one), started within
    RESUME_WITHIN: the README and the intro's offer promise "within a day", so `--resume` keeps
    the same window (an older one stays in the archive as not submitted)."""
    key = wanted.strip().lower()
    if not key:  # `--resume ''` is a mistake to name, not a fresh exam
        raise StudyappError("--resume needs an attempt id or `last`", key="cli.resume_empty")
    if key == "last":
        attempt = next((a for a in reversed(exams.attempts(store)) if not a.finished), None)
        if attempt is None:
            raise StudyappError("no unfinished mock exam to resume", key="cli.resume_none")
    else:
        attempt = exams.find_attempt(store, wanted)
    if not attempt.finished and store.clock() - attempt.started_at > RESUME_WITHIN:
        raise StudyappError(
            f"attempt {attempt.short_id} started more than a day ago: it stays in the archive, not submitted",
            key="cli.resume_too_old",
            values={"id": attempt.short_id},
        )
    return attempt
