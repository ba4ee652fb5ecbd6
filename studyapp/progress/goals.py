"""The learner's exam goals, kept as settings in the store's `meta` table: the pass mark and the
per-topic cutoff (과락). The exam date itself is `ProgressStore.exam_date` / `set_exam_date`.

Shares are stored as text ("0.6"); a value that no longer parses is one line, not a crash.
"""

from __future__ import annotations

from studyapp.progress.db import StoreError
from studyapp.progress.store import ProgressStore

PASS_MARK_KEY = "exam_pass_mark"
CUTOFF_KEY = "exam_topic_cutoff"


def _share(store: ProgressStore, key: str, what: str) -> float | None:
    value = store.get_meta(key)
    if not value:
        return None
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if not 0 < share <= 1:
        raise StoreError(f"the stored {what} is damaged ({value[:40]!r}); set it again")
    return share


def _set_share(store: ProgressStore, key: str, value: float | None, what: str) -> None:
    if value is not None and not 0 < value <= 1:
        raise ValueError(f"the {what} must be more than 0 % and at most 100 %")
    store.set_meta(key, None if value is None else repr(float(value)))


def pass_mark(store: ProgressStore) -> float | None:
    """The share of questions needed to pass, when the learner set one."""
    return _share(store, PASS_MARK_KEY, "pass mark")


def set_pass_mark(store: ProgressStore, value: float | None) -> None:
    _set_share(store, PASS_MARK_KEY, value, "pass mark")


def topic_cutoff(store: ProgressStore) -> float | None:
    """The share every topic must reach (과락), when the learner set one."""
    return _share(store, CUTOFF_KEY, "topic cutoff")


def set_topic_cutoff(store: ProgressStore, value: float | None) -> None:
    _set_share(store, CUTOFF_KEY, value, "topic cutoff")
