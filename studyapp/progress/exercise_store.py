"""Exercise progress in the store: every check (table `exercise_checks`), revealed hints
(`exercise_hints`), where each workspace is and when a solution was shown (the `meta` table).

All access goes through `ProgressStore.transaction()`, so these rows follow the store's rules
(WAL, one atomic write each, writers wait on the lock).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from studyapp.ids import new_id
from studyapp.progress.store import ProgressStore, stored_time, to_iso

WORKSPACE_KEY = "exercise.workspace.{id}"
SOLUTION_KEY = "exercise.solution_seen.{id}"
DECISIVE = ("passed", "failed")  # verdicts that say something about the learner's code


@dataclass(frozen=True)
class ExerciseCheck:
    uid: str
    exercise_id: str
    checker_hash: str
    verdict: str  # passed | failed | undecided | error | timeout | interrupted | usage
    passed: bool
    details: dict[str, Any] | None
    duration_s: float | None
    checked_at: datetime
    forged_passes: int = 0  # passes that appeared in the store while this check ran (record_check)


def passed_check_uids(store: ProgressStore) -> frozenset[str]:
    """The uids of every passed check now in the store: taken before the learner's code runs, so
    `record_check` can tell a pass that appeared meanwhile from one studyapp recorded."""
    with store.transaction() as db:
        return frozenset(row[0] for row in db.execute("SELECT uid FROM exercise_checks WHERE passed = 1"))


def record_check(
    store: ProgressStore,
    exercise_id: str,
    checker_hash: str,
    verdict: str,
    details: dict[str, Any] | None,
    duration_s: float | None,
    passed_before: frozenset[str] | None = None,
) -> ExerciseCheck:
    """Store one check, as the checker's verdict came to studyapp.

    `passed_before` (from `passed_check_uids` before the check ran): a pass that is in the store now
    but was not then was written while the learner's code ran — that code runs as the learner and
    can open the store — so it is not counted: it becomes an `error` check (`forged_passes` counts
    them). A check another studyapp recorded at that very moment is caught too; checking that
    exercise again counts it.
    """
    check = ExerciseCheck(
        uid=new_id(),
        exercise_id=exercise_id,
        checker_hash=checker_hash,
        verdict=verdict,
        passed=verdict == "passed",
        details=details,
        duration_s=duration_s,
        checked_at=store.clock(),
    )
    with store.transaction() as db:
        db.execute(
            "INSERT INTO exercise_checks(uid, exercise_id, checker_hash, verdict, passed, details_json,"
            " duration_s, checked_at) VALUES (?,?,?,?,?,?,?,?)",
            (
                check.uid,
                exercise_id,
                checker_hash,
                verdict,
                int(check.passed),
                json.dumps(details, ensure_ascii=False) if details is not None else None,
                duration_s,
                to_iso(check.checked_at),
            ),
        )
        if passed_before is not None:
            appeared = [
                uid
                for (uid,) in db.execute(
                    "SELECT uid FROM exercise_checks WHERE passed = 1 AND uid != ?", (check.uid,)
                )
                if uid not in passed_before
            ]
            db.executemany(
                "UPDATE exercise_checks SET passed = 0, verdict = 'error' WHERE uid = ?",
                [(u,) for u in appeared],
            )
            check = dataclasses.replace(check, forged_passes=len(appeared))
    return check


def checks(store: ProgressStore, exercise_id: str | None = None) -> list[ExerciseCheck]:
    """Recorded checks, oldest first."""
    query, params = "SELECT * FROM exercise_checks", ()
    if exercise_id is not None:
        query, params = query + " WHERE exercise_id = ?", (exercise_id,)
    with store.transaction() as db:
        rows = db.execute(query + " ORDER BY checked_at, id", params).fetchall()
    result = []
    for row in rows:
        try:
            details = json.loads(row["details_json"]) if row["details_json"] else None
        except ValueError:
            details = None
        result.append(
            ExerciseCheck(
                uid=row["uid"],
                exercise_id=row["exercise_id"],
                checker_hash=row["checker_hash"],
                verdict=row["verdict"],
                passed=bool(row["passed"]),
                details=details if isinstance(details, dict) else None,
                duration_s=row["duration_s"],
                checked_at=stored_time(row["checked_at"], "exercise_checks.checked_at"),
            )
        )
    return result


def checks_by_exercise(store: ProgressStore) -> dict[str, list[ExerciseCheck]]:
    grouped: dict[str, list[ExerciseCheck]] = {}
    for check in checks(store):
        grouped.setdefault(check.exercise_id, []).append(check)
    return grouped


def hints_revealed(store: ProgressStore, exercise_id: str) -> int:
    with store.transaction() as db:
        row = db.execute(
            "SELECT revealed FROM exercise_hints WHERE exercise_id = ?", (exercise_id,)
        ).fetchone()
    return (
        max(0, int(row["revealed"])) if row else 0
    )  # a negative count (imported by an older studyapp) is none


def reveal_next_hint(store: ProgressStore, exercise_id: str, available: int) -> int:
    """Reveal one more hint (never past `available`); returns how many are revealed now."""
    with store.transaction() as db:
        row = db.execute(
            "SELECT revealed FROM exercise_hints WHERE exercise_id = ?", (exercise_id,)
        ).fetchone()
        revealed = min(available, (max(0, int(row["revealed"])) if row else 0) + 1)
        db.execute(
            "INSERT OR REPLACE INTO exercise_hints(exercise_id, revealed, updated_at) VALUES (?,?,?)",
            (exercise_id, revealed, to_iso(store.clock())),
        )
    return revealed


def _get_meta(store: ProgressStore, key: str) -> str | None:
    with store.transaction() as db:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row["value"]) if row else None


def _set_meta(store: ProgressStore, key: str, value: str) -> None:
    with store.transaction() as db:
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


def workspace(store: ProgressStore, exercise_id: str) -> Path | None:
    """The workspace `start` made for this exercise, if it was recorded."""
    value = _get_meta(store, WORKSPACE_KEY.format(id=exercise_id))
    return Path(value) if value else None


def set_workspace(store: ProgressStore, exercise_id: str, path: Path) -> None:
    _set_meta(store, WORKSPACE_KEY.format(id=exercise_id), str(path))


def solution_seen_at(store: ProgressStore, exercise_id: str) -> datetime | None:
    value = _get_meta(store, SOLUTION_KEY.format(id=exercise_id))
    return stored_time(value, "meta.exercise.solution_seen") if value else None


def mark_solution_seen(store: ProgressStore, exercise_id: str) -> None:
    """Remember the first time the solution was shown (a pass after it is weaker evidence)."""
    if solution_seen_at(store, exercise_id) is None:
        _set_meta(store, SOLUTION_KEY.format(id=exercise_id), to_iso(store.clock()))
