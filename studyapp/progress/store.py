"""The progress store: one SQLite file in the data directory.

Durability rules, because a learner's history is the product:
- WAL mode and one transaction per answer, committed before its feedback is shown; a kill -9
  loses at most the answer being typed.
- The review log is the truth. Per-item scheduling state (`card_state`) is a cache rebuilt by
  replaying an item's log through FSRS, so undo and importing another machine's log are exact.
- A file that is not ours (corrupt, or another program's SQLite) is moved aside with a
  timestamp, never deleted; a file from a newer schema is refused untouched.
- Two app instances may write at once: writers wait on the lock (busy timeout) instead of failing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from studyapp.errors import StudyappError
from studyapp.quiz.scheduler import Grade, ItemSchedule, replay

APPLICATION_ID = 0x53545944  # "STYD": marks a SQLite file as a studyapp progress store
SCHEMA_VERSION = 2  # == len(MIGRATIONS)
DB_NAME = "progress.db"

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def to_iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(timezone.utc)


# Each migration takes the store from version N-1 to N. Add new ones at the end; never edit old ones.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        item_id TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'ox',
        answer TEXT NOT NULL,
        correct INTEGER NOT NULL,
        unsure INTEGER NOT NULL DEFAULT 0,
        rating INTEGER NOT NULL,
        mode TEXT NOT NULL DEFAULT 'due',
        session_id TEXT,
        reviewed_at TEXT NOT NULL,
        response_ms INTEGER,
        text_hash TEXT
    );
    CREATE INDEX reviews_item ON reviews(item_id, reviewed_at);
    CREATE INDEX reviews_time ON reviews(reviewed_at);
    CREATE TABLE card_state (
        item_id TEXT PRIMARY KEY,
        card_json TEXT NOT NULL,
        due TEXT NOT NULL,
        reviews INTEGER NOT NULL,
        lapses INTEGER NOT NULL,
        last_correct INTEGER NOT NULL,
        last_reviewed_at TEXT NOT NULL,
        text_hash TEXT
    );
    CREATE TABLE lab_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        lab TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        status TEXT NOT NULL,
        summary TEXT,
        artifact_dir TEXT,
        result_json TEXT
    );
    CREATE TABLE lab_answers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        lab TEXT NOT NULL,
        answer TEXT NOT NULL,
        correct INTEGER NOT NULL,
        answered_at TEXT NOT NULL
    );
    CREATE TABLE self_checks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        checklist_id TEXT NOT NULL,
        value INTEGER NOT NULL,
        checked_at TEXT NOT NULL
    );
    """,
    # 2: mock-exam attempts, explain-it answers, exercise checks and revealed hints.
    """
    CREATE TABLE exam_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        settings_json TEXT NOT NULL,
        score INTEGER,
        total INTEGER NOT NULL,
        passed INTEGER,
        time_used_s REAL,
        questions_json TEXT NOT NULL
    );
    CREATE TABLE explain_answers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        prompt_id TEXT NOT NULL,
        checklist_id TEXT NOT NULL,
        answer_text TEXT NOT NULL,
        covered_json TEXT NOT NULL,
        total_points INTEGER NOT NULL,
        answered_at TEXT NOT NULL
    );
    CREATE INDEX explain_checklist ON explain_answers(checklist_id, answered_at);
    CREATE TABLE exercise_checks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        exercise_id TEXT NOT NULL,
        checker_hash TEXT NOT NULL,
        verdict TEXT NOT NULL,
        passed INTEGER NOT NULL,
        details_json TEXT,
        duration_s REAL,
        checked_at TEXT NOT NULL
    );
    CREATE INDEX exercise_checks_id ON exercise_checks(exercise_id, checked_at);
    CREATE TABLE exercise_hints (
        exercise_id TEXT PRIMARY KEY,
        revealed INTEGER NOT NULL,
        updated_at TEXT NOT NULL
    );
    """,
]


@dataclass(frozen=True)
class Review:
    uid: str
    item_id: str
    kind: str
    answer: str
    correct: bool
    unsure: bool
    rating: int
    mode: str
    session_id: str | None
    reviewed_at: datetime
    response_ms: int | None
    text_hash: str | None


@dataclass(frozen=True)
class LabRun:
    uid: str
    lab: str
    started_at: datetime
    ended_at: datetime | None
    status: str
    summary: str | None
    artifact_dir: str | None
    result: dict[str, Any] | None


class StoreError(StudyappError):
    """The progress file cannot be used as it is (e.g. written by a newer studyapp)."""


class ProgressStore:
    """All reads and writes of the learner's progress."""

    def __init__(self, path: Path, clock: Clock = utc_now) -> None:
        self.path = path
        self.clock = clock
        self.notice: str | None = None  # one line for the learner, e.g. where a bad file went
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._open()

    @classmethod
    def in_dir(cls, data_dir: Path, clock: Clock = utc_now) -> ProgressStore:
        return cls(data_dir / DB_NAME, clock)

    # -- opening, validating, migrating ------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout = 10000")
        return db

    def _open(self) -> sqlite3.Connection:
        existed = self.path.exists() and self.path.stat().st_size > 0
        db: sqlite3.Connection | None = None
        try:
            db = self._connect()
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if existed and (app_id != APPLICATION_ID or tables == 0) and not (app_id == 0 and tables == 0):
                db.close()
                return self._move_aside("it is not a studyapp progress file")
            if version > SCHEMA_VERSION:
                db.close()
                raise StoreError(
                    f"{self.path} was written by a newer studyapp (schema {version} > {SCHEMA_VERSION}); "
                    "upgrade studyapp — the file was left untouched"
                )
            if existed and db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                db.close()
                return self._move_aside("it failed SQLite's integrity check")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            self._migrate(db, version)
            return db
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise StoreError(f"{self.path} is locked by another program; try again") from None
            return self._move_aside(f"it is not a readable SQLite database ({exc})")

    def _move_aside(self, reason: str) -> sqlite3.Connection:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.bad-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.bad-{stamp}-{counter}")
            counter += 1
        os.replace(self.path, target)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                os.replace(side, target.with_name(target.name + suffix))
        self.notice = f"progress file was moved to {target} because {reason}; starting a fresh one"
        db = self._connect()
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        self._migrate(db, 0)
        return db

    def _migrate(self, db: sqlite3.Connection, version: int) -> None:
        if version >= len(MIGRATIONS):
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the lock: another instance may have migrated meanwhile.
            version = db.execute("PRAGMA user_version").fetchone()[0]
            for number in range(version, len(MIGRATIONS)):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: BEGIN IMMEDIATE takes the write lock up front, so no deadlocks."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()

    def integrity_ok(self) -> bool:
        return self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    # -- settings ----------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self.transaction() as db:
            if value is None:
                db.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def exam_date(self) -> date | None:
        value = self.get_meta("exam_date")
        return date.fromisoformat(value) if value else None

    def set_exam_date(self, value: date | None) -> None:
        self.set_meta("exam_date", value.isoformat() if value else None)

    # -- reviews -----------------------------------------------------------------------------
    def record_answer(
        self,
        item_id: str,
        *,
        answer: str,
        correct: bool,
        unsure: bool = False,
        kind: str = "ox",
        mode: str = "due",
        session_id: str | None = None,
        response_ms: int | None = None,
        text_hash: str | None = None,
        reviewed_at: datetime | None = None,
    ) -> tuple[Review, ItemSchedule]:
        """Log one answer and update the item's schedule, atomically. Returns both."""
        review = Review(
            uid=uuid.uuid4().hex,
            item_id=item_id,
            kind=kind,
            answer=answer,
            correct=correct,
            unsure=unsure,
            rating=int(Grade.from_answer(correct, unsure)),
            mode=mode,
            session_id=session_id,
            reviewed_at=reviewed_at or self.clock(),
            response_ms=response_ms,
            text_hash=text_hash,
        )
        with self.transaction() as db:
            self._insert_review(db, review)
            schedule = self._rebuild_state(db, item_id)
        assert schedule is not None
        return review, schedule

    def _insert_review(self, db: sqlite3.Connection, review: Review) -> bool:
        cursor = db.execute(
            "INSERT OR IGNORE INTO reviews(uid, item_id, kind, answer, correct, unsure, rating, mode,"
            " session_id, reviewed_at, response_ms, text_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                review.uid,
                review.item_id,
                review.kind,
                review.answer,
                int(review.correct),
                int(review.unsure),
                review.rating,
                review.mode,
                review.session_id,
                to_iso(review.reviewed_at),
                review.response_ms,
                review.text_hash,
            ),
        )
        return cursor.rowcount > 0

    def _rebuild_state(self, db: sqlite3.Connection, item_id: str) -> ItemSchedule | None:
        rows = db.execute(
            "SELECT * FROM reviews WHERE item_id = ? ORDER BY reviewed_at, id", (item_id,)
        ).fetchall()
        if not rows:
            db.execute("DELETE FROM card_state WHERE item_id = ?", (item_id,))
            return None
        reviews = [_review_from_row(r) for r in rows]
        last = reviews[-1]
        schedule = replace(
            replay(item_id, [(r.reviewed_at, Grade(r.rating)) for r in reviews]),
            reviews=len(reviews),
            lapses=sum(not r.correct for r in reviews),
            last_correct=last.correct,
            text_hash=last.text_hash,
        )
        db.execute(
            "INSERT OR REPLACE INTO card_state(item_id, card_json, due, reviews, lapses, last_correct,"
            " last_reviewed_at, text_hash) VALUES (?,?,?,?,?,?,?,?)",
            (
                item_id,
                schedule.card_json,
                to_iso(schedule.due),
                schedule.reviews,
                schedule.lapses,
                int(schedule.last_correct),
                to_iso(last.reviewed_at),
                schedule.text_hash,
            ),
        )
        return schedule

    def undo_last(self, session_id: str | None = None) -> Review | None:
        """Remove the most recent answer (of a session, if given) and restore the item's schedule."""
        with self.transaction() as db:
            query = "SELECT * FROM reviews"
            params: tuple[Any, ...] = ()
            if session_id is not None:
                query += " WHERE session_id = ?"
                params = (session_id,)
            row = db.execute(query + " ORDER BY id DESC LIMIT 1", params).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM reviews WHERE id = ?", (row["id"],))
            self._rebuild_state(db, row["item_id"])
        return _review_from_row(row)

    def reviews(self, item_id: str | None = None, since: datetime | None = None) -> list[Review]:
        query, params = "SELECT * FROM reviews WHERE 1=1", []
        if item_id is not None:
            query += " AND item_id = ?"
            params.append(item_id)
        if since is not None:
            query += " AND reviewed_at >= ?"
            params.append(to_iso(since))
        rows = self._db.execute(query + " ORDER BY reviewed_at, id", params).fetchall()
        return [_review_from_row(r) for r in rows]

    def review_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM reviews").fetchone()[0])

    def schedules(self) -> dict[str, ItemSchedule]:
        """Every reviewed item's current schedule, by item id."""
        rows = self._db.execute("SELECT * FROM card_state").fetchall()
        return {row["item_id"]: ItemSchedule.from_row(row) for row in rows}

    # -- labs --------------------------------------------------------------------------------
    def start_lab_run(self, lab: str, artifact_dir: str | None) -> str:
        uid = uuid.uuid4().hex
        with self.transaction() as db:
            db.execute(
                "INSERT INTO lab_runs(uid, lab, started_at, status, artifact_dir) VALUES (?,?,?,?,?)",
                (uid, lab, to_iso(self.clock()), "running", artifact_dir),
            )
        return uid

    def finish_lab_run(
        self, uid: str, status: str, summary: str | None, result: dict[str, Any] | None
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE lab_runs SET ended_at = ?, status = ?, summary = ?, result_json = ? WHERE uid = ?",
                (
                    to_iso(self.clock()),
                    status,
                    summary,
                    json.dumps(result, ensure_ascii=False) if result is not None else None,
                    uid,
                ),
            )

    def lab_runs(self, lab: str | None = None) -> list[LabRun]:
        query, params = "SELECT * FROM lab_runs", ()
        if lab is not None:
            query, params = query + " WHERE lab = ?", (lab,)
        rows = self._db.execute(query + " ORDER BY started_at, id", params).fetchall()
        return [
            LabRun(
                uid=r["uid"],
                lab=r["lab"],
                started_at=from_iso(r["started_at"]),
                ended_at=from_iso(r["ended_at"]) if r["ended_at"] else None,
                status=r["status"],
                summary=r["summary"],
                artifact_dir=r["artifact_dir"],
                result=json.loads(r["result_json"]) if r["result_json"] else None,
            )
            for r in rows
        ]

    def last_lab_runs(self) -> dict[str, LabRun]:
        """The most recent run of each lab, by lab id."""
        return {run.lab: run for run in self.lab_runs()}  # lab_runs() is oldest first

    def record_lab_answer(self, lab: str, answer: str, correct: bool) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO lab_answers(uid, lab, answer, correct, answered_at) VALUES (?,?,?,?,?)",
                (uuid.uuid4().hex, lab, answer, int(correct), to_iso(self.clock())),
            )

    def lab_answers(self) -> dict[str, tuple[bool, datetime]]:
        """The latest check-question answer per lab: (correct, when)."""
        rows = self._db.execute(
            "SELECT lab, correct, answered_at FROM lab_answers ORDER BY answered_at, id"
        ).fetchall()
        return {r["lab"]: (bool(r["correct"]), from_iso(r["answered_at"])) for r in rows}

    # -- checklist self-checks ----------------------------------------------------------------
    def set_self_check(self, checklist_id: str, value: bool) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO self_checks(uid, checklist_id, value, checked_at) VALUES (?,?,?,?)",
                (uuid.uuid4().hex, checklist_id, int(value), to_iso(self.clock())),
            )

    def self_checks(self) -> dict[str, datetime]:
        """Checklist ids the learner currently says they can explain, with the date they said so."""
        rows = self._db.execute(
            "SELECT checklist_id, value, checked_at FROM self_checks ORDER BY checked_at, id"
        ).fetchall()
        current: dict[str, datetime] = {}
        for r in rows:
            if r["value"]:
                current[r["checklist_id"]] = from_iso(r["checked_at"])
            else:
                current.pop(r["checklist_id"], None)
        return current

    # -- moving between machines --------------------------------------------------------------
    def export_data(self) -> dict[str, Any]:
        def table(name: str) -> list[dict[str, Any]]:
            return [dict(r) for r in self._db.execute(f"SELECT * FROM {name} ORDER BY id")]

        data = {
            "format": "studyapp-progress",
            "schema": SCHEMA_VERSION,
            "exported_at": to_iso(self.clock()),
            "reviews": table("reviews"),
            "lab_runs": table("lab_runs"),
            "lab_answers": table("lab_answers"),
            "self_checks": table("self_checks"),
        }
        for rows in data.values():
            if isinstance(rows, list):
                for row in rows:
                    row.pop("id", None)
        exam = self.exam_date()
        data["exam_date"] = exam.isoformat() if exam else None
        return data

    def import_data(self, data: dict[str, Any]) -> dict[str, int]:
        """Merge an export into this store, all or nothing; rows already present are skipped."""
        _validate_export(data)
        added = {"reviews": 0, "lab_runs": 0, "lab_answers": 0, "self_checks": 0}
        with self.transaction() as db:
            touched: set[str] = set()
            for row in data["reviews"]:
                review = Review(
                    uid=row["uid"],
                    item_id=row["item_id"],
                    kind=row.get("kind", "ox"),
                    answer=row["answer"],
                    correct=bool(row["correct"]),
                    unsure=bool(row.get("unsure", 0)),
                    rating=int(row["rating"]),
                    mode=row.get("mode", "due"),
                    session_id=row.get("session_id"),
                    reviewed_at=from_iso(row["reviewed_at"]),
                    response_ms=row.get("response_ms"),
                    text_hash=row.get("text_hash"),
                )
                if self._insert_review(db, review):
                    added["reviews"] += 1
                    touched.add(review.item_id)
            for item_id in touched:
                self._rebuild_state(db, item_id)
            for name, columns in _PLAIN_TABLES.items():
                for row in data.get(name, []):
                    values = [row.get(column) for column in columns]
                    cursor = db.execute(
                        f"INSERT OR IGNORE INTO {name}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                        values,
                    )
                    added[name] += cursor.rowcount
            if data.get("exam_date") and not self.get_meta("exam_date"):
                db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('exam_date', ?)", (data["exam_date"],)
                )
        return added


_PLAIN_TABLES = {
    "lab_runs": ["uid", "lab", "started_at", "ended_at", "status", "summary", "artifact_dir", "result_json"],
    "lab_answers": ["uid", "lab", "answer", "correct", "answered_at"],
    "self_checks": ["uid", "checklist_id", "value", "checked_at"],
}


def _validate_export(data: Any) -> None:
    """Refuse anything that is not a well-formed export before touching the store."""
    if not isinstance(data, dict) or data.get("format") != "studyapp-progress":
        raise StudyappError('not a studyapp progress export (missing "format": "studyapp-progress")')
    if not isinstance(data.get("schema"), int) or data["schema"] > SCHEMA_VERSION:
        raise StudyappError(f"progress export has unsupported schema {data.get('schema')!r}")
    required = {
        "reviews": ("uid", "item_id", "answer", "correct", "rating", "reviewed_at"),
        **{name: ("uid",) for name in _PLAIN_TABLES},
    }
    for name, keys in required.items():
        rows = data.get(name, [])
        if not isinstance(rows, list):
            raise StudyappError(f"progress export: '{name}' must be a list")
        for index, row in enumerate(rows):
            if not isinstance(row, dict) or any(k not in row for k in keys):
                raise StudyappError(f"progress export: {name}[{index}] lacks one of {', '.join(keys)}")
            if name == "reviews":
                try:
                    from_iso(str(row["reviewed_at"]))
                    Grade(int(row["rating"]))
                except (ValueError, TypeError):
                    raise StudyappError(
                        f"progress export: reviews[{index}] has a bad date or rating"
                    ) from None


def _review_from_row(row: sqlite3.Row) -> Review:
    return Review(
        uid=row["uid"],
        item_id=row["item_id"],
        kind=row["kind"],
        answer=row["answer"],
        correct=bool(row["correct"]),
        unsure=bool(row["unsure"]),
        rating=int(row["rating"]),
        mode=row["mode"],
        session_id=row["session_id"],
        reviewed_at=from_iso(row["reviewed_at"]),
        response_ms=row["response_ms"],
        text_hash=row["text_hash"],
    )
