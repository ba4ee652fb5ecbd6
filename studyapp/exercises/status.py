"""Where the learner stands on each exercise, from its recorded checks.

The same rules feed `studyapp exercise list`, the TUI and checklist readiness:
- a pass with the current checker (check.py + solution hash) is full evidence (1.0), or half when
  the solution had been shown before that first pass;
- a pass recorded against an older checker is stale (0.5) until it is checked again;
- a failing check after a pass (the learner broke it) drops it to 0.25;
- never passed: 0 ("not started" until the starter is copied, then "started" until the first
  check that decides). Verdicts that say nothing about the code (undecided: the machine was too busy,
  a checker error, a timeout, an interrupted run) change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from studyapp.exercises.registry import ExerciseInfo
from studyapp.exercises.workspace import default_workspace
from studyapp.progress import exercise_store
from studyapp.progress.exercise_store import DECISIVE, ExerciseCheck

NOT_STARTED = "not started"
STARTED = "started"  # the starter was copied; no check yet
FAILING = "failing"
PASSED = "passed"

SCORE_PASSED = 1.0
SCORE_AFTER_SOLUTION = 0.5
SCORE_STALE = 0.5
SCORE_BROKEN = 0.25


@dataclass(frozen=True)
class ExerciseStatus:
    exercise_id: str
    status: str  # not started | started | failing | passed
    score: float  # readiness evidence, 0–1
    stale: bool  # the latest pass was against an older checker
    broken: bool  # failing now after having passed
    checks: int
    last_verdict: str | None
    last_checked_at: datetime | None
    solution_first: bool  # the solution was shown before the pass that counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "score": self.score,
            "stale": self.stale,
            "broken": self.broken,
            "checks": self.checks,
            "last_verdict": self.last_verdict,
            "last_checked_at": self.last_checked_at.isoformat() if self.last_checked_at else None,
            "solution_first": self.solution_first,
        }


def exercise_status(
    info: ExerciseInfo,
    checks: list[ExerciseCheck],
    current_hash: str,
    solution_seen: datetime | None = None,
    started: bool = False,
) -> ExerciseStatus:
    """`checks` oldest first, all for this exercise; `started`: its workspace exists."""
    last = checks[-1] if checks else None
    decisive = [c for c in checks if c.verdict in DECISIVE]
    current = [c for c in decisive if c.checker_hash == current_hash]
    ever_passed = any(c.passed for c in decisive)
    stale = broken = solution_first = False
    if not checks:
        status, score = (STARTED if started else NOT_STARTED), 0.0
    elif current:
        latest = current[-1]
        if latest.passed:
            first_pass = next(c for c in current if c.passed)
            solution_first = solution_seen is not None and solution_seen <= first_pass.checked_at
            status, score = PASSED, SCORE_AFTER_SOLUTION if solution_first else SCORE_PASSED
        else:
            broken = ever_passed
            status, score = FAILING, SCORE_BROKEN if broken else 0.0
    elif decisive:
        stale = True
        if decisive[-1].passed:
            status, score = PASSED, SCORE_STALE
        else:
            broken = ever_passed
            status, score = FAILING, SCORE_BROKEN if broken else 0.0
    else:
        status, score = FAILING, 0.0
    return ExerciseStatus(
        exercise_id=info.id,
        status=status,
        score=score,
        stale=stale,
        broken=broken,
        checks=len(checks),
        last_verdict=last.verdict if last else None,
        last_checked_at=last.checked_at if last else None,
        solution_first=solution_first,
    )


def all_statuses(exercises: dict[str, ExerciseInfo], store: Any) -> dict[str, ExerciseStatus]:
    """Status of every exercise from one read of the store."""

    grouped = exercise_store.checks_by_exercise(store)
    return {
        exercise_id: exercise_status(
            info,
            grouped.get(exercise_id, []),
            info.checker_hash(),
            exercise_store.solution_seen_at(store, exercise_id),
            started=has_workspace(store, exercise_id),
        )
        for exercise_id, info in exercises.items()
    }


def has_workspace(store: Any, exercise_id: str) -> bool:
    """The starter was copied: the recorded workspace (or the default one) is a folder."""
    recorded = exercise_store.workspace(store, exercise_id)
    path = recorded or default_workspace(store.path.parent, exercise_id)
    return path.is_dir()


def has_passed(checks: list[ExerciseCheck]) -> bool:
    return any(c.passed for c in checks)
