"""The progress store's SQLite file: opened, checked to be ours, migrated, written one transaction
at a time. `ProgressDB` is the connection half of `studyapp.progress.store.ProgressStore`.

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
import os
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from studyapp.errors import StudyappError

APPLICATION_ID = 0x53545944  # "STYD": marks a SQLite file as a studyapp progress store
SCHEMA_VERSION = 2  # == len(MIGRATIONS)
DB_NAME = "progress.db"

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


# Python 3.10's sqlite3 errors carry no `sqlite_errorcode` (added in 3.11): there the code is read
# back from SQLite's own message for it (sqlite3_errstr's texts, stable across SQLite versions).
_CODE_BY_MESSAGE = (
    ("database disk image is malformed", _SQLITE_CORRUPT),
    ("file is not a database", _SQLITE_NOTADB),
    ("database is locked", _SQLITE_BUSY),
    ("database table is locked", _SQLITE_LOCKED),
    ("attempt to write a readonly database", _SQLITE_READONLY),
    ("disk i/o error", _SQLITE_IOERR),
    ("database or disk is full", _SQLITE_FULL),
    ("unable to open database file", _SQLITE_CANTOPEN),
    ("access permission denied", _SQLITE_PERM),
    ("authorization denied", _SQLITE_AUTH),
)


def sqlite_code(exc: BaseException) -> int:
    """The primary SQLite result code of an sqlite3 error (0 when it has none)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None and isinstance(exc, sqlite3.Error):  # Python 3.10
        text = str(exc).lower()
        return next((known for message, known in _CODE_BY_MESSAGE if text.startswith(message)), 0)
    return (code or 0) & 0xFF


_MIN_FREE_TO_WRITE = 64 << 10  # a few answers' worth of WAL frames and checkpointed pages


def _free_bytes(path: Path) -> int:
    try:
        return shutil.disk_usage(path.parent).free
    except OSError:
        return 1 << 62  # unknown: let SQLite find out


_UNFINISHED_MAX_BYTES = 64 << 10  # a new store's tables take a few pages of 4 KB


def _store_files(path: Path) -> tuple[Path, ...]:
    return (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"))


def _create_private(path: Path) -> bool:
    """Create an empty store file with mode 0600 before SQLite does (SQLite uses 0644 under the
    usual umask, and makes its -wal and -shm files with the store's mode). An empty file is a
    new database to SQLite. Where it cannot be made, SQLite's own open says why. True when this
    call made the file."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except OSError:
        return False
    return True


def _keep_private(path: Path) -> None:
    """A store made by an older studyapp is 0644: take the group's and others' bits away from
    the files that are ours. Never a reason to fail (a file of another user is left as it is)."""
    for file in _store_files(path):
        with suppress(OSError):
            info = os.lstat(file)
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and info.st_mode & 0o077:
                os.chmod(file, stat.S_IMODE(info.st_mode) & 0o700)


def _remove_unfinished(path: Path) -> None:
    """Remove a store file this open began and could not finish, with its -wal and -shm. Small
    only: a bigger one would have been filled by another studyapp meanwhile, and is kept."""
    with suppress(OSError):
        if os.lstat(path).st_size > _UNFINISHED_MAX_BYTES:
            return
        for file in _store_files(path):
            file.unlink(missing_ok=True)


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


class ProgressDB:
    """One progress file, open: the lock wait, the checks at open, transactions and checkpoints.

    `ProgressStore` builds on it with the queries; nothing else uses it directly."""

    def __init__(
        self,
        path: Path,
        *,
        read_only_ok: bool = False,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self.path = path
        self.notice: str | None = None  # one line for the learner, e.g. where a bad file went
        self.on_wait = on_wait  # told once per wait when another program holds the lock
        self.lock_wait_s = _lock_wait_limit()
        self.read_only = False  # opened with mode=ro: reports work, writes raise StoreWriteError
        self._checkpoint_due = False  # committed writes not yet copied from the -wal
        self._read_only_ok = read_only_ok
        try:
            # 0700: answers, explanations and exercise code are the learner's (review PERM.modes);
            # a folder that exists already is left as its owner set it
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
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
        if self.path.exists() and not stat.S_ISREG(self.path.stat().st_mode):
            # a FIFO or a device (a link to /dev/null) read as a "disk I/O error" to SQLite: say
            # what it is instead, and leave it where it is
            raise StoreError(f"cannot use {self.path}: it is not a regular file; the file was left untouched")
        existed = self.path.exists() and self.path.stat().st_size > 0
        if existed and not (os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)):
            # SQLite would open it anyway (read-only, silently) and fail at the first answer.
            # os.access sees a read-only mount and chattr +i even for root.
            problem = f"{self.path} cannot be written (read-only file or directory, or no permission)"
            if self._read_only_ok:
                return self._open_read_only(problem)
            raise StoreError(problem + "; the file was left untouched")
        created = not existed and _create_private(self.path)
        db: sqlite3.Connection | None = None
        try:
            db = self._connect()
            moved = self._check_identity(db, existed, can_move=True)
            if moved is not None:
                return moved
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            found = self._migrate(db, db.execute("PRAGMA user_version").fetchone()[0])
            # A file this call made from nothing holds exactly the migrations' tables and was just
            # written: the checks below are for files that lived before (and cost a first start
            # ~3 ms, benchmarks/startup.py --fresh).
            if found > 0:
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
            _keep_private(self.path)
            return db
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            code = sqlite_code(exc)
            if created and code in _NO_SPACE_CODES | _NOT_WRITABLE_CODES:
                # A store this call began and could not finish (a full disk: review L5) holds
                # no history; leaving its first page behind would only leave a broken file.
                _remove_unfinished(self.path)
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

    def _migrate(self, db: sqlite3.Connection, version: int) -> int:
        """Bring the file to the current schema; returns the version it was at (read under the
        write lock: 0 means this call created every table)."""
        if version >= len(MIGRATIONS):
            return version
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
            # On a full disk SQLite has already rolled back; a ROLLBACK then fails ("no
            # transaction is active") and would hide the real error (review L5).
            if db.in_transaction:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        return version

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

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """The rows of one read outside any transaction (it sees every committed write)."""
        return self._db.execute(sql, params).fetchall()


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
