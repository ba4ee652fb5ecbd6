"""Settings (F8): the exam date, the pass mark and the per-topic cutoff (과락), with the
prediction they change shown underneath (studyapp/progress/goals.py, report/prediction.py).

Three boxes; Enter in any of them saves all three, an empty box clears its setting (the pass mark
then falls back to 60 %). Esc goes back home. `studyapp progress --exam-date/--pass-mark/--cutoff`
sets the same values.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Static

from studyapp.clock import local_today
from studyapp.progress import goals
from studyapp.report import prediction
from studyapp.report.prediction_text import prediction_lines
from studyapp.timetext import parse_date, parse_pass_mark
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.strings import translate_bindings
from studyapp.tui.widgets.keybar import KeyBar

EXAM_DATE_HORIZON_DAYS = 3 * 366  # as `studyapp quiz --exam-date`: further out is a mistyped year


class SettingsError(ValueError):
    """A box holds something that cannot be saved; the message is a translator key."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


def read_date(text: str, today: date) -> date | None:
    value = text.strip()
    if not value:
        return None
    try:
        exam = parse_date(value, today)  # 2026.12.26, 12/26, 2026년 12월 26일 too (m8)
    except ValueError:
        raise SettingsError("settings.bad_date", value=value) from None
    if exam < today:
        raise SettingsError("settings.past_date", value=value, today=today.isoformat())
    if (exam - today).days > EXAM_DATE_HORIZON_DAYS:
        raise SettingsError("settings.far_date", value=value)
    return exam


def read_share(text: str, what: str) -> float | None:
    value = text.strip()
    if not value:
        return None
    try:
        share = parse_pass_mark(value)
    except ValueError:
        share = -1.0
    if not 0 < share <= 1:
        raise SettingsError("settings.bad_share", what=what, value=value)
    return share


def _percent_text(share: float | None) -> str:
    return "" if share is None else f"{share * 100:g}"


class SettingsBox(Input):
    """A settings box whose Enter (submit: the screen saves) is on the key bar as `⏎ 저장`: the
    Input's own Enter binding is hidden, and it took the key bar's place (m8). Not a priority
    binding on the screen: that ran before the box had taken the keys typed just before Enter,
    and saved the box's old value."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "key.settings_save", key_display="⏎"),
    ]


class SettingsScreen(StudyScreen):
    CSS_PATH = "settings.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "save", "key.settings_save", key_display="⏎"),
        Binding("escape", "back", "key.back", key_display="esc"),
    ]

    def compose(self) -> ComposeResult:
        t = self.t
        yield TitleBar(t("settings.title"), id="settings-title")
        with VerticalScroll(id="settings-body"):
            yield Label(t("settings.exam_date"), classes="settings-label")
            yield SettingsBox(placeholder=t("settings.date_placeholder"), id="settings-date")
            yield Label(t("settings.pass_mark"), classes="settings-label")
            yield SettingsBox(placeholder="60", id="settings-mark")
            yield Label(t("settings.cutoff"), classes="settings-label")
            yield SettingsBox(placeholder=t("settings.cutoff_none"), id="settings-cutoff")
            yield Static(id="settings-message", markup=False)
            yield Static(id="settings-prediction", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        for box in self.query(SettingsBox):
            translate_bindings(box, self.t)
        self.load_values()
        self.query_one("#settings-date", Input).focus()

    def on_screen_resume(self) -> None:
        if self.is_current:
            self.load_values()

    def load_values(self) -> None:
        store = self.study.store
        exam = store.exam_date()
        self.query_one("#settings-date", Input).value = exam.isoformat() if exam else ""
        self.query_one("#settings-mark", Input).value = _percent_text(goals.pass_mark(store))
        self.query_one("#settings-cutoff", Input).value = _percent_text(goals.topic_cutoff(store))
        self.show_prediction()

    def show_prediction(self) -> None:
        app = self.study
        data = prediction.predict(app.content, app.store, app.now(), app.tz)
        report = {"exam_prediction": data.to_dict(), "calibration": data.calibration.to_dict()}
        today = app.now().astimezone(app.tz).date() if app.tz else local_today()
        lines = prediction_lines(report, today, self.t, goals.topic_cutoff(app.store))
        # Here the box above sets the date: no shell command for it on this screen (m8).
        lines = [
            self.t("settings.no_date") if line == self.t("prediction.no_date") else line for line in lines
        ]
        self.query_one("#settings-prediction", Static).update(Content("\n").join(map(Content, lines)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        t = self.t
        app = self.study
        today = app.now().astimezone(app.tz).date() if app.tz else local_today()
        message = self.query_one("#settings-message", Static)
        try:
            exam = read_date(self.query_one("#settings-date", Input).value, today)
            mark = read_share(self.query_one("#settings-mark", Input).value, t("settings.pass_mark"))
            cutoff = read_share(self.query_one("#settings-cutoff", Input).value, t("settings.cutoff"))
        except SettingsError as exc:
            message.update(Content.styled(t(exc.key, **exc.values), "$error"))
            return
        store = app.store
        store.set_exam_date(exam)
        # the box shows the date as read (`12/26` → 2026-12-26), so a surprise is visible at once
        self.query_one("#settings-date", Input).value = exam.isoformat() if exam else ""
        goals.set_pass_mark(store, mark)
        goals.set_topic_cutoff(store, cutoff)
        message.update(Content.styled(t("settings.saved"), "$success"))
        self.show_prediction()

    def action_back(self) -> None:
        self.study.switch_mode("home")
