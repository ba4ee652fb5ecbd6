"""Mock-exam attempts in the store (table `exam_attempts`): archived, listed, found.

An attempt row is written when the exam starts, its answers are saved after every answer (a
killed terminal loses at most the answer being typed), and it is finished on submit with the
score, pass/fail and time used. `questions_json` keeps every question as it was asked (stem,
option item ids and texts, the key, the learner's response, the flag), so `progress` can list it
and `--retry` can ask the misses again exactly, even after the bank changed.

This module stores and returns rows (`ExamAttempt`): the exam (`studyapp.quiz.exam.ExamSession`)
hands its attempt over as one, and turning an archived row back into questions is
`studyapp.quiz.exam.retry_questions`. It knows nothing of the exam's own types.

All access goes through `ProgressStore.transaction()` (WAL, one atomic write each).
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from studyapp.errors import StudyappError
from studyapp.progress.store import ProgressStore, from_iso, to_iso
from studyapp.safetext import has_control_chars, printable
from studyapp.timetext import format_clock

SHORT_ID = 8  # attempts are named by the first characters of their uid
# The exam's own bounds (studyapp.quiz.exam.MIN_TIME_LIMIT_S, MAX_TIME_LIMIT_S, MAX_COUNT; a test
# keeps them equal): an archived attempt outside them was not written by an exam.
TIME_LIMIT_RANGE_S = (1.0, 6 * 3600.0)
MAX_QUESTIONS = 200
# The time a sitting used (settings elapsed_s): a sitting left open for days is still plausible, a
# number that overflows a timedelta is not.
MAX_ELAPSED_S = 366 * 24 * 3600.0
FUTURE_SKEW = timedelta(days=1)  # another machine's clock may run a little ahead


@dataclass(frozen=True)
class ExamAttempt:
    """One attempt as archived: what the exam hands over to be stored, and what is read back.

    `settings` and `questions` are plain JSON data (`settings_json`, `questions_json`); the
    result fields are None until the attempt is submitted."""

    uid: str
    started_at: datetime
    finished_at: datetime | None
    settings: dict[str, Any]
    score: int | None
    total: int
    passed: bool | None
    time_used_s: float | None
    questions: list[dict[str, Any]]

    @property
    def short_id(self) -> str:
        return self.uid[:SHORT_ID]

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    @property
    def misses(self) -> list[dict[str, Any]]:
        return [q for q in self.questions if not q.get("correct")]

    @property
    def answered(self) -> int:
        return sum(1 for q in self.questions if q.get("response") is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.short_id,
            "uid": self.uid,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "score": self.score,
            "total": self.total,
            "percent": round(self.score / self.total, 4) if self.score is not None and self.total else None,
            "passed": self.passed,
            "pass_mark": self.settings.get("pass_mark"),
            "kind": self.settings.get("kind"),
            "time_used_s": self.time_used_s,
            "time_limit_s": self.settings.get("time_limit_s"),
            "auto_submitted": self.settings.get("auto_submitted", False),
            "retry_of": self.settings.get("retry_of"),
            "misses": len(self.misses) if self.finished else None,
            "answered": self.answered,
            # The prediction made just before the attempt (None for attempts archived without one).
            "predicted": self._predicted("expected_score"),
            "predicted_pass": self._predicted("pass_probability"),
        }

    def _predicted(self, key: str) -> float | None:
        prediction = self.settings.get("prediction")
        value = prediction.get(key) if isinstance(prediction, dict) else None
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# ---------------------------------------------------------------------------------------------
# the shapes inside settings_json and questions_json
# ---------------------------------------------------------------------------------------------
# `--retry` and `progress` read these values without further checks: an import refuses an attempt
# whose JSON does not have them (studyapp.progress.transfer), and `--retry` refuses, in one line,
# one that got into a store before imports checked them.


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _plain_text(value: Any) -> bool:
    return isinstance(value, str) and not has_control_chars(value)


def settings_problem(settings: Any) -> str | None:
    """What is wrong with an attempt's settings (the object in settings_json), or None."""
    if not isinstance(settings, dict):
        return "is not a JSON object"
    low, high = TIME_LIMIT_RANGE_S
    limit = settings.get("time_limit_s")
    if limit is not None and not (_number(limit) and low <= limit <= high):
        return f"holds time_limit_s {limit!r:.40}: not a number of seconds from {low:g} to {high:g}"
    used = settings.get("elapsed_s")
    if used is not None and not (_number(used) and 0 <= used <= MAX_ELAPSED_S):
        return f"holds elapsed_s {used!r:.40}: not a number of seconds from 0 to {MAX_ELAPSED_S:g}"
    mark = settings.get("pass_mark")
    if mark is not None and not (_number(mark) and 0 < mark <= 1):
        return f"holds pass_mark {mark!r:.40}: not a share above 0 and at most 1"
    cutoff = settings.get("topic_cutoff")
    if cutoff is not None and not (_number(cutoff) and 0 < cutoff <= 1):
        return f"holds topic_cutoff {cutoff!r:.40}: not a share above 0 and at most 1"
    count = settings.get("count")
    if count is not None and not (
        isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= MAX_QUESTIONS
    ):
        return f"holds count {count!r:.40}: not a whole number from 1 to {MAX_QUESTIONS}"
    for key in ("kind", "built_kind", "topic", "checklist", "retry_of"):
        value = settings.get(key)
        if value is not None and not _plain_text(value):
            return f"holds a {key} that is not plain text"
    for key in ("schedule", "auto_submitted"):
        if settings.get(key) is not None and not isinstance(settings.get(key), bool):
            return f"holds {key} {settings.get(key)!r:.40}: not true or false"
    return None


def questions_problem(questions: Any) -> str | None:
    """What is wrong with an attempt's questions (the list in questions_json), or None."""
    if not isinstance(questions, list):
        return "is not a JSON list"
    for number, question in enumerate(questions, 1):
        problem = _question_problem(question)
        if problem is not None:
            return f"question {number} {problem}"
    return None


def _question_problem(question: Any) -> str | None:
    if not isinstance(question, dict):
        return "is not a JSON object"
    ids = question.get("item_ids", [])
    if not isinstance(ids, list) or not all(_plain_text(i) for i in ids):
        return "has item_ids that are not a list of ids"
    for key in ("kind", "topic", "stem"):
        value = question.get(key)
        if value is not None and not _plain_text(value):
            return f"has a {key} that is not plain text"
    for key in ("answer", "response"):
        value = question.get(key)
        if value is not None and not (
            _plain_text(value) or (isinstance(value, int) and not isinstance(value, bool))
        ):
            return f"has a {key} that is not plain text"
    options = question.get("options", [])
    if not isinstance(options, list) or not all(
        isinstance(o, dict) and all(_plain_text(o.get(k, "")) for k in ("item_id", "text")) for o in options
    ):
        return "has options that are not a list of {item_id, text}"
    for key in ("correct", "flagged"):
        if question.get(key) is not None and not isinstance(question.get(key), bool):
            return f"has {key} {question.get(key)!r:.40}: not true or false"
    return None


def attempt_problem(attempt: ExamAttempt) -> str | None:
    """What is wrong with an archived attempt's JSON columns (as `settings_problem` and
    `questions_problem` say), or None."""
    problem = settings_problem(attempt.settings)
    if problem is not None:
        return f"its settings {problem}"
    problem = questions_problem(attempt.questions)
    return f"its questions: {problem}" if problem is not None else None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _insert_row(db: sqlite3.Connection, attempt: ExamAttempt, questions_json: str) -> None:
    """The attempt's row, unless it is there already (then the caller's UPDATE brings it up to date)."""
    db.execute(
        "INSERT OR IGNORE INTO exam_attempts(uid, started_at, settings_json, total, questions_json)"
        " VALUES (?,?,?,?,?)",
        (attempt.uid, to_iso(attempt.started_at), _json(attempt.settings), attempt.total, questions_json),
    )


def begin_attempt(store: ProgressStore, attempt: ExamAttempt) -> None:
    with store.transaction() as db:
        _insert_row(db, attempt, _json(attempt.questions))


def save_progress(store: ProgressStore, attempt: ExamAttempt) -> None:
    """The answers so far (after each answer) and the settings with the time used so far: an
    interrupted sitting keeps them and can be resumed (studyapp/quiz/exam_resume.py). The row is
    created here too when the write at the start failed (a full disk that has space again)."""
    questions_json = _json(attempt.questions)
    with store.transaction() as db:
        _insert_row(db, attempt, questions_json)
        db.execute(
            "UPDATE exam_attempts SET questions_json = ?, settings_json = ? WHERE uid = ?",
            (questions_json, _json(attempt.settings), attempt.uid),
        )


def finish_attempt(store: ProgressStore, attempt: ExamAttempt) -> None:
    """The submitted attempt: its result fields (finished_at, score, passed) must be set."""
    assert attempt.finished_at is not None and attempt.passed is not None
    questions_json = _json(attempt.questions)
    with store.transaction() as db:
        _insert_row(db, attempt, questions_json)
        db.execute(
            "UPDATE exam_attempts SET finished_at = ?, settings_json = ?, score = ?, passed = ?,"
            " time_used_s = ?, questions_json = ? WHERE uid = ?",
            (
                to_iso(attempt.finished_at),
                _json(attempt.settings),
                attempt.score,
                int(attempt.passed),
                attempt.time_used_s,
                questions_json,
                attempt.uid,
            ),
        )


def attempts(store: ProgressStore) -> list[ExamAttempt]:
    """Every archived attempt, oldest first (rows that do not parse are skipped)."""
    with store.transaction() as db:
        rows = db.execute("SELECT * FROM exam_attempts ORDER BY started_at, id").fetchall()
    result = []
    for row in rows:
        try:
            settings = json.loads(row["settings_json"])
            questions = json.loads(row["questions_json"])
            started = from_iso(row["started_at"])
            finished = from_iso(row["finished_at"]) if row["finished_at"] else None
        except (ValueError, TypeError):
            continue
        if not isinstance(settings, dict) or not isinstance(questions, list):
            continue
        result.append(
            ExamAttempt(
                uid=row["uid"],
                started_at=started,
                finished_at=finished,
                settings=settings,
                score=row["score"],
                total=int(row["total"]),
                passed=None if row["passed"] is None else bool(row["passed"]),
                time_used_s=row["time_used_s"],
                questions=[q for q in questions if isinstance(q, dict)],
            )
        )
    return result


def find_attempt(store: ProgressStore, wanted: str) -> ExamAttempt:
    """An attempt by its id (the uid or a prefix of it, as `progress` shows) or `last`."""
    every = attempts(store)
    key = wanted.strip().lower()
    if key == "last":
        finished = [a for a in every if a.finished]
        if not finished:
            raise StudyappError("no finished mock exam yet: take one with `studyapp quiz --mode exam`")
        # An attempt dated in the future was stored under a wrong clock: it is not the one just taken.
        now = store.clock() + FUTURE_SKEW
        plausible = [a for a in finished if a.started_at <= now]
        return (plausible or finished)[-1]
    matches = [a for a in every if key and a.uid.startswith(key)]
    if len(matches) == 1:
        return matches[0]
    shown = ", ".join(a.short_id for a in every[-5:]) or "none yet"
    named = printable(wanted)  # echoed: a typed escape sequence must not reach the terminal raw
    if not matches:
        raise StudyappError(f"no mock exam attempt '{named}' (recent: {shown}; see `studyapp progress`)")
    raise StudyappError(f"'{named}' names {len(matches)} attempts: give more of the id")


# ---------------------------------------------------------------------------------------------
# one writer per attempt
# ---------------------------------------------------------------------------------------------
# Two terminals that resume the same attempt would each save their own answers over the other's,
# and the second submit would replace the first. A sitting holds an exclusive lock on a small file
# next to the store while it is open; the OS drops it when the process ends (kill -9 included), so
# a killed sitting never blocks its own resume.


class AttemptLock:
    """The open lock file of one attempt; `release` when the sitting is submitted."""

    def __init__(self, path: Path, handle: IO[bytes] | None) -> None:
        self.path = path
        self._handle = handle

    def release(self) -> None:
        if self._handle is None:
            return
        self.path.unlink(missing_ok=True)  # before close: nobody finds a stale file to wait on
        self._handle.close()
        self._handle = None


def hold_attempt(store: ProgressStore, uid: str) -> AttemptLock:
    """Take the attempt for this sitting, or StudyappError when another sitting has it open. Where
    file locks are unavailable (no fcntl, a read-only data directory) the sitting goes on unlocked."""
    path = store.path.parent / f"exam-{uid}.lock"
    try:
        import fcntl
    except ImportError:  # Windows: one terminal is the usual case there; no lock, no crash
        return AttemptLock(path, None)
    try:
        handle = path.open("ab")
    except OSError:
        return AttemptLock(path, None)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        short = uid[:SHORT_ID]
        raise StudyappError(
            f"attempt {short} is open in another window: go on there, or close that one first",
            key="cli.attempt_in_use",
            values={"id": short},
        ) from None
    except OSError:
        return AttemptLock(path, handle)  # a file system without locks: go on unlocked
    return AttemptLock(path, handle)


# ---------------------------------------------------------------------------------------------
# `studyapp progress`
# ---------------------------------------------------------------------------------------------


def attempt_lines(rows: list[dict[str, Any]], t: Any) -> list[str]:
    """`progress`'s list of attempts (newest last), from `ExamAttempt.to_dict()` rows."""
    if not rows:
        return [t("exams.none")]
    lines = [t("exams.title")]
    for row in rows:
        try:  # shown in the learner's local time (stored in UTC)
            date = datetime.fromisoformat(str(row["started_at"])).astimezone().strftime("%Y-%m-%d %H:%M")
        except ValueError:
            date = str(row["started_at"])[:16]
        extra = ""
        if row.get("retry_of"):
            extra += t("exams.retry_of", id=str(row["retry_of"])[:SHORT_ID])
        if row.get("auto_submitted"):
            extra += t("exams.auto")
        if row.get("predicted") is not None:
            extra += t("exams.predicted", predicted=f"{row['predicted'] * 100:.0f}%")
        if row["finished_at"] is None:
            lines.append(
                f"  {row['id']}  {date}  {t('exams.unfinished', answered=row['answered'], total=row['total'])}"
            )
            continue
        used = row.get("time_used_s") or 0.0
        lines.append(
            "  "
            + t(
                "exams.row",
                id=row["id"],
                date=date,
                score=f"{row['score']}/{row['total']} ({(row['percent'] or 0) * 100:.0f}%)",
                verdict=t("exams.pass") if row["passed"] else t("exams.fail"),
                time=format_clock(used),
                extra=extra,
            )
        )
    lines.append(t("exams.hint"))
    return lines
