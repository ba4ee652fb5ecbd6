"""Home's two lines on the exam: the predicted score on the exam day (or today, without an exam
date) with the pass probability, and today's plan in short (studyapp/report/prediction.py and
plan.py; `studyapp progress` prints the long form)."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.content import Content

from studyapp.exercises.status import all_statuses
from studyapp.quiz.presenting import fit, percent
from studyapp.report import plan, prediction
from studyapp.report.recall_model import THIN_EVIDENCE

WIDTH = 76  # Home's text column at 80 columns: the narrowest the lines are fitted to


def _discover_exercises() -> dict[str, Any]:
    try:  # the plan still works without exercises (no labs folder, unreadable metadata)
        from studyapp.exercises.registry import discover

        return discover()
    except Exception:
        return {}


def forecast_texts(app: Any) -> tuple[str, ...]:
    """The lines' texts for the app's store at the app's now: the prediction, then today's plan
    in three wordings, longest first (`forecast_lines` shows the longest that fits)."""
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
    if forecast.answers < THIN_EVIDENCE:  # M3: a headline from 17 answers must say so
        head += t("home.forecast_thin", answers=forecast.answers)
    # The plan from the longest wording to the shortest: ids, then the exercise's id alone, then none.
    plans = tuple(
        t("home.plan", items=" · ".join(p for p in words if p))
        for words in (
            [_plan_word(entry, t) for entry in today_plan],
            [_plan_word(entry, t, with_id=entry["kind"] == "exercise") for entry in today_plan],
            [_plan_word(entry, t, with_id=False) for entry in today_plan],
        )
    )
    return (head, *plans)


def forecast_lines(texts: tuple[str, ...], width: int = WIDTH) -> Content:
    """The lines, each cut to `width` cells (Home's text column; never below WIDTH). The plan
    takes its longest wording that fits: it drops ids rather than its last steps (c1: at 80
    columns the explain-it step was never visible)."""
    head, *plans = texts
    width = max(WIDTH, width)
    plan = next((line for line in plans if cell_len(line) <= width), plans[-1])
    return Content("\n").join([Content.styled(fit(head, width), "bold $accent"), Content(fit(plan, width))])


def _plan_word(entry: dict[str, Any], t: Any, with_id: bool = True) -> str:
    kind = entry["kind"]
    short = "" if with_id else "_short"
    if kind == "reviews":
        return t(f"home.plan.reviews{short}", count=entry["count"])
    if kind == "new":
        key = "home.plan.new_triage" if "triage" in entry else "home.plan.new"
        return t(f"{key}{short}", count=entry["per_day"])
    if kind in ("exercise", "explain") and not with_id:
        return t(f"home.plan.{kind}_short")
    if kind in ("exercise", "explain"):
        return t(f"home.plan.{kind}", id=entry["checklist"] if kind == "explain" else entry["id"])
    if kind == "mock_exam":
        return t("home.plan.mock_exam")
    return ""
