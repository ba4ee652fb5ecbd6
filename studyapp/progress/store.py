"""The progress store: one SQLite file in the data directory.

Durability rules, because a learner's history is the product:
- WAL mode and one transaction per answer, committed before its feedback is shown; a kill -9
  loses at most the answer being typed.
- The review log is the truth. Per-item scheduling state (`card_state`) is a cache rebuilt by
  replaying an item's log through FSRS, so undo and importing another machine's log are exact.
- A file that is not ours (corrupt, or another program's SQLite) is moved aside with a
  timestamp, never deleted; a file from a newer schema is refused untouched.
- Two app instances may write at once: writers wait on the lock (in slices, telling the learner
  after the first one) instead of failing.
- An SQLite error at open is not proof of corruption: a full disk, a read-only file or directory,
  a lock or an I/O error leave the file where it is and end in one line. Only a file SQLite calls
  damaged (or one that is not ours) is moved aside. On a read-only data directory the store opens
  read-only (`mode=ro`), so reports keep working; writes then fail with one line.
- Every committed write is checkpointed into progress.db at once (a passive checkpoint), so an
  acknowledged answer does not live only in the -wal file that a cleanup tool might delete.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from studyapp.errors import StudyappError
from studyapp.progress.scheduler import Grade, ItemSchedule, replay

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


class StoreWriteError(StoreError):
    """A write did not reach the file (disk full, read-only, locked too long, I/O error).

    Nothing was changed by it: the transaction was rolled back. The caller may keep what it
    wanted to write and try again later (the quiz does, see `save_answer`)."""


# SQLite primary result codes (sqlite3.h). Only the first two say "this file is damaged".
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_DAMAGED_FILE_CODES = {_SQLITE_CORRUPT, _SQLITE_NOTADB}
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_AUTH = 10, 13, 14, 23
_BUSY_CODES = {_SQLITE_BUSY, _SQLITE_LOCKED}
_NO_SPACE_CODES = {_SQLITE_FULL, _SQLITE_IOERR}
_NOT_WRITABLE_CODES = {_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PERM, _SQLITE_AUTH}

LOCK_SLICE_S = 1.0  # how long SQLite itself waits for a lock before we say "waiting for …"
LOCK_WAIT_S = 120.0  # how long in all before giving up (STUDYAPP_LOCK_WAIT_S overrides)
_LOW_DISK_BYTES = 1 << 20  # less free space than this makes an I/O error read as "disk full"


def sqlite_code(exc: BaseException) -> int:
    """The primary SQLite result code of an sqlite3 error (0 when it has none)."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


_MIN_FREE_TO_WRITE = 64 << 10  # a few answers' worth of WAL frames and checkpointed pages


def _free_bytes(path: Path) -> int:
    try:
        return shutil.disk_usage(path.parent).free
    except OSError:
        return 1 << 62  # unknown: let SQLite find out


def _disk_nearly_full(path: Path) -> bool:
    return _free_bytes(path) < _LOW_DISK_BYTES


def environment_problem(path: Path, exc: sqlite3.Error) -> str:
    """One line for an SQLite error that is about the machine, not about the file's contents."""
    code = sqlite_code(exc)
    if code in _BUSY_CODES:
        return f"{path} is locked by another program; try again when it has finished"
    if code == _SQLITE_FULL or (code in (_SQLITE_IOERR, _SQLITE_CANTOPEN) and _disk_nearly_full(path)):
        return f"the disk holding {path} is full; free some space and try again"
    if code in _NOT_WRITABLE_CODES:
        return f"{path} cannot be written (read-only file or directory, or no permission)"
    if code == _SQLITE_IOERR:
        return f"cannot use {path}: disk I/O error ({exc})"
    return f"cannot use {path}: {exc}"


def _lock_wait_limit() -> float:
    try:
        value = float(os.environ.get("STUDYAPP_LOCK_WAIT_S", LOCK_WAIT_S))
    except ValueError:
        return LOCK_WAIT_S
    return value if 0 <= value <= 24 * 3600 else LOCK_WAIT_S


class _Busy(Exception):
    """Internal: the file is locked; the caller waits and tries again."""


WaitNotice = Callable[[str], None]


@dataclass(frozen=True)
class SavedAnswer:
    """What `save_answer` did: the item's schedule (from the store, or computed in memory when
    the write failed) and, if it failed, one line saying why."""

    review: Review
    schedule: ItemSchedule
    problem: str | None = None

    @property
    def saved(self) -> bool:
        return self.problem is None


class ProgressStore:
    """All reads and writes of the learner's progress."""

    def __init__(
        self,
        path: Path,
        clock: Clock = utc_now,
        *,
        read_only_ok: bool = False,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self.path = path
        self.clock = clock
        self.notice: str | None = None  # one line for the learner, e.g. where a bad file went
        self.on_wait = on_wait  # told once per wait when another program holds the lock
        self.lock_wait_s = _lock_wait_limit()
        self.read_only = False  # opened with mode=ro: reports work, writes raise StoreWriteError
        self.unsaved: list[Review] = []  # answers whose write failed, oldest first; retried
        self._checkpoint_due = False  # committed writes not yet copied from the -wal
        self._read_only_ok = read_only_ok
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # a file, /dev/null
            raise StoreError(
                f"cannot use data directory {path.parent}: it exists and is not a directory"
            ) from None
        except OSError as exc:  # below a file, too long a name, read-only, no permission
            raise StoreError(f"cannot use data directory {path.parent}: {exc.strerror or exc}") from None
        if not path.parent.is_dir():
            raise StoreError(f"cannot use data directory {path.parent}: not a directory")
        if not read_only_ok and _free_bytes(path) < _MIN_FREE_TO_WRITE:
            # SQLite may open a full disk fine (its -wal/-shm files exist) and fail at the first
            # answer; a session that cannot save is better refused before its first question.
            raise StoreError(
                f"the disk holding {path} is full; free some space and try again (nothing was changed)"
            )
        self._db = self._wait_for_lock(self._open)

    @classmethod
    def in_dir(
        cls,
        data_dir: Path,
        clock: Clock = utc_now,
        *,
        read_only_ok: bool = False,
        on_wait: WaitNotice | None = None,
    ) -> ProgressStore:
        return cls(data_dir / DB_NAME, clock, read_only_ok=read_only_ok, on_wait=on_wait)

    # -- waiting for another program's lock ----------------------------------------------------
    def _wait_for_lock(self, attempt: Callable[[], Any]) -> Any:
        """Run `attempt` until it stops failing with SQLITE_BUSY, telling the learner once.

        SQLite's own busy timeout is one short slice, so a long wait is visible instead of a
        silent freeze followed by a failure."""
        started = time.monotonic()
        announced = False
        while True:
            try:
                return attempt()
            except _Busy:
                waited = time.monotonic() - started
                if waited >= self.lock_wait_s:
                    raise StoreWriteError(
                        f"{self.path} is locked by another program (waited {waited:.0f} s); "
                        "try again when it has finished"
                    ) from None
                if not announced and self.on_wait is not None:
                    announced = True
                    self.on_wait(
                        f"waiting for another program that is using {self.path} "
                        f"(up to {self.lock_wait_s:.0f} s; it holds the lock)"
                    )
                time.sleep(0.05)

    # -- opening, validating, migrating ------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=LOCK_SLICE_S, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute(f"PRAGMA busy_timeout = {int(LOCK_SLICE_S * 1000)}")
        return db

    def _connect_read_only(self) -> sqlite3.Connection:
        """A read-only connection for a data directory we may not write (no -shm can be made).

        `mode=ro` works when the -wal/-shm files exist; with neither, SQLite needs `immutable=1`
        (safe then: there is no WAL content it could miss)."""
        uri = self.path.resolve().as_uri()
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise
            db = sqlite3.connect(
                f"{uri}?immutable=1", uri=True, isolation_level=None, check_same_thread=False
            )
        db.row_factory = sqlite3.Row
        return db

    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir() or (self.path.is_symlink() and not self.path.exists()):
            return self._move_aside("it is not a readable SQLite database (not a regular file)")
        existed = self.path.exists() and self.path.stat().st_size > 0
        if existed and not (os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)):
            # SQLite would open it anyway (read-only, silently) and fail at the first answer.
            # os.access sees a read-only mount and chattr +i even for root.
            problem = f"{self.path} cannot be written (read-only file or directory, or no permission)"
            if self._read_only_ok:
                return self._open_read_only(problem)
            raise StoreError(problem + "; the file was left untouched")
        db: sqlite3.Connection | None = None
        try:
            db = self._connect()
            moved = self._check_identity(db, existed, can_move=True)
            if moved is not None:
                return moved
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            self._migrate(db, db.execute("PRAGMA user_version").fetchone()[0])
            self._check_schema(db)
            # A file we can read but not write (chattr +i, read-only mount with a pending WAL)
            # opens without complaint; find out now rather than at the learner's first answer.
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute("ROLLBACK")
            except sqlite3.OperationalError as exc:
                if sqlite_code(exc) not in _BUSY_CODES:  # locked: writable, just busy now
                    raise
            self._checkpoint(db)
            return db
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            code = sqlite_code(exc)
            # Only a file SQLite itself calls damaged is moved aside. A full disk, a read-only
            # or unreadable file or directory, a lock or an I/O error says nothing about the
            # file: moving a healthy history aside there is how learners lost it (issue 9).
            if code in _DAMAGED_FILE_CODES:
                return self._move_aside(f"it is not a readable SQLite database ({exc})")
            if code in _BUSY_CODES:
                raise _Busy from None
            if existed and self._read_only_ok and code in _NOT_WRITABLE_CODES | _NO_SPACE_CODES:
                return self._open_read_only(environment_problem(self.path, exc))
            raise StoreError(environment_problem(self.path, exc) + "; the file was left untouched") from None
        except StoreError:
            if db is not None:
                db.close()
            raise

    def _open_read_only(self, problem: str) -> sqlite3.Connection:
        try:
            db = self._connect_read_only()
            self._check_identity(db, existed=True, can_move=False)
            if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                db.close()
                raise StoreError(
                    f"{self.path} needs an upgrade of its format but cannot be written "
                    "(read-only file or directory); the file was left untouched"
                )
            self._check_schema(db)
        except sqlite3.DatabaseError as exc:
            if sqlite_code(exc) in _BUSY_CODES:
                raise _Busy from None
            raise StoreError(environment_problem(self.path, exc) + "; the file was left untouched") from None
        self.read_only = True
        self.notice = f"{problem}: showing your progress read-only, nothing will be saved"
        return db

    def _check_identity(
        self, db: sqlite3.Connection, existed: bool, can_move: bool
    ) -> sqlite3.Connection | None:
        """Ours and not from the future? Moves a foreign file aside (returns the fresh store)."""
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if existed and (app_id != APPLICATION_ID or tables == 0) and not (app_id == 0 and tables == 0):
            db.close()
            if not can_move:
                raise StoreError(
                    f"{self.path} is not a studyapp progress file; it was left as it is "
                    "(the directory is read-only)"
                )
            return self._move_aside("it is not a studyapp progress file")
        if version > SCHEMA_VERSION:
            db.close()
            raise StoreError(
                f"{self.path} was written by a newer studyapp (schema {version} > {SCHEMA_VERSION}); "
                "upgrade studyapp — the file was left untouched"
            )
        if existed and db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            db.close()
            if not can_move:
                raise StoreError(f"{self.path} failed SQLite's integrity check; it was left as it is")
            return self._move_aside("it failed SQLite's integrity check")
        return None

    def _check_schema(self, db: sqlite3.Connection) -> None:
        """Every table and column this version reads must be there: a file of ours whose schema
        was edited (a dropped table, a renamed column) gets one line, and is left untouched."""
        for table, columns in _expected_schema().items():
            present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if not present:
                problem = f"table {table} is missing"
            elif missing := [c for c in columns if c not in present]:
                problem = f"table {table} lacks column {', '.join(missing)}"
            else:
                continue
            db.close()
            raise StoreError(
                f"{self.path} is damaged ({problem}); the file was left untouched — "
                "restore a backup, or move it away to start afresh"
            )

    def _move_aside(self, reason: str) -> sqlite3.Connection:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.bad-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.bad-{stamp}-{counter}")
            counter += 1
        try:
            os.replace(self.path, target)
            for suffix in ("-wal", "-shm"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    os.replace(side, target.with_name(target.name + suffix))
        except OSError as exc:
            raise StoreError(
                f"{self.path} is not usable ({reason}) and could not be moved aside: {exc.strerror or exc}"
            ) from None
        self.notice = f"progress file was moved to {target} because {reason}; starting a fresh one"
        try:
            db = self._connect()
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            self._migrate(db, 0)
            self._checkpoint(db)
        except sqlite3.DatabaseError as exc:
            if sqlite_code(exc) in _BUSY_CODES:
                raise _Busy from None
            raise StoreError(
                f"progress file was moved to {target} because {reason}, but a fresh one cannot be "
                f"made: {environment_problem(self.path, exc)}"
            ) from None
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

    def _checkpoint(self, db: sqlite3.Connection) -> None:
        """Copy committed pages from the -wal into progress.db (PASSIVE: never waits, never
        blocks a reader). If it cannot run now the data is still safe in the WAL."""
        if self.read_only:
            return
        with suppress(sqlite3.Error):
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _begin(self) -> None:
        def attempt() -> None:
            try:
                # Read-only: a deferred BEGIN still lets the reads inside run.
                self._db.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if sqlite_code(exc) in _BUSY_CODES:
                    raise _Busy from None
                raise

        self._wait_for_lock(attempt)

    @contextmanager
    def transaction(self, checkpoint: bool = True) -> Iterator[sqlite3.Connection]:
        """One atomic write: BEGIN IMMEDIATE takes the write lock up front, so no deadlocks.

        An SQLite failure (disk full, read-only, I/O error) rolls back and raises one line as
        StoreWriteError. A committed write is checkpointed into progress.db straight away, or,
        with `checkpoint=False`, by the next `checkpoint()` call or the next write (the quiz
        does it after the feedback is on screen: the fsync is not in the key → feedback time)."""
        try:
            self._begin()
        except sqlite3.Error as exc:
            raise StoreWriteError(environment_problem(self.path, exc)) from None
        changes = self._db.total_changes
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as exc:
            if self._db.in_transaction:
                with suppress(sqlite3.Error):  # SQLite may have rolled back itself (disk full)
                    self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error) and not isinstance(
                exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)
            ):
                raise StoreWriteError(environment_problem(self.path, exc)) from None
            raise
        if self._db.total_changes != changes:
            self._checkpoint_due = True
        if checkpoint:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Checkpoint the writes committed since the last one (cheap when there are none)."""
        if self._checkpoint_due:
            self._checkpoint_due = False
            self._checkpoint(self._db)

    def close(self) -> None:
        self.checkpoint()
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
        if not value:
            return None
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise StoreError(
                f"the stored exam date is damaged ({value[:40]!r}); set it again with "
                "studyapp quiz --exam-date YYYY-MM-DD"
            ) from None

    def set_exam_date(self, value: date | None) -> None:
        self.set_meta("exam_date", value.isoformat() if value else None)

    # -- reviews -----------------------------------------------------------------------------
    def new_review(
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
    ) -> Review:
        """One answer, not yet written (its uid makes writing it twice harmless)."""
        return Review(
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

    def record_answer(self, item_id: str, **fields: Any) -> tuple[Review, ItemSchedule]:
        """Log one answer and update the item's schedule, atomically. Returns both.

        Raises StoreWriteError when the write fails; `save_answer` keeps the answer instead."""
        review = self.new_review(item_id, **fields)
        return review, self._write_review(review)

    def _write_review(self, review: Review, checkpoint: bool = True) -> ItemSchedule:
        with self.transaction(checkpoint=checkpoint) as db:
            self._insert_review(db, review)
            schedule = self._rebuild_state(db, review.item_id)
        assert schedule is not None
        return schedule

    def save_answer(self, review: Review, checkpoint: bool = True) -> SavedAnswer:
        """Write an answer; if that fails, keep it in memory (with earlier unsaved ones, in
        order) and say why in one line. Every later save first retries the waiting ones."""
        try:
            self.flush_unsaved()
            return SavedAnswer(review, self._write_review(review, checkpoint))
        except StoreWriteError as exc:
            self.unsaved.append(review)
            return SavedAnswer(review, self._schedule_in_memory(review.item_id), problem=str(exc))

    def flush_unsaved(self) -> int:
        """Write the answers kept after a failed write, oldest first. Returns how many were
        written; raises StoreWriteError (keeping the rest) if it still fails."""
        written = 0
        while self.unsaved:
            self._write_review(self.unsaved[0])
            self.unsaved.pop(0)
            written += 1
        return written

    def _schedule_in_memory(self, item_id: str) -> ItemSchedule:
        """The schedule an item would have with its unsaved answers (for the feedback line)."""
        try:
            stored = self.reviews(item_id)
        except (StoreError, sqlite3.Error):
            stored = []
        pending = [r for r in self.unsaved if r.item_id == item_id]
        schedule = self._schedule_of(item_id, stored + pending)
        assert schedule is not None
        return schedule

    def unsaved_export(self) -> dict[str, Any]:
        """The unsaved answers as a progress export, for `studyapp progress --import-data`."""
        return {
            "format": "studyapp-progress",
            "schema": SCHEMA_VERSION,
            "exported_at": to_iso(self.clock()),
            "reviews": [_review_to_row(r) for r in self.unsaved],
        }

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
        schedule = self._schedule_of(item_id, reviews)
        assert schedule is not None
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

    @staticmethod
    def _schedule_of(item_id: str, reviews: list[Review]) -> ItemSchedule | None:
        if not reviews:
            return None
        reviews = sorted(reviews, key=lambda r: r.reviewed_at)
        last = reviews[-1]
        return replace(
            replay(item_id, [(r.reviewed_at, Grade(r.rating)) for r in reviews]),
            reviews=len(reviews),
            lapses=sum(not r.correct for r in reviews),
            last_correct=last.correct,
            text_hash=last.text_hash,
        )

    def undo_last(self, session_id: str | None = None) -> Review | None:
        """Remove the most recent answer (of a session, if given) and restore the item's schedule."""
        for index in range(len(self.unsaved) - 1, -1, -1):  # unsaved answers are the newest
            if session_id is None or self.unsaved[index].session_id == session_id:
                return self.unsaved.pop(index)
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
        try:
            return {row["item_id"]: ItemSchedule.from_row(row) for row in rows}
        except (TypeError, ValueError, KeyError, OverflowError, RecursionError):
            raise StoreError(
                "the progress file has a damaged row in card_state; the file was left untouched"
            ) from None

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
                started_at=stored_time(r["started_at"], "lab_runs.started_at"),
                ended_at=stored_time(r["ended_at"], "lab_runs.ended_at") if r["ended_at"] else None,
                status=r["status"],
                summary=r["summary"],
                artifact_dir=r["artifact_dir"],
                result=stored_json(r["result_json"], "lab_runs.result_json") if r["result_json"] else None,
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
        return {
            r["lab"]: (bool(r["correct"]), stored_time(r["answered_at"], "lab_answers.answered_at"))
            for r in rows
        }

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
                current[r["checklist_id"]] = stored_time(r["checked_at"], "self_checks.checked_at")
            else:
                current.pop(r["checklist_id"], None)
        return current

    # -- moving between machines --------------------------------------------------------------
    def export_data(self) -> dict[str, Any]:
        """Everything the learner did, as plain JSON data (card_state is derived, so left out)."""

        def table(name: str) -> list[dict[str, Any]]:
            order = "id" if name != "exercise_hints" else "exercise_id"
            rows = [dict(r) for r in self._db.execute(f"SELECT * FROM {name} ORDER BY {order}")]
            for row in rows:
                row.pop("id", None)
            return rows

        data: dict[str, Any] = {
            "format": "studyapp-progress",
            "schema": SCHEMA_VERSION,
            "exported_at": to_iso(self.clock()),
        }
        for name in EXPORT_TABLES:
            data[name] = table(name)
        exam = self.exam_date()
        data["exam_date"] = exam.isoformat() if exam else None
        return data

    def import_data(self, data: Any) -> dict[str, int]:
        """Merge an export into this store, all or nothing; rows already present are skipped.

        Every field a later command reads is checked first (`validate_export`): a file that
        would break `progress`, `quiz` or `lab list` afterwards is refused whole, in one line."""
        validate_export(data, latest=max(self.clock(), utc_now()) + _IMPORT_CLOCK_SKEW)
        added = {name: 0 for name in EXPORT_TABLES}
        with self.transaction() as db:
            touched: set[str] = set()
            for row in data["reviews"]:
                review = _review_from_export(row)
                if self._insert_review(db, review):
                    added["reviews"] += 1
                    touched.add(review.item_id)
            for item_id in touched:
                self._rebuild_state(db, item_id)
            for name, columns in _PLAIN_TABLES.items():
                names = list(columns)
                if name == "exercise_hints":  # one row per exercise: keep the most revealed
                    conflict = (
                        "ON CONFLICT(exercise_id) DO UPDATE SET revealed = excluded.revealed,"
                        " updated_at = excluded.updated_at WHERE excluded.revealed > revealed"
                    )
                else:  # NOT NULL failures still raise: only a repeated uid is skipped
                    conflict = "ON CONFLICT(uid) DO NOTHING"
                insert = f"INSERT INTO {name}({', '.join(names)}) VALUES ({', '.join('?' * len(names))}) {conflict}"
                for row in data.get(name, []):
                    cursor = db.execute(insert, [_to_sql(row.get(column)) for column in names])
                    added[name] += cursor.rowcount
            if data.get("exam_date") and not self.get_meta("exam_date"):
                db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('exam_date', ?)",
                    (_exam_date_value(data["exam_date"]).isoformat(),),
                )
        return added


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
    "exercise_hints": {"exercise_id": _ID, "revealed": _INT, "updated_at": _TIME},
}
EXPORT_TABLES = ("reviews", *_PLAIN_TABLES)

_SQLITE_INT_MIN, _SQLITE_INT_MAX = -(2**63), 2**63 - 1
_EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)  # before studyapp (and FSRS) existed
_IMPORT_CLOCK_SKEW = timedelta(days=1)  # another machine's clock may run a little ahead
_MAX_TEXT = 1 << 20  # one field of an export: 1 MiB is far beyond any real answer or summary


class _BadField(Exception):
    pass


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
        if base == "time":
            try:
                moment = from_iso(value)
            except (ValueError, OverflowError):
                raise _BadField(f"is not a date and time: {value[:40]!r}") from None
            if not _EARLIEST <= moment <= latest:
                raise _BadField(f"is out of range (before 2000 or in the future): {value[:40]!r}")
        if base in ("json", "object"):
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                raise _BadField("is not valid JSON text") from None
            if base == "object" and not isinstance(parsed, dict):
                raise _BadField("is not the JSON text of an object")
        return
    if base in ("bool", "int", "rating"):
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            raise _BadField(f"must be a whole number, not {type(value).__name__}")
        if base == "bool" and value not in (0, 1):
            raise _BadField(f"must be 0 or 1, not {value}")
        if base == "rating" and value not in {int(g) for g in Grade}:
            raise _BadField(f"is not a rating: {value}")
        if not _SQLITE_INT_MIN <= value <= _SQLITE_INT_MAX:
            raise _BadField("is too large")
        return
    if base == "real":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise _BadField(f"must be a finite number, not {value!r:.40}")
        return
    raise AssertionError(kind)  # pragma: no cover - a column kind without a check


def validate_export(data: Any, latest: datetime | None = None) -> None:
    """Refuse anything that is not a well-formed export before touching the store."""
    latest = latest or utc_now() + _IMPORT_CLOCK_SKEW
    if not isinstance(data, dict) or data.get("format") != "studyapp-progress":
        raise StudyappError('not a studyapp progress export (missing "format": "studyapp-progress")')
    schema = data.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or not 1 <= schema <= SCHEMA_VERSION:
        raise StudyappError(f"progress export has unsupported schema {schema!r:.40}")
    if "reviews" not in data:
        raise StudyappError("progress export: 'reviews' is missing")
    tables = {"reviews": _REVIEW_COLUMNS, **_PLAIN_TABLES}
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
                except _BadField as bad:
                    raise StudyappError(f"progress export: {name}[{index}].{column} {bad}") from None
    exam = data.get("exam_date")
    if exam is not None and exam != "":
        try:
            _exam_date_value(exam)
        except ValueError:
            raise StudyappError(
                f"progress export: exam_date is not a date (YYYY-MM-DD): {exam!r:.40}"
            ) from None


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


def stored_time(value: Any, where: str) -> datetime:
    """A date read back from the store; a tampered one is one line, not an internal error."""
    try:
        return from_iso(value)
    except (TypeError, ValueError, OverflowError):
        raise StoreError(
            f"the progress file has a damaged value in {where}: {str(value)[:40]!r}; "
            "the file was left untouched"
        ) from None


def stored_json(value: Any, where: str) -> Any:
    try:
        return json.loads(value)
    except (TypeError, ValueError, RecursionError):
        raise StoreError(
            f"the progress file has a damaged value in {where} (not JSON); the file was left untouched"
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
        reviewed_at=stored_time(row["reviewed_at"], "reviews.reviewed_at"),
        response_ms=row["response_ms"],
        text_hash=row["text_hash"],
    )


@functools.cache
def _expected_schema() -> dict[str, list[str]]:
    """Table → columns, as the migrations make them (built once per process, in memory)."""
    scratch = sqlite3.connect(":memory:")
    for migration in MIGRATIONS:
        scratch.executescript(migration)
    names = [r[0] for r in scratch.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    schema = {
        name: [r[1] for r in scratch.execute(f"PRAGMA table_info({name})")]
        for name in names
        if not name.startswith("sqlite_")
    }
    scratch.close()
    return schema
