"""Durations as text, shared by the mock exam (its countdown, line mode and TUI) and `progress`.

A leaf: it imports nothing from studyapp, so the store's modules and the quiz can both use it.
"""

from __future__ import annotations


def format_clock(seconds: float) -> str:
    """`mm:ss` (or `h:mm:ss`) for a countdown; rounds up so 0:00 means the time is really up."""
    whole = int(-(-seconds // 1)) if seconds > 0 else 0
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
