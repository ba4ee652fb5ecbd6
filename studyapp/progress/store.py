"""The learner's progress: answers and their schedules, lab runs, check answers, self-checks and
settings, in one SQLite file in the data directory.

`ProgressStore` is the one object the rest of studyapp uses. How the file is opened, checked,
migrated and written, and the durability rules that go with it, are `studyapp.progress.db`
(`ProgressDB`, which it builds on); moving progress between machines is
`studyapp.progress.transfer`.

The review log is the truth; `card_state` is a cache rebuilt from it (the second of the
durability rules in `studyapp.progress.db`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from studyapp.clock import now_utc
from studyapp.ids import new_id
from studyapp.progress.db import DB_NAME, ProgressDB, StoreError, StoreWriteError, WaitNotice
from studyapp.progress.scheduler import Grade, ItemSchedule, replay

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The store's default clock: the system's, or `STUDYAPP_NOW` (studyapp/clock.py)."""
    return now_utc()


def to_iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(timezone.utc)


# Rows as NamedTuples, not frozen dataclasses: equally immutable, without the six methods a frozen
# dataclass compiles at import (~0.8 ms a class on the quiz's start path, benchmarks/startup.py).
class ReviewTotals(NamedTuple):
    reviews: int
    right: int
    answers: int  # a 4-choice answer (one review per option) counts once


class Review(NamedTuple):
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


class LabRun(NamedTuple):
    uid: str
    lab: str
    started_at: datetime
    ended_at: datetime | None
    status: str
    summary: str | None
    artifact_dir: str | None
    result: dict[str, Any] | None


class SavedAnswer(NamedTuple):
    """What `save_answer` did: the item's schedule (from the store, or computed in memory when
    the write failed) and, if it failed, one line saying why."""

    review: Review
    schedule: ItemSchedule
    problem: str | None = None

    @property
    def saved(self) -> bool:
        return self.problem is None


class ProgressStore(ProgressDB):
    """All reads and writes of the learner's progress."""

    def __init__(
        self,
        path: Path,
        clock: Clock = utc_now,
        *,
        read_only_ok: bool = False,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self.clock = clock
        self.unsaved: list[Review] = []  # answers whose write failed, oldest first; retried
        super().__init__(path, read_only_ok=read_only_ok, on_wait=on_wait)

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
            uid=new_id(),
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

    def merge_reviews(self, db: sqlite3.Connection, reviews: list[Review]) -> int:
        """Insert, inside the caller's transaction, the reviews not already here (by uid) and
        rebuild the schedule of every item they touch. Returns how many were new."""
        touched: set[str] = set()
        added = 0
        for review in reviews:
            if self._insert_review(db, review):
                added += 1
                touched.add(review.item_id)
        for item_id in touched:
            self._rebuild_state(db, item_id)
        return added

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

    def reviewed_items(self) -> list[str]:
        return [row[0] for row in self._db.execute("SELECT DISTINCT item_id FROM reviews")]

    def reviews_bounded(self, first: int, last: int, items: Iterable[str] | None = None) -> list[Review]:
        """Each item's first `first` and last `last` reviews (of `items`, every reviewed item by
        default), oldest first: what the exam prediction reads (report/recall_model.bounded),
        without loading a heavy store whole. Two short walks of the (item_id, reviewed_at) index
        an item: 10⁶ reviews in ~0.1 s."""
        rows: dict[int, sqlite3.Row] = {}
        for item_id in self.reviewed_items() if items is None else items:
            for order, count in (("", first), (" DESC", last)):
                for row in self._db.execute(
                    f"SELECT * FROM reviews WHERE item_id = ? ORDER BY reviewed_at{order}, id{order} LIMIT ?",
                    (item_id, count),
                ):
                    rows[row["id"]] = row
        ordered = sorted(rows.values(), key=lambda row: (row["reviewed_at"], row["id"]))
        return [_review_from_row(r) for r in ordered]

    def review_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM reviews").fetchone()[0])

    # Aggregates for the reports and Home: asked of SQLite so that a heavy store (10⁶ reviews) is
    # never turned into Review objects whole (~40 s before, reliability review M1).
    def review_totals(self) -> ReviewTotals:
        """Reviews stored, how many were right, and answers: a 4-choice answer is stored as one
        review per option with one time and session, and counts once (N24)."""
        reviews, right, choice_reviews = self._db.execute(
            "SELECT count(*), coalesce(sum(correct != 0), 0), coalesce(sum(kind = 'choice'), 0) FROM reviews"
        ).fetchone()
        choice_answers = 0
        if choice_reviews:  # a second walk only where there are 4-choice answers to group
            choice_answers = self._db.execute(
                "SELECT count(*) FROM (SELECT DISTINCT session_id, reviewed_at FROM reviews WHERE kind = 'choice')"
            ).fetchone()[0]
        return ReviewTotals(
            int(reviews), int(right), int(reviews) - int(choice_reviews) + int(choice_answers)
        )

    def newest_answers(self, item_ids: Iterable[str], limit: int) -> list[bool]:
        """Whether each of the newest `limit` reviews among `item_ids` was right, oldest first: one
        short walk of the (item_id, reviewed_at) index an item, then the newest of those."""
        newest: list[tuple[str, int, bool]] = []
        for item_id in item_ids:
            newest.extend(
                (row[0], row[1], bool(row[2]))
                for row in self._db.execute(
                    "SELECT reviewed_at, id, correct FROM reviews WHERE item_id = ?"
                    " ORDER BY reviewed_at DESC, id DESC LIMIT ?",
                    (item_id, limit),
                )
            )
        newest.sort()
        return [correct for _, _, correct in newest[len(newest) - limit :]] if limit else []

    def answered_between(self, start: datetime, end: datetime) -> bool:
        """Whether any review falls in [start, end)."""
        row = self._db.execute(
            "SELECT 1 FROM reviews WHERE reviewed_at >= ? AND reviewed_at < ? LIMIT 1",
            (to_iso(start), to_iso(end)),
        ).fetchone()
        return row is not None

    def answer_marks(self, since: datetime) -> list[tuple[datetime, bool]]:
        """(when, right) of every review since `since`, oldest first: what a per-day count needs."""
        rows = self._db.execute(
            "SELECT reviewed_at, correct FROM reviews WHERE reviewed_at >= ? ORDER BY reviewed_at, id",
            (to_iso(since),),
        ).fetchall()
        return [(stored_time(row[0], "reviews.reviewed_at"), bool(row[1])) for row in rows]

    def wrong_since(self, item_ids: Iterable[str], since: datetime, limit: int) -> list[str]:
        """The items of the first `limit` wrong answers among `item_ids` after `since`, oldest first."""
        ids = list(item_ids)
        if not ids or limit <= 0:
            return []
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(
            f"SELECT item_id FROM reviews WHERE item_id IN ({marks}) AND correct = 0 AND reviewed_at > ?"
            " ORDER BY reviewed_at, id LIMIT ?",
            (*ids, to_iso(since), limit),
        ).fetchall()
        return [row[0] for row in rows]

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
        uid = new_id()
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
                (new_id(), lab, answer, int(correct), to_iso(self.clock())),
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
                (new_id(), checklist_id, int(value), to_iso(self.clock())),
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
