"""Spaced repetition with FSRS (the `fsrs` package, v6).

An O/X answer has a 50 % guess rate, so a correct answer is only evidence of knowledge when the
learner was sure: correct and sure → Good, correct but marked unsure → Hard, wrong → Again.

Scheduling state is derived by replaying an item's review log (`replay`), which makes undo and
merging logs from another machine exact. Fuzzing is off for the same reason: a replay must give
the same due date every time.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import IntEnum
from functools import lru_cache
from typing import Any, NamedTuple

DESIRED_RETENTION = 0.9


class Grade(IntEnum):
    """FSRS ratings used by the quiz (Easy is never given: an O/X answer cannot show ease)."""

    AGAIN = 1
    HARD = 2
    GOOD = 3

    @classmethod
    def from_answer(cls, correct: bool, unsure: bool) -> Grade:
        if not correct:
            return cls.AGAIN
        return cls.HARD if unsure else cls.GOOD


@lru_cache(maxsize=1)
def _scheduler() -> Any:
    from fsrs import Scheduler

    return Scheduler(desired_retention=DESIRED_RETENTION, enable_fuzzing=False)


def card_id_for(item_id: str) -> int:
    """FSRS wants integer card ids; derive a stable one from the item's slug."""
    return zlib.crc32(item_id.encode("utf-8"))


@dataclass(frozen=True)
class ItemSchedule:
    """An item's FSRS card after its reviews so far."""

    item_id: str
    card_json: str
    due: datetime
    state: int  # fsrs.State: 1 Learning, 2 Review, 3 Relearning
    stability: float | None
    difficulty: float | None
    last_review: datetime | None
    reviews: int = 0
    lapses: int = 0
    last_correct: bool = False
    text_hash: str | None = None

    @classmethod
    def from_card(cls, item_id: str, card: Any, **extra: Any) -> ItemSchedule:
        return cls(
            item_id=item_id,
            card_json=card.to_json(),
            due=card.due,
            state=int(card.state),
            stability=card.stability,
            difficulty=card.difficulty,
            last_review=card.last_review,
            **extra,
        )

    @classmethod
    def from_row(cls, row: Any) -> ItemSchedule:
        data = json.loads(row["card_json"])
        last = data.get("last_review")
        return cls(
            item_id=row["item_id"],
            card_json=row["card_json"],
            due=datetime.fromisoformat(data["due"]).astimezone(timezone.utc),
            state=int(data["state"]),
            stability=data.get("stability"),
            difficulty=data.get("difficulty"),
            last_review=datetime.fromisoformat(last).astimezone(timezone.utc) if last else None,
            reviews=int(row["reviews"]),
            lapses=int(row["lapses"]),
            last_correct=bool(row["last_correct"]),
            text_hash=row["text_hash"],
        )

    def retrievability(self, now: datetime) -> float:
        """Probability of recall now (FSRS forgetting curve, fractional days)."""
        if self.stability is None or self.last_review is None:
            return 0.0
        scheduler = _scheduler()
        elapsed_days = max(0.0, (now - self.last_review).total_seconds() / 86400)
        return float((1 + scheduler._FACTOR * elapsed_days / self.stability) ** scheduler._DECAY)

    def is_mastered(self, now: datetime, target: float = DESIRED_RETENTION) -> bool:
        """In long-term review, last answered right, and still above the target recall."""
        return self.state == 2 and self.last_correct and self.retrievability(now) >= target


def replay(item_id: str, reviews: Iterable[tuple[datetime, Grade]]) -> ItemSchedule:
    """Run an item's review log through FSRS from a new card."""
    from fsrs import Card, Rating

    scheduler = _scheduler()
    card = None
    for reviewed_at, grade in reviews:
        moment = reviewed_at.astimezone(timezone.utc)
        if card is None:
            card = Card(card_id=card_id_for(item_id), due=moment)
        card, _ = scheduler.review_card(card, Rating(int(grade)), review_datetime=moment)
    if card is None:
        raise ValueError(f"no reviews to replay for {item_id}")
    return ItemSchedule.from_card(item_id, card)


def preview_due(schedule: ItemSchedule | None, grade: Grade, now: datetime) -> datetime:
    """When an item would be due after answering it now with `grade` (for the feedback line)."""
    from fsrs import Card, Rating

    scheduler = _scheduler()
    card = Card.from_json(schedule.card_json) if schedule else Card(card_id=1, due=now)
    new_card, _ = scheduler.review_card(
        card, Rating(int(grade)), review_datetime=now.astimezone(timezone.utc)
    )
    return new_card.due


class ReplayedState(NamedTuple):
    stability: float | None
    last_review: datetime | None


def replay_states(item_id: str, reviews: Iterable[tuple[datetime, Grade]]) -> Iterable[ReplayedState]:
    """The item's stability and last review after each review of its log, in order (what
    `replay` ends with); no card JSON is made, since the tracer replays thousands of reviews."""
    from fsrs import Card, Rating

    scheduler = _scheduler()
    card = None
    for reviewed_at, grade in reviews:
        moment = reviewed_at.astimezone(timezone.utc)
        if card is None:
            card = Card(card_id=card_id_for(item_id), due=moment)
        card, _ = scheduler.review_card(card, Rating(int(grade)), review_datetime=moment)
        yield ReplayedState(card.stability, card.last_review)


def recall_after(stability: float, elapsed_days: float) -> float:
    """FSRS's forgetting curve: the probability of recall `elapsed_days` after a review that left
    the card with `stability` (fractional days, like `ItemSchedule.retrievability`)."""
    scheduler = _scheduler()
    return float((1 + scheduler._FACTOR * max(0.0, elapsed_days) / stability) ** scheduler._DECAY)


def recall_curve(stability: float, elapsed_days: Any) -> Any:
    """`recall_after` for a number or a numpy array of elapsed days (the exam prediction traces
    many forgetting paces at once)."""
    scheduler = _scheduler()
    return (1 + scheduler._FACTOR * elapsed_days / stability) ** scheduler._DECAY
