"""Reviews aimed at the exam day: bring forward the items FSRS would next show after the exam.

FSRS schedules each review for when recall falls to 90 %. Before an exam that is not the whole
story: an item whose next review falls after the exam date is never seen again before it, and it
goes into the exam at whatever recall it has left. So, once an exam date is set, an item whose
FSRS due date is after the exam day and whose FSRS recall *on the exam day* would be below
`EXAM_DAY_RECALL` becomes due earlier: at the last moment from which one successful review still
carries it above that target on the exam day. A successful review never lowers stability S, and
recall stays above r for S × `interval_factor(r)` days after a review, so that moment is the exam
minus S × interval_factor(EXAM_DAY_RECALL) — never before the item's last review. Items FSRS
already shows before the exam are left to FSRS.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone, tzinfo

from studyapp.progress.scheduler import ItemSchedule, _scheduler

EXAM_DAY_RECALL = 0.95
EXAM_HOUR = 9  # "on the exam day" means at 09:00 local time


def interval_factor(target: float) -> float:
    """Days, in units of stability, until FSRS recall falls to `target` (1.0 at 90 %)."""
    scheduler = _scheduler()
    return float((target ** (1 / scheduler._DECAY) - 1) / scheduler._FACTOR)


def exam_moment(day: date, tz: tzinfo) -> datetime:
    """09:00 local on `day`, in UTC: when "on the exam day" is evaluated."""
    return datetime.combine(day, time(EXAM_HOUR), tzinfo=tz).astimezone(timezone.utc)


def exam_due(schedule: ItemSchedule, exam_at: datetime | None) -> datetime:
    """When the item should next be reviewed, aiming at its recall on the exam day."""
    if (
        exam_at is None
        or schedule.due <= exam_at
        or schedule.stability is None
        or schedule.last_review is None
    ):
        return schedule.due
    if schedule.retrievability(exam_at) >= EXAM_DAY_RECALL:
        return schedule.due
    lead = timedelta(days=schedule.stability * interval_factor(EXAM_DAY_RECALL))
    return max(schedule.last_review, exam_at - lead)
