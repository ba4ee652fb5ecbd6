"""Durations, pass marks and dates as text, shared by the mock exam (its countdown, options, line mode
and TUI), `progress` and the settings screen.

A leaf: it imports nothing from studyapp, so the store's modules and the quiz can both use it.
"""

from __future__ import annotations

import re
from datetime import date

# What separates year, month and day: `-`, `.`, `/`, spaces, or 년/월/일 (`2026년 12월 26일`).
_DATE_PARTS = re.compile(r"[\s./\-년월일]+")


def format_clock(seconds: float) -> str:
    """`mm:ss` (or `h:mm:ss`) for a countdown; rounds up so 0:00 means the time is really up."""
    whole = int(-(-seconds // 1)) if seconds > 0 else 0
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def parse_time_limit(text: str) -> float:
    """`30` (minutes), `30m`, `90s`, `1h`, `1.5m` → seconds. ValueError when unreadable."""
    value = text.strip().lower()
    factor = 60.0
    for suffix, seconds in (("min", 60.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0), ("분", 60.0), ("초", 1.0)):
        if value.endswith(suffix):
            value, factor = value[: -len(suffix)].strip(), seconds
            break
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(text)
    return number * factor


def parse_pass_mark(text: str) -> float:
    """`60`, `60%` or `0.6` → 0.6. ValueError when unreadable."""
    value = text.strip()
    percent = value.endswith("%")
    number = float(value.rstrip("%").strip())
    if number != number:
        raise ValueError(text)
    return number / 100 if percent or number > 1 else number


def parse_date(text: str, today: date) -> date:
    """A date as Koreans write it: `2026-12-26`, `2026.12.26`, `2026. 12. 26.`, `2026/12/26`,
    `20261226`, `2026년 12월 26일`, or without the year (`12/26`, `12.26`, `12월 26일`: the next such
    day from `today` on). ValueError when unreadable."""
    parts = [part for part in _DATE_PARTS.split(text.strip()) if part]
    if len(parts) == 1 and len(parts[0]) == 8:
        parts = [parts[0][:4], parts[0][4:6], parts[0][6:]]
    if not parts or not all(part.isascii() and part.isdigit() for part in parts):
        raise ValueError(text)
    numbers = [int(part) for part in parts]
    if len(numbers) == 3:
        year, month, day = numbers
        return date(year + 2000 if year < 100 else year, month, day)
    if len(numbers) == 2:
        month, day = numbers
        this_year = date(today.year, month, day)
        return this_year if this_year >= today else date(today.year + 1, month, day)
    raise ValueError(text)
