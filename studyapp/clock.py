"""What time it is for studyapp: the system clock, or `STUDYAPP_NOW` when it is set.

`STUDYAPP_NOW` is an ISO date-time (`2026-11-02T09:00`, `2026-11-02T09:00:00+09:00`, or a bare
date `2026-11-02` meaning local midnight). When it is set, every command starts its clock there
and lets it run at real speed from the first reading: answers given a few seconds apart stay a
few seconds apart (their order and the mock exam's countdown keep working), while tests and
learner simulations live through weeks in seconds by setting a new value for each "day". A value
without a UTC offset is the learner's local time, like everything else the learner types.

A leaf: it imports nothing from studyapp, so the store (which takes `now_utc` as its default
clock), the quiz and the command line all read the same "now".
"""

from __future__ import annotations

import os
import time
from datetime import date, datetime, timedelta, timezone

ENV_NOW = "STUDYAPP_NOW"

# The years a `STUDYAPP_NOW` may name: the importer's earliest (2000) to the exam date's latest
# (2200). At the calendar's ends (year 1, 9999) date arithmetic overflows (a week back from
# 0001-01-01, the scheduler's next interval from 9999-12-31): review L2.
EARLIEST_YEAR, LATEST_YEAR = 2000, 2200

# (the value read, the moment it stands for, time.monotonic() at that first reading)
_anchor: tuple[str, datetime, float] | None = None


class ClockSettingError(ValueError):
    """`STUDYAPP_NOW` is set to something that is not a date-time, or one outside the supported
    years. `key`/`values` name the message in the i18n catalogue, where it has one."""

    def __init__(self, message: str, key: str | None = None, **values: object) -> None:
        super().__init__(message)
        self.key = key
        self.values = values


def parse_now(text: str) -> datetime:
    """A `STUDYAPP_NOW` value as an aware UTC datetime; ClockSettingError when unreadable."""
    value = text.strip()
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        raise ClockSettingError(
            f"{ENV_NOW}={text!r} is not an ISO date-time (e.g. 2026-11-02T09:00 or 2026-11-02)"
        ) from None
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:  # before the offset: 0001-01-01+09:00 overflows
        raise ClockSettingError(
            f"{ENV_NOW}={text!r} is outside the years studyapp supports ({EARLIEST_YEAR}–{LATEST_YEAR})",
            "clock.out_of_range",
            value=repr(text),
            first=EARLIEST_YEAR,
            last=LATEST_YEAR,
        )
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time, as typed
    return moment.astimezone(timezone.utc)


def now_utc() -> datetime:
    """The current moment (aware, UTC): `STUDYAPP_NOW` plus the time run since it was first read,
    or the system clock when it is not set."""
    global _anchor
    value = os.environ.get(ENV_NOW, "").strip()
    if not value:
        return datetime.now(timezone.utc)
    if _anchor is None or _anchor[0] != value:
        _anchor = (value, parse_now(value), time.monotonic())
    _, start, started = _anchor
    return start + timedelta(seconds=time.monotonic() - started)


def local_today() -> date:
    """Today's date where the learner is (days are cut at local midnight)."""
    return now_utc().astimezone().date()


def check_setting() -> None:
    """Raise ClockSettingError now if `STUDYAPP_NOW` is set but unreadable (the CLI's first step)."""
    value = os.environ.get(ENV_NOW, "").strip()
    if value:
        parse_now(value)
