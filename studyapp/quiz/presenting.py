"""Formatting shared by the TUI (and usable by any front end): answers, due times, bars, widths.

No Textual here — the domain stays importable without it. Widths are terminal cells measured
with `rich.cells.cell_len` (Hangul is two cells wide), never `len()`.
"""

from __future__ import annotations

import math
from datetime import datetime, tzinfo

from rich.cells import cell_len

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.questions import KIND_CHOICE, KIND_OX, Question

STRINGS = {
    "ko": {
        "when.now": "지금",
        "when.minutes": "{n}분 후",
        "when.hours": "{n}시간 후",
        "when.days": "{n}일 후 ({date})",
        "when.none": "없음",
        "elapsed": "{minutes}분 {seconds}초",
        "elapsed.short": "{seconds}초",
    },
    "en": {
        "when.now": "now",
        "when.minutes": "in {n} min",
        "when.hours": "in {n} h",
        "when.days": "in {n} days ({date})",
        "when.none": "none",
        "elapsed": "{minutes} min {seconds} s",
        "elapsed.short": "{seconds} s",
    },
}

BAR_FULL = "█"
BAR_EMPTY = "░"
_EIGHTHS = " ▏▎▍▌▋▊▉"
ELLIPSIS = "…"


def answer_text(question: Question) -> str:
    """The correct answer as shown to the learner: O / X, or the number with its unit."""
    if question.kind in (KIND_OX, KIND_CHOICE):  # O / X, or the option number 1-4
        return question.answer
    # A drill asks for N decimals and its tolerance is one unit of the last one.
    decimals = max(0, round(-math.log10(question.tolerance))) if question.tolerance > 0 else 2
    unit = unit_suffix(question.unit)
    try:
        return f"{float(question.answer):.{decimals}f}{unit}"
    except ValueError:
        return f"{question.answer}{unit}"


# Units written against the number (`6.40배`, `25%`, `9.0건`); any other unit gets a space (`40.0 items/s`).
_TIGHT_UNITS = ("", "배", "%", "x", "×", "건")


def unit_suffix(unit: str) -> str:
    return unit if unit in _TIGHT_UNITS else f" {unit}"


def exam_note(content: Content, question: Question) -> str | None:
    """What the seed-built exam expects, where it differs from today's fact (Item.exam_note)."""
    item = content.items.get(question.id)
    return getattr(item, "exam_note", None) if item is not None else None


def topic_path(content: Content, topic_id: str, separator: str = " › ") -> str:
    """`PyTorch 프로파일링 › Torch.profiler` for a sub-topic, the title alone otherwise."""
    topic = content.topics.get(topic_id)
    if topic is None:
        return topic_id
    parent = content.topics.get(topic.parent) if topic.parent else None
    return f"{parent.title}{separator}{topic.title}" if parent else topic.title


def due_phrase(when: datetime | None, now: datetime, t: Translator, tz: tzinfo | None = None) -> str:
    """`지금`, `10분 후`, `3시간 후`, `4일 후 (03-06)` — when the next review falls due."""
    if when is None:
        return t("when.none")
    seconds = (when - now).total_seconds()
    if seconds <= 0:
        return t("when.now")
    if seconds < 3600:
        return t("when.minutes", n=max(1, round(seconds / 60)))
    if seconds < 86400:
        return t("when.hours", n=round(seconds / 3600))
    local = when.astimezone(tz) if tz else when.astimezone()
    return t("when.days", n=round(seconds / 86400), date=local.strftime("%m-%d"))


def elapsed_text(seconds: float, t: Translator) -> str:
    whole = max(0, round(seconds))
    if whole < 60:
        return t("elapsed.short", seconds=whole)
    return t("elapsed", minutes=whole // 60, seconds=whole % 60)


def bar(fraction: float, width: int) -> str:
    """A horizontal bar exactly `width` cells wide, with eighth-block resolution."""
    fraction = min(1.0, max(0.0, fraction))
    eighths = round(fraction * width * 8)
    full, rest = divmod(eighths, 8)
    text = BAR_FULL * full
    if rest and full < width:
        text += _EIGHTHS[rest]
    return text + BAR_EMPTY * (width - cell_len(text))


def percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{round(fraction * 100)}%"


def fit(text: str, width: int) -> str:
    """Cut `text` to at most `width` cells, never through a wide character, marking the cut with …."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    out: list[str] = []
    used = 0
    for char in text:
        size = cell_len(char)
        if used + size > width - 1:
            break
        out.append(char)
        used += size
    return "".join(out) + ELLIPSIS


def pad(text: str, width: int) -> str:
    """`fit`, then pad with spaces to exactly `width` cells."""
    text = fit(text, width)
    return text + " " * (width - cell_len(text))


def column_chart(values: list[int], height: int) -> list[str]:
    """A vertical bar chart, one cell per value, `height` rows (top row first)."""
    top = max(values) if values and max(values) > 0 else 1
    levels = [max(1, round(v / top * height * 8)) if v > 0 else 0 for v in values]
    rows = []
    for row in range(height - 1, -1, -1):
        line = []
        for level in levels:
            filled = level - row * 8
            if filled >= 8:
                line.append("█")
            elif filled <= 0:
                line.append(" ")
            else:
                line.append(" ▁▂▃▄▅▆▇"[filled])
        rows.append("".join(line))
    return rows
