"""Statistics: mastery per topic, retention over time (a textual-plot line plot: the share right
on each past day, then the forgetting curve of what was learnt if nothing is reviewed), reviews
per day and the due forecast as terminal bar charts."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from studyapp.errors import StudyappError
from studyapp.progress import exams
from studyapp.quiz.presenting import bar, column_chart, pad, percent
from studyapp.quiz.questions import all_questions
from studyapp.report.prediction import learner_state
from studyapp.report.prediction_text import reliability_plot
from studyapp.report.stats import (
    accuracy_per_day,
    due_forecast,
    due_today,
    retention_curve,
    reviews_per_day,
    streak,
    topic_stats,
)
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar

DAYS = 30
FORECAST_DAYS = 30  # the forgetting curve looks this far ahead
CHART_HEIGHT = 5
LABEL_WIDTH = 22
BAR_WIDTH = 30

YEAR_IN_ROW = re.compile(r"\b\d{4}-(\d\d-\d\d \d\d:\d\d)")


class StatsScreen(StudyScreen):
    CSS_PATH = "stats.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "retry_exam", "key.exam_retry_last"),
        Binding("escape,q", "back", "key.back", key_display="esc"),
    ]

    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("stats.title"), id="stats-title")
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-totals", markup=False)
            yield Static(Content(self.t("stats.mastery")), classes="heading", markup=False)
            yield Static(id="stats-mastery", markup=False)
            yield Static(id="stats-per-day-title", classes="heading", markup=False)
            yield Static(id="stats-per-day", markup=False)
            yield Vertical(id="stats-retention")
            yield Static(Content(self.t("stats.forecast")), classes="heading", markup=False)
            yield Static(id="stats-forecast", markup=False)
            # predicted vs what happened, on the learner's own answers (studyapp/report/recall_model.py)
            yield Static(Content(self.t("stats.calibration")), classes="heading", markup=False)
            yield Static(id="stats-calibration", markup=False)
            yield Static(id="stats-exams", markup=False)  # mock-exam attempts (studyapp/progress/exams.py)
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#stats-body").focus()

    def on_screen_resume(self) -> None:
        if self.is_current:
            self.refresh_data()

    def refresh_data(self) -> None:
        app = self.study
        t = self.t
        content, store, now, tz = app.content, app.store, app.now(), app.tz
        totals = store.review_totals()
        accuracy = totals.right / totals.reviews if totals.reviews else None
        answers = totals.answers  # a 4-choice question is one answer, not four reviews
        self.query_one("#stats-totals", Static).update(
            Content(
                t(
                    "stats.totals_one" if answers == 1 else "stats.totals",
                    reviews=answers,
                    accuracy=percent(accuracy),
                    streak=streak(store, now, tz),
                    due=due_today(all_questions(content), store, now, tz),
                )
            )
        )

        mastery_lines = []
        for topic in topic_stats(content, store, now, tz):
            name = ("└ " if content.topics[topic.id].parent else "") + topic.title
            mastery_lines.append(
                Content.assemble(
                    pad(name, LABEL_WIDTH) + " ",
                    (bar(topic.mastery, BAR_WIDTH), "$success"),
                    f" {percent(topic.mastery):>4} ({topic.mastered}/{topic.items})",
                )
            )
        self.query_one("#stats-mastery", Static).update(Content("\n").join(mastery_lines))

        self._show_retention()

        per_day = reviews_per_day(store, now, tz, DAYS)
        counts = [n for _, n in per_day]
        self.query_one("#stats-per-day-title", Static).update(
            Content(t("stats.per_day", days=DAYS, max=max(counts) if counts else 0))
        )
        rows = column_chart(counts, CHART_HEIGHT)
        chart = [Content.styled(" ".join(row), "$accent") for row in rows]
        axis = _axis([d for d, _ in per_day])
        chart.append(Content.styled(axis, "dim"))
        self.query_one("#stats-per-day", Static).update(Content("\n").join(chart))

        forecast = due_forecast(store, now, tz, 7)
        top = max((n for _, n in forecast), default=0) or 1
        lines = []
        for index, (day, count) in enumerate(forecast):
            label = t("stats.today") if index == 0 else day.strftime("%m-%d")
            lines.append(
                Content.assemble(pad(label, 10) + " ", (bar(count / top, BAR_WIDTH), "$warning"), f" {count}")
            )
        self.query_one("#stats-forecast", Static).update(Content("\n").join(lines))

        self.query_one("#stats-calibration", Static).update(calibration_view(content, store, t))

        rows = [attempt.to_dict() for attempt in exams.attempts(store)][-8:]
        exam_lines = exams.attempt_lines(rows, t)
        # the TUI's words: keys, not the command line (N13)
        exam_lines = [t("stats.exams_none")] if not rows else [*exam_lines[:-1], t("stats.exams_keys")]
        # the year is this year's: without it a row with a retry and a prediction fits 80 columns (c7)
        exam_lines = [YEAR_IN_ROW.sub(r"\1", line) for line in exam_lines]
        self.query_one("#stats-exams", Static).update(
            Content("\n").join([Content.styled(exam_lines[0], "bold $accent"), *map(Content, exam_lines[1:])])
        )

    def _show_retention(self) -> None:
        """One line plot over the last DAYS days and the next ones: measured (share right per
        day) on the left of today, the FSRS forgetting curve of the items seen so far on the
        right. Nothing before the first answer."""
        app = self.study
        t = self.t
        box = self.query_one("#stats-retention", Vertical)
        box.remove_children()
        now, tz = app.now(), app.tz
        curve = retention_curve(app.store, now, FORECAST_DAYS)
        if not curve:
            return
        # Screens load on first use; textual-plot brings numpy (~100 ms): only when drawn.
        from studyapp.tui.widgets.plot import LinePlot

        past = accuracy_per_day(app.store, now, tz, DAYS)
        today = past[-1][0]
        days = [day for day, _ in past] + [today + timedelta(days=d) for d in range(1, FORECAST_DAYS + 1)]
        x = list(range(len(days)))
        measured = [None if share is None else 100 * share for _, share in past] + [None] * FORECAST_DAYS
        forecast = [None] * (len(past) - 1) + [100 * recall for _, recall in curve]
        box.mount(
            LinePlot(
                t("stats.retention", days=DAYS, ahead=FORECAST_DAYS),
                x,
                {t("stats.retention_measured"): measured, t("stats.retention_curve"): forecast},
                ylabel="%",
                x_labels=[day.strftime("%m-%d") for day in days],
                y_range=(0.0, 100.0),
                mark=(len(past) - 1, t("stats.today")),
                classes="stats-plot",
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry_exam":  # shown once there is a finished exam to retry
            return any(attempt.finished for attempt in exams.attempts(self.study.store))
        return True

    def action_retry_exam(self) -> None:
        """The latest mock exam's misses as a new exam (any attempt: `studyapp quiz --mode exam --retry ID`)."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exam import retry_intro

        try:
            attempt = exams.find_attempt(self.study.store, "last")
        except StudyappError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        intro = retry_intro(self, attempt)
        if intro is not None:
            self.study.push_screen(intro)

    def action_back(self) -> None:
        self.study.switch_mode("home")


def calibration_view(content: Any, store: Any, t: Any) -> Content:
    """The reliability diagram of the learner's answers, with its Brier score and log loss."""
    calibration = learner_state(content, store).calibration
    if not calibration.answers or calibration.brier is None or calibration.log_loss is None:
        return Content(t("prediction.calibration_none"))
    summary = t(
        "prediction.calibration",
        answers=calibration.answers,
        brier=f"{calibration.brier:.3f}",
        log_loss=f"{calibration.log_loss:.3f}",
    )
    plot = [Content.styled(line, "$accent") for line in reliability_plot(calibration.bins)]
    return Content("\n").join([Content(summary), *plot, Content.styled(t("stats.calibration_axes"), "dim")])


def _axis(days: list[date]) -> str:
    """`MM-DD` labels under the columns (two cells per day), every 7th day back from today, so
    4 Nov and 2 Dec are told apart."""
    cells = [" "] * (len(days) * 2 + 6)
    for index in range(len(days) - 1, -1, -7):
        label = days[index].strftime("%m-%d")
        start = index * 2
        if start + cell_len(label) <= len(cells):
            cells[start : start + len(label)] = list(label)
    return "".join(cells).rstrip()
