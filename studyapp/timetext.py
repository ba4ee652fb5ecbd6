"""Durations and pass marks as text, shared by the mock exam (its countdown, options, line mode
and TUI), `progress` and the settings screen.

A leaf: it imports nothing from studyapp, so the store's modules and the quiz can both use it.
"""

from __future__ import annotations


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
