"""The exam prediction and today's plan as lines of text, from the `progress --json` data, for
`studyapp progress`, its markdown export and the TUI's Home (one wording everywhere)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from studyapp.i18n import Translator


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def dday(exam: date, today: date, t: Translator) -> str:
    days = (exam - today).days
    return t("prediction.dday_today") if days == 0 else t("prediction.dday", days=days)


def outlook_values(outlook: dict[str, Any]) -> dict[str, str]:
    return {
        "score": _pct(outlook["expected_score"]),
        "low": _pct(outlook["low"]),
        "high": _pct(outlook["high"]),
        "chance": _pct(outlook["pass_probability"]),
    }


def prediction_lines(
    data: dict[str, Any], today: date, t: Translator, cutoff: float | None = None
) -> list[str]:
    """D-day, the predicted score on the exam day and today, the rules and the calibration."""
    forecast = data["exam_prediction"]
    lines: list[str] = []
    exam_text = forecast.get("exam_date")
    if exam_text:
        exam = date.fromisoformat(exam_text)
        if forecast.get("exam_day"):
            lines.append(
                t(
                    "prediction.exam_day",
                    date=exam_text,
                    dday=dday(exam, today, t),
                    **outlook_values(forecast["exam_day"]),
                )
            )
        else:
            lines.append(t("prediction.past", date=exam_text))
    else:
        lines.append(t("prediction.no_date"))
    lines.append(t("prediction.today", **outlook_values(forecast["today"])))
    lines.append(
        t(
            "prediction.rules",
            mark=_pct(forecast["today"]["pass_mark"]),
            cutoff=t("prediction.cutoff", cutoff=_pct(cutoff)) if cutoff else "",
            questions=forecast["today"]["questions"],
        )
    )
    if forecast.get("thin_evidence"):  # say how little it rests on rather than a confident 0 %
        lines.append(t("prediction.thin", answers=forecast.get("answers", 0)))
    damaged = forecast.get("damaged_reviews") or 0
    if damaged:
        lines.append(t("prediction.damaged", count=damaged))
    calibration = data.get("calibration") or {}
    if calibration.get("answers") and calibration.get("brier") is not None:
        lines.append(
            t(
                "prediction.calibration",
                answers=calibration["answers"],
                brier=f"{calibration['brier']:.3f}",
                log_loss=f"{calibration['log_loss']:.3f}",
            )
        )
    else:
        lines.append(t("prediction.calibration_none"))
    return lines


def plan_lines(plan: list[dict[str, Any]], t: Translator) -> list[str]:
    """Today's plan, one line an entry."""
    lines = []
    for entry in plan:
        kind = entry["kind"]
        if kind == "reviews":
            lines.append(t("plan.reviews", count=entry["count"], command=entry["command"]))
        elif kind == "new":
            lines.append(_new_line(entry, t))
        elif kind in ("exercise", "explain"):
            lines.append(
                t(f"plan.{kind}", id=entry["id"], stake=f"{entry['at_stake']:.1f}", command=entry["command"])
            )
        elif kind == "mock_exam":
            lines.append(t("plan.mock_exam", command=entry["command"]))
    return lines or [t("plan.nothing")]


def _new_line(entry: dict[str, Any], t: Translator) -> str:
    """The new-item line: the pace, or why it cannot be kept and which topics go first (m6)."""
    values = {
        "per_day": entry["per_day"],
        "unseen": entry["unseen"],
        "days": entry.get("days_left"),
        "command": entry["command"],
    }
    if "triage" in entry:
        key = "plan.new_triage_today" if entry.get("days_left") == 0 else "plan.new_triage"
        topics = ", ".join(entry.get("triage_titles") or entry["triage"]) or "-"
        return t(key, needed=entry.get("needed", entry["unseen"]), topics=topics, **values)
    if entry.get("exam_passed"):
        return t("plan.new_exam_passed", date=entry["exam_passed"], **values)
    return t("plan.new" if entry.get("days_left") else "plan.new_nodate", **values)


def reliability_plot(bins: Sequence[Any], width: int = 41, height: int = 11) -> list[str]:
    """A reliability diagram as text: predicted probability across, the share right up; `·` is
    the diagonal a calibrated forecast follows, `●` a bin (`○` one with fewer than 10 answers)."""
    grid = [[" "] * width for _ in range(height)]

    def cell(x: float, y: float) -> tuple[int, int]:
        column = min(width - 1, max(0, round(x * (width - 1))))
        row = min(height - 1, max(0, round((1 - y) * (height - 1))))
        return row, column

    for step in range(width):
        row, column = cell(step / (width - 1), step / (width - 1))
        grid[row][column] = "·"
    for b in bins:
        row, column = cell(b.predicted, b.observed)
        grid[row][column] = "●" if b.count >= 10 else "○"
    lines = []
    for index, cells in enumerate(grid):
        label = {0: "100%", (height - 1) // 2: " 50%", height - 1: "  0%"}.get(index, "    ")
        lines.append(f"{label} │{''.join(cells)}")
    lines.append("     └" + "─" * width)
    axis = [" "] * (width + 2)
    for value, text in ((0.0, "0%"), (0.5, "50%"), (1.0, "100%")):
        start = min(width + 2 - len(text), round(value * (width - 1)))
        axis[start : start + len(text)] = list(text)
    lines.append("      " + "".join(axis).rstrip())
    return lines
