"""Home's two lines on the exam: the predicted score on the exam day (or today, without an exam
date) with the pass probability, and today's plan in short (studyapp/report/prediction.py and
plan.py; `studyapp progress` prints the long form)."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from studyapp.exercises.status import all_statuses
from studyapp.quiz.presenting import fit, percent
from studyapp.report import plan, prediction

WIDTH = 76  # Home's text column at 80 columns: the narrowest the lines are fitted to


def _discover_exercises() -> dict[str, Any]:
    try:  # the plan still works without exercises (no labs folder, unreadable metadata)
        from studyapp.exercises.registry import discover

        return discover()
    except Exception:
        return {}


def forecast_texts(app: Any) -> tuple[str, str]:
    """The two lines' texts (the prediction, today's plan) for the app's store at the app's now."""
    t = app.t
    content, store, now, tz = app.content, app.store, app.now(), app.tz
    forecast = prediction.predict(content, store, now, tz)
    exercises = _discover_exercises()
    today_plan = plan.today_plan(
        content, store, now, forecast, tz, exercises=exercises, statuses=all_statuses(exercises, store)
    )
    outlook = forecast.exam_day or forecast.today
    key = "home.forecast_exam" if forecast.exam_day else "home.forecast_today"
    head = t(
        key,
        score=percent(outlook.expected),
        low=percent(outlook.low),
        high=percent(outlook.high),
        chance=percent(outlook.pass_probability),
    )
    if forecast.exam_date is None:
        head += t("home.forecast_set_date")
    parts = [_plan_word(entry, t) for entry in today_plan]
    return head, t("home.plan", items=" · ".join(p for p in parts if p))


def forecast_lines(texts: tuple[str, str], width: int = WIDTH) -> Content:
    """The two lines, each cut to `width` cells (Home's text column; never below WIDTH)."""
    head, line = texts
    width = max(WIDTH, width)
    return Content("\n").join([Content.styled(fit(head, width), "bold $accent"), Content(fit(line, width))])


def _plan_word(entry: dict[str, Any], t: Any) -> str:
    kind = entry["kind"]
    if kind == "reviews":
        return t("home.plan.reviews", count=entry["count"])
    if kind == "new":
        return t("home.plan.new_triage" if "triage" in entry else "home.plan.new", count=entry["per_day"])
    if kind in ("exercise", "explain"):
        return t(f"home.plan.{kind}", id=entry["checklist"] if kind == "explain" else entry["id"])
    if kind == "mock_exam":
        return t("home.plan.mock_exam")
    return ""
