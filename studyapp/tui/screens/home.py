"""Home: topics with mastery bars and due counts, today's due total, checklist readiness, keys."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import DataTable, Static

from studyapp.clock import local_today
from studyapp.quiz.engine import DEFAULT_NEW_PER_SESSION, new_quota
from studyapp.quiz.presenting import bar, fit, pad, percent
from studyapp.quiz.questions import all_questions
from studyapp.report.readiness import checklist_readiness, overall
from studyapp.report.stats import due_now_and_later, streak, topic_stats
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar

MASTERY_BAR = 10


class HomeScreen(StudyScreen):
    CSS_PATH = "home.tcss"
    _forecast: tuple[str, ...] | None = None  # the prediction and plan lines, fitted on resize
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "app.quiz('due')", "key.start_due"),
        Binding("n", "app.quiz('new')", "key.start_new"),
        Binding("w", "app.notebook", "key.notebook"),
        Binding("e", "app.quiz('exam')", "key.start_exam"),
        Binding("r", "app.quiz('cram')", "key.start_cram", show=False),
        Binding("d", "app.explain", "key.explain", show=False),
        Binding("c", "app.section('cards')", "key.cards", show=False),
        Binding("l", "app.section('labs')", "key.labs", show=False),
        Binding("x", "app.section('exercises')", "key.exercises", show=False),
        Binding("k", "app.section('checklist')", "key.checklist", show=False),
        Binding("t", "app.section('stats')", "key.stats", show=False),
        Binding("z", "size", "key.session_size", show=False),
        Binding("q", "app.quit", "key.quit"),
    ]

    def compose(self) -> ComposeResult:
        yield TitleBar(f"studyapp · {self.t('home.title')}", id="home-title")
        yield Static(id="home-status", markup=False)
        yield Static(id="home-forecast", markup=False)  # the exam prediction and today's plan
        yield Static(id="home-guide", classes="muted", markup=False)
        table: DataTable[Text] = DataTable(cursor_type="row", id="home-topics", zebra_stripes=False)
        yield table
        yield Static(self._shortcuts(), id="home-shortcuts", markup=False)
        yield KeyBar()

    def _shortcuts(self) -> Content:
        """The keys of home in two columns: quiz modes on the left, sections on the right."""
        t = self.t
        left = [
            ("Enter", t("home.topic_quiz")),
            ("s", t("home.start_review", count=self.study.session_size())),
            ("n", t("cmd.quiz.new")),
            ("w", t("cmd.notebook")),
            ("e", t("cmd.quiz.exam")),
            ("r", t("cmd.quiz.cram")),
            ("z", t("home.size", count=self.study.session_size())),
        ]
        right = [
            ("c", t("cmd.cards")),
            ("l", t("cmd.labs")),
            ("x", t("cmd.exercises")),
            ("k", t("cmd.checklist")),
            ("d", t("cmd.explain")),
            ("t", t("cmd.stats")),
            ("F1", t("cmd.help")),
        ]  # Ctrl+P (every command) is in the footer: seven rows keep Home within 80×24
        lines = [Content.styled(t("home.shortcuts"), "bold $accent")]
        for (lk, ld), (rk, rd) in zip(left, right, strict=True):
            lines.append(
                Content.assemble((pad(lk, 6), "bold"), pad(ld, 24), (pad(rk, 7), "bold"), fit(rd, 30))
            )
        return Content("\n").join(lines)

    def on_mount(self) -> None:
        t = self.t
        table = self.query_one("#home-topics", DataTable)
        table.add_column(t("home.col.topic"), key="topic")
        table.add_column(t("home.col.mastery"), key="mastery")
        table.add_column(t("home.col.seen"), key="items")
        table.add_column(t("home.col.due"), key="due")
        table.add_column(t("home.col.accuracy"), key="accuracy")
        table.focus()

    def on_screen_resume(self) -> None:
        if self.is_current:
            self.refresh_data()

    def refresh_data(self) -> None:
        app = self.study
        content, store, now, tz = app.content, app.store, app.now(), app.tz
        t = self.t
        stats = topic_stats(content, store, now, tz)
        questions = all_questions(content)
        due, later = due_now_and_later(questions, store, now, tz)
        unseen = len(questions.keys() - store.schedules().keys())
        ready = overall(checklist_readiness(content, store, now, app.lab_questions()))
        seen = len(questions) - unseen
        # Two short lines rather than one that wraps inside a token ("시험" / "D-18") at 80 columns.
        parts = [
            Content.styled(t("home.due_today", count=due), "bold"),
            Content(t("home.due_later", count=later) if later else ""),
            Content(" · "),
            Content(t("home.unseen", count=unseen)),
            Content(" · "),
            Content(t("home.seen", seen=seen, total=len(questions))),
            Content("\n"),
            Content(t("home.readiness", percent=percent(ready)) + " "),
            Content.styled(bar(ready, 10), "$accent"),
        ]
        days = streak(store, now, tz)
        if days:
            parts += [Content(" · "), Content(t("home.streak", days=days))]
        exam = store.exam_date()
        if exam is not None:
            left = (exam - now.astimezone(tz).date()).days
            if left >= 0:
                parts += [
                    Content(" · "),
                    Content(t("home.exam", days=left) if left else t("home.exam_today")),
                ]
            else:  # a mistyped year must not go unnoticed (it changes the new-item quota)
                parts += [
                    Content(" · "),
                    Content.styled(t("home.exam_past", date=exam.isoformat()), "$warning"),
                ]
        self.query_one("#home-status", Static).update(Content.assemble(*parts))
        # After the frame: the prediction fits the learner's model (numpy, a few hundred ms on a
        # long history, then cached), and Home's first paint should not wait for it.
        self.call_after_refresh(self.show_forecast)
        # The first-run path, then why answered items are due again so soon (FSRS learning steps).
        if store.review_count() == 0:
            # what `s` really starts with: the new-item quota within the session size (c2: Home
            # said 10 and `s` opened 1/20, the quota being 34 a day before the exam date)
            today = now.astimezone(tz).date() if tz else local_today()
            quota = new_quota(unseen, exam, today, DEFAULT_NEW_PER_SESSION)
            size = min(app.session_size(), quota, unseen)
            guide = t("home.first_run", count=size, minutes=max(1, round(size / 2)))
        elif later:
            # Items in FSRS (re)learning steps come back within the hour: say so while some will
            # today, not on day 8 in the morning (c3).
            guide = t("home.learning_steps", count=later)
        elif self._in_steps_today():  # back already: a step answered today is due again
            guide = t("home.learning_steps_now")
        else:
            guide = ""
        self.query_one("#home-guide", Static).update(Content(guide))
        self.query_one("#home-guide").display = bool(guide)

        table = self.query_one("#home-topics", DataTable)
        row = table.cursor_row
        table.clear()
        for topic in stats:
            parent = content.topics[topic.id].parent
            title = f"└ {topic.title}" if parent else topic.title
            mastery = Text(bar(topic.mastery, MASTERY_BAR), style="green")
            mastery.append(f" {percent(topic.mastery):>4}")
            table.add_row(
                Text(title),
                mastery,
                Text(f"{topic.seen}/{topic.items}", justify="right"),
                Text(str(topic.due), justify="right", style="bold yellow" if topic.due else "dim"),
                Text(percent(topic.accuracy), justify="right"),
                key=topic.id,
            )
        table.styles.max_height = table.row_count + 1  # the header and the rows, no blank rows below
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    def _in_steps_today(self) -> bool:
        """Some item in FSRS (re)learning steps was answered today (local day)."""
        app = self.study
        today = app.now().astimezone(app.tz).date()
        return any(
            schedule.state in (1, 3)
            and schedule.last_review is not None
            and schedule.last_review.astimezone(app.tz).date() == today
            for schedule in app.store.schedules().values()
        )

    def show_forecast(self) -> None:
        from studyapp.tui.widgets.forecast import forecast_texts

        if self.is_mounted:
            self._forecast = forecast_texts(self.study)
            self._fit_forecast()
            self.call_after_refresh(self._show_top)

    def _show_top(self) -> None:
        """On a short terminal (60×20) focusing the topic list scrolled Home past its title and
        its first line (c12): the top stays in view; the list scrolls within itself."""
        self.scroll_home(animate=False, immediate=True)

    def _fit_forecast(self) -> None:
        """The forecast cut to the text column's width: a wider terminal shows more of the plan."""
        from studyapp.tui.widgets.forecast import forecast_lines

        if self._forecast is not None:
            self.query_one("#home-forecast", Static).update(
                forecast_lines(self._forecast, self.size.width - 4)
            )

    def on_resize(self, event: events.Resize) -> None:
        self._fit_forecast()
        self.call_after_refresh(self._show_top)

    def action_size(self) -> None:
        self.study.cycle_session_size()
        self.query_one("#home-shortcuts", Static).update(self._shortcuts())
        self.refresh_data()
        self.notify(self.t("home.size_set", count=self.study.session_size()), timeout=2)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        topic_id = event.row_key.value
        if topic_id:
            self.study.action_quiz("due", topic=topic_id)
