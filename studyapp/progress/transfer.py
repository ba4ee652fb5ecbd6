"""Moving progress between machines: `studyapp progress --export-data` / `--import-data`.

An export is plain JSON: every table the learner wrote (`card_state` is derived, so left out),
the schema version and the exam date. An import merges it all or nothing, skipping rows already
present, and checks every field a later command reads first (`validate_export`), so a file that
would break `progress`, `quiz` or `lab list` afterwards is refused whole, in one line.

One exception: a row whose date-time is well formed but before 2000 or in the future is left
out and counted, not a reason to refuse the file. Such rows come from the learner's own clock (a
wrong `STUDYAPP_NOW`, a board without a real-time clock, time set back), and refusing would make
their own backup unimportable whole (review 2026-12-second, clock minors).
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime, timedelta, timezone
from typing import Any

from studyapp.errors import StudyappError
from studyapp.progress import exams
from studyapp.progress.db import SCHEMA_VERSION
from studyapp.progress.scheduler import Grade
from studyapp.progress.store import ProgressStore, Review, from_iso, to_iso, utc_now
from studyapp.safetext import has_control_chars

EXPORT_FORMAT = "studyapp-progress"
SKIPPED_OUT_OF_RANGE = (
    "skipped_out_of_range"  # import_data's count of rows dated before 2000 or in the future
)


def export_data(store: ProgressStore) -> dict[str, Any]:
    """Everything the learner did, as plain JSON data (card_state is derived, so left out)."""

    def table(name: str) -> list[dict[str, Any]]:
        order = "id" if name != "exercise_hints" else "exercise_id"
        rows = [dict(r) for r in store.query(f"SELECT * FROM {name} ORDER BY {order}")]
        for row in rows:
            row.pop("id", None)
        return rows

    data: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "schema": SCHEMA_VERSION,
        "exported_at": to_iso(store.clock()),
    }
    for name in EXPORT_TABLES:
        data[name] = table(name)
    exam = store.exam_date()
    data["exam_date"] = exam.isoformat() if exam else None
    return data


def import_data(store: ProgressStore, data: Any) -> dict[str, int]:
    """Merge an export into `store`, all or nothing; rows already present are skipped. Returns
    the rows added per table (`import_data_counted` also says how many were left out)."""
    return import_data_counted(store, data)[0]


def import_data_counted(store: ProgressStore, data: Any) -> tuple[dict[str, int], int]:
    """`import_data`, and the number of rows left out for a date-time before 2000 or in the
    future (see the module's docstring).

    Every field a later command reads is checked first (`validate_export`): a file that
    would break `progress`, `quiz` or `lab list` afterwards is refused whole, in one line."""
    skip = validate_export(data, latest=max(store.clock(), utc_now()) + _IMPORT_CLOCK_SKEW)

    def rows(name: str) -> list[dict[str, Any]]:
        return [row for index, row in enumerate(data.get(name, [])) if index not in skip[name]]

    added = {name: 0 for name in EXPORT_TABLES}
    with store.transaction() as db:
        added["reviews"] = store.merge_reviews(db, [_review_from_export(row) for row in rows("reviews")])
        for name, columns in _PLAIN_TABLES.items():
            names = list(columns)
            if name == "exercise_hints":  # one row per exercise: keep the most revealed
                conflict = (
                    "ON CONFLICT(exercise_id) DO UPDATE SET revealed = excluded.revealed,"
                    " updated_at = excluded.updated_at WHERE excluded.revealed > revealed"
                )
            else:  # NOT NULL failures still raise: only a repeated uid is skipped
                conflict = "ON CONFLICT(uid) DO NOTHING"
            insert = (
                f"INSERT INTO {name}({', '.join(names)}) VALUES ({', '.join('?' * len(names))}) {conflict}"
            )
            for row in rows(name):
                cursor = db.execute(insert, [_to_sql(row.get(column)) for column in names])
                added[name] += cursor.rowcount
        if data.get("exam_date") and not store.get_meta("exam_date"):
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('exam_date', ?)",
                (_exam_date_value(data["exam_date"]).isoformat(),),
            )
    return added, sum(len(indexes) for indexes in skip.values())


def unsaved_export(store: ProgressStore) -> dict[str, Any]:
    """The answers whose write failed (`store.unsaved`) as a progress export, for
    `studyapp progress --import-data`."""
    return {
        "format": EXPORT_FORMAT,
        "schema": SCHEMA_VERSION,
        "exported_at": to_iso(store.clock()),
        "reviews": [_review_to_row(r) for r in store.unsaved],
    }


# -- the export format ----------------------------------------------------------------------------
# Column kinds of every table an export carries. Each is checked on import because something reads
# it later: a date must parse, a number fit SQLite's INTEGER, an id be a string, a JSON column parse.
_ID, _TEXT, _OPT_TEXT, _BOOL, _OPT_BOOL, _INT, _OPT_INT = (
    "id",
    "text",
    "text?",
    "bool",
    "bool?",
    "int",
    "int?",
)
_TIME, _OPT_TIME, _OPT_REAL, _JSON, _OPT_JSON, _RATING = "time", "time?", "real?", "json", "json?", "rating"
_OPT_JSON_OBJECT = "object?"  # JSON text of an object: LabRun.result is read as a dict
_COUNT = "count"  # a whole number, 0 or more (how many hints were shown)
_MAX_COUNT = 10_000

_REVIEW_COLUMNS = {
    "uid": _ID,
    "item_id": _ID,
    "kind": _OPT_TEXT,
    "answer": _TEXT,
    "correct": _BOOL,
    "unsure": _OPT_BOOL,
    "rating": _RATING,
    "mode": _OPT_TEXT,
    "session_id": _OPT_TEXT,
    "reviewed_at": _TIME,
    "response_ms": _OPT_INT,
    "text_hash": _OPT_TEXT,
}
_PLAIN_TABLES: dict[str, dict[str, str]] = {
    "lab_runs": {
        "uid": _ID,
        "lab": _ID,
        "started_at": _TIME,
        "ended_at": _OPT_TIME,
        "status": _ID,
        "summary": _OPT_TEXT,
        "artifact_dir": _OPT_TEXT,
        "result_json": _OPT_JSON_OBJECT,
    },
    "lab_answers": {"uid": _ID, "lab": _ID, "answer": _TEXT, "correct": _BOOL, "answered_at": _TIME},
    "self_checks": {"uid": _ID, "checklist_id": _ID, "value": _BOOL, "checked_at": _TIME},
    "exam_attempts": {
        "uid": _ID,
        "started_at": _TIME,
        "finished_at": _OPT_TIME,
        "settings_json": _JSON,
        "score": _OPT_INT,
        "total": _INT,
        "passed": _OPT_BOOL,
        "time_used_s": _OPT_REAL,
        "questions_json": _JSON,
    },
    "explain_answers": {
        "uid": _ID,
        "prompt_id": _ID,
        "checklist_id": _ID,
        "answer_text": _TEXT,
        "covered_json": _JSON,
        "total_points": _INT,
        "answered_at": _TIME,
    },
    "exercise_checks": {
        "uid": _ID,
        "exercise_id": _ID,
        "checker_hash": _TEXT,
        "verdict": _ID,
        "passed": _BOOL,
        "details_json": _OPT_JSON,
        "duration_s": _OPT_REAL,
        "checked_at": _TIME,
    },
    "exercise_hints": {"exercise_id": _ID, "revealed": _COUNT, "updated_at": _TIME},
}
EXPORT_TABLES = ("reviews", *_PLAIN_TABLES)

_SQLITE_INT_MIN, _SQLITE_INT_MAX = -(2**63), 2**63 - 1
_EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)  # before studyapp (and FSRS) existed
_IMPORT_CLOCK_SKEW = timedelta(days=1)  # another machine's clock may run a little ahead
_MAX_TEXT = 1 << 20  # one field of an export: 1 MiB is far beyond any real answer or summary


class _BadField(Exception):
    pass


class _OutOfRange(_BadField):
    """A well-formed date-time before 2000 or in the future: the row is skipped, not the file."""


def _check_field(kind: str, value: Any, latest: datetime) -> None:
    """Raise _BadField(reason) unless `value` is a valid `kind` (see the column kinds above)."""
    optional = kind.endswith("?")
    if value is None:
        if optional:
            return
        raise _BadField("is missing")
    base = kind.rstrip("?")
    if base in ("id", "text", "time", "json", "object"):
        if not isinstance(value, str):
            raise _BadField(f"must be a string, not {type(value).__name__}")
        if len(value) > _MAX_TEXT:
            raise _BadField("is too long")
        if base == "id" and not value.strip():
            raise _BadField("is empty")
        if base == "id" and has_control_chars(value):  # ids are printed (progress, errors) as they are
            raise _BadField("holds a control character")
        if base == "time":
            try:
                moment = from_iso(value)
            except (ValueError, OverflowError):
                raise _BadField(f"is not a date and time: {value[:40]!r}") from None
            if not _EARLIEST <= moment <= latest:
                raise _OutOfRange(f"is out of range (before 2000 or in the future): {value[:40]!r}")
        if base in ("json", "object"):
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                raise _BadField("is not valid JSON text") from None
            if base == "object" and not isinstance(parsed, dict):
                raise _BadField("is not the JSON text of an object")
        return
    if base in ("bool", "int", "rating", "count"):
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            raise _BadField(f"must be a whole number, not {type(value).__name__}")
        if base == "bool" and value not in (0, 1):
            raise _BadField(f"must be 0 or 1, not {value}")
        if base == "rating" and value not in {int(g) for g in Grade}:
            raise _BadField(f"is not a rating: {value}")
        if base == "count" and not 0 <= value <= _MAX_COUNT:
            raise _BadField(f"must be from 0 to {_MAX_COUNT}, not {value}")
        if not _SQLITE_INT_MIN <= value <= _SQLITE_INT_MAX:
            raise _BadField("is too large")
        return
    if base == "real":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise _BadField(f"must be a finite number, not {value!r:.40}")
        return
    raise AssertionError(kind)  # pragma: no cover - a column kind without a check


def validate_export(data: Any, latest: datetime | None = None) -> dict[str, set[int]]:
    """Refuse anything that is not a well-formed export before touching the store. Returns, per
    table, the rows to leave out: those whose only fault is a date-time out of range."""
    latest = latest or utc_now() + _IMPORT_CLOCK_SKEW
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise StudyappError('not a studyapp progress export (missing "format": "studyapp-progress")')
    schema = data.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or not 1 <= schema <= SCHEMA_VERSION:
        raise StudyappError(f"progress export has unsupported schema {schema!r:.40}")
    if "reviews" not in data:
        raise StudyappError("progress export: 'reviews' is missing")
    tables = {"reviews": _REVIEW_COLUMNS, **_PLAIN_TABLES}
    out_of_range: dict[str, set[int]] = {name: set() for name in tables}
    for name, columns in tables.items():
        rows = data.get(name, [])
        if not isinstance(rows, list):
            raise StudyappError(f"progress export: '{name}' must be a list")
        required = [c for c, kind in columns.items() if not kind.endswith("?")]
        for index, row in enumerate(rows):
            if not isinstance(row, dict) or any(c not in row for c in required):
                raise StudyappError(f"progress export: {name}[{index}] lacks one of {', '.join(required)}")
            for column, kind in columns.items():
                try:
                    _check_field(kind, row.get(column), latest)
                except _OutOfRange:
                    out_of_range[name].add(index)  # the other fields are still checked
                except _BadField as bad:
                    raise StudyappError(f"progress export: {name}[{index}].{column} {bad}") from None
            if name == "exam_attempts":
                _check_attempt_shapes(row, index)
    exam = data.get("exam_date")
    if exam is not None and exam != "":
        try:
            _exam_date_value(exam)
        except ValueError:
            raise StudyappError(
                f"progress export: exam_date is not a date (YYYY-MM-DD): {exam!r:.40}"
            ) from None
    return out_of_range


def _check_attempt_shapes(row: dict[str, Any], index: int) -> None:
    """What `--retry` and `progress` read inside an attempt's JSON columns (valid JSON by now)."""
    for column, problem_of in (
        ("settings_json", exams.settings_problem),
        ("questions_json", exams.questions_problem),
    ):
        problem = problem_of(json.loads(row[column]))
        if problem is not None:
            raise StudyappError(f"progress export: exam_attempts[{index}].{column} {problem}")


def _exam_date_value(value: Any) -> date:
    if not isinstance(value, str):
        raise ValueError(value)
    day = date.fromisoformat(value)
    if not 2000 <= day.year <= 2200:
        raise ValueError(value)
    return day


def _to_sql(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value


def _review_from_export(row: dict[str, Any]) -> Review:
    return Review(
        uid=row["uid"],
        item_id=row["item_id"],
        kind=row.get("kind") or "ox",
        answer=row["answer"],
        correct=bool(row["correct"]),
        unsure=bool(row.get("unsure") or 0),
        rating=int(row["rating"]),
        mode=row.get("mode") or "due",
        session_id=row.get("session_id"),
        reviewed_at=from_iso(row["reviewed_at"]),
        response_ms=row.get("response_ms"),
        text_hash=row.get("text_hash"),
    )


def _review_to_row(review: Review) -> dict[str, Any]:
    return {
        "uid": review.uid,
        "item_id": review.item_id,
        "kind": review.kind,
        "answer": review.answer,
        "correct": int(review.correct),
        "unsure": int(review.unsure),
        "rating": review.rating,
        "mode": review.mode,
        "session_id": review.session_id,
        "reviewed_at": to_iso(review.reviewed_at),
        "response_ms": review.response_ms,
        "text_hash": review.text_hash,
    }
