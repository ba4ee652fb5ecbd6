"""The mock exam in the TUI: an intro (questions, time limit, pass mark), the timed sitting, and
the result (studyapp/tui/screens/exam_result.py). The exam itself is `studyapp.quiz.exam`.

During the sitting there is no feedback, no card and no lab (those keys do not exist here, and
the app's section keys wait for the end); the countdown in the title bar is redrawn several times
a second from the session's clock (injectable: tests pass a fake one). `1`–`4` (or `o`/`x`)
answer, `f` flags for review, ←/→ move, `g` jumps to a number, `s` submits after a confirmation
that says how many are unanswered or flagged. At 00:00 the exam is submitted on its own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Static

from studyapp.errors import StudyappError
from studyapp.progress import exams
from studyapp.quiz.exam import (
    DEFAULT_PASS_MARK,
    ExamSession,
    ExamSettings,
    retry_questions,
    retry_time_limit,
)
from studyapp.quiz.exam_resume import resumable, resume_session, time_left
from studyapp.quiz.exam_text import archive_warning, intro_lines
from studyapp.quiz.kinds import kind_of
from studyapp.timetext import format_clock
from studyapp.tui.screens.base import StudyModal, StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

COUNTS = (10, 20, 30, 40)
PASS_MARKS = (0.6, 0.7, 0.8)
WARN_BEFORE_END_S = 300.0


def warning_at(limit_s: float) -> float:
    """Seconds left when the countdown warns: 5 minutes, or a fifth of a short exam."""
    return min(WARN_BEFORE_END_S, limit_s / 5)


URGENT_S = 60  # the countdown turns red in the last minute


def replace_screen(screen: StudyScreen, following: StudyScreen) -> None:
    """Intro → sitting → result replace each other; the first screen of `studyapp quiz --mode
    exam` is the base of its stack and cannot be switched away, so the next one goes on top."""
    app = screen.study
    if len(app.screen_stack) > 1:
        app.switch_screen(following)
    else:
        app.push_screen(following)


def close_exam(screen: StudyScreen) -> None:
    """Leave the exam screens: back to the section below, or home when the app began on them."""
    app = screen.study
    exam_screens = (ExamIntroScreen, ExamScreen, ConfirmSubmit)
    # Screens load on first use: importing all of them up front costs ~40 % more start-up.
    from studyapp.tui.screens.exam_result import ExamResultScreen

    while isinstance(app.screen, (*exam_screens, ExamResultScreen)) and len(app.screen_stack) > 1:
        app.pop_screen()
    if isinstance(app.screen, (*exam_screens, ExamResultScreen)):
        app.switch_mode("home")


def retry_intro(screen: StudyScreen, attempt: Any) -> ExamIntroScreen | None:
    """The intro of a new exam of an archived attempt's misses (stats `r`, notebook `e`): the
    attempt's pass mark and time per question. None, with a toast, when there is nothing to ask."""
    app = screen.study
    try:
        questions = retry_questions(app.content, attempt)
    except StudyappError as exc:
        screen.notify(str(exc), severity="warning", markup=False)
        return None
    if not questions:
        screen.notify(screen.t("exam.retry_none"), severity="warning")
        return None
    per_question = (attempt.settings.get("time_limit_s") or 60.0 * attempt.total) / max(1, attempt.total)
    settings = ExamSettings(
        count=len(questions),
        pass_mark=float(attempt.settings.get("pass_mark") or DEFAULT_PASS_MARK),
        topic_cutoff=attempt.settings.get("topic_cutoff"),
        time_limit_s=retry_time_limit(per_question, len(questions)),
        retry_of=attempt.uid,
    )
    session = ExamSession(app.content, app.store, settings, questions=questions)
    return ExamIntroScreen(session, unfinished=resumable(app.store, app.now()))  # the offer on every intro


class ExamIntroScreen(StudyScreen):
    CSS_PATH = "exam.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "start", "key.exam_start", key_display="⏎"),
        # Second, so a narrow key bar keeps it when the offer is shown (c4).
        Binding("c", "resume", "key.exam_resume"),
        Binding("n", "cycle_count", "key.exam_count"),
        Binding("t", "cycle_time", "key.exam_time"),
        Binding("p", "cycle_mark", "key.exam_mark"),
        Binding("s", "toggle_schedule", "key.exam_schedule"),
        Binding("escape,q", "back", "key.back", key_display="esc"),
    ]

    def __init__(self, session: ExamSession, unfinished: exams.ExamAttempt | None = None) -> None:
        super().__init__()
        self.session = session
        self.unfinished = unfinished  # an attempt that ended without a submit: c goes on with it

    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("exam.intro_title"), id="exam-intro-title")
        with VerticalScroll(id="exam-intro-body", can_focus=False):
            yield Static(id="exam-intro-text", markup=False)
            # a retry asks exactly the misses: no `n` (question count) there; a resume keeps its settings
            if self.session.resumed:
                keys = "exam.intro_keys_resume"
            elif self.session.settings.retry_of:
                keys = "exam.intro_keys_retry"
            else:
                keys = "exam.intro_keys"
            yield Static(Content(self.t(keys)), classes="muted hint", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.refresh_text()

    def refresh_text(self) -> None:
        lines = intro_lines(self.session, self.t, keys=True)
        parts = [Content.styled(lines[0], "bold")] + [Content(line) for line in lines[1:]]
        if self.unfinished is not None:
            attempt = self.unfinished
            resume = self.t(
                "exam.resume_offer",
                id=attempt.short_id,
                answered=attempt.answered,
                total=attempt.total,
                left=format_clock(time_left(attempt)),
            )
            parts = [Content.styled(resume, "bold $warning"), Content(""), *parts]
        self.query_one("#exam-intro-text", Static).update(Content("\n").join(parts))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("cycle_count", "cycle_time", "cycle_mark", "toggle_schedule") and self.session.resumed:
            return False  # a resumed attempt goes on as it was set up
        if action == "cycle_count":
            return self.session.settings.retry_of is None  # a retry asks exactly the misses
        if action == "resume":
            return self.unfinished is not None and not self.session.resumed
        return True

    def _rebuild(self, **changes: Any) -> None:
        # The count asked for, not the count built (a narrow scope may build fewer), unless changed.
        settings: ExamSettings = replace(
            self.session.settings, **{"count": self.session.requested, **changes}
        )
        try:
            if "count" in changes:
                self.session = ExamSession(self.study.content, self.study.store, settings)
            else:
                self.session = ExamSession(
                    self.study.content,
                    self.study.store,
                    settings,
                    questions=self.session.questions,
                    clock=self.session.clock,
                    notice=self.session.notice,
                )
        except StudyappError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.refresh_text()

    def action_cycle_count(self) -> None:
        current = self.session.requested  # what was asked: a narrow scope may build fewer
        following = next((c for c in COUNTS if c > current), COUNTS[0])
        self._rebuild(count=following, time_limit_s=None)

    def action_cycle_time(self) -> None:
        per_question = (30, 60, 90)
        current = self.session.time_limit_s / max(1, self.session.total)
        following = next((p for p in per_question if p > current + 1e-9), per_question[0])
        self._rebuild(time_limit_s=float(following * self.session.total))

    def action_cycle_mark(self) -> None:
        current = self.session.settings.pass_mark
        following = next((m for m in PASS_MARKS if m > current + 1e-9), DEFAULT_PASS_MARK)
        self._rebuild(pass_mark=following)

    def action_toggle_schedule(self) -> None:
        """Let this exam's answers update FSRS, or not (the default: a mock exam only measures)."""
        self._rebuild(schedule=not self.session.settings.schedule)

    def action_start(self) -> None:
        # The prediction for exactly these questions, archived with the attempt before its clock
        # starts ("predicted 72 %, scored 68 %" in progress and on the stats screen). Imported
        # here: numpy and the model load when an exam starts, not with the screen.
        if self.session.resumed_used_s is not None:  # its prediction was archived when it began
            self.session.carry_on(self.session.resumed_used_s)
            replace_screen(self, ExamScreen(self.session))
            return
        from studyapp.report.prediction import attach_prediction

        attach_prediction(self.session)
        replace_screen(self, ExamScreen(self.session))

    def action_resume(self) -> None:
        """Go on with the unfinished attempt: its answers, flags and the time it had left."""
        if self.unfinished is None:
            return
        try:
            session = resume_session(
                self.study.content, self.study.store, self.unfinished, self.session.clock
            )
        except StudyappError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        replace_screen(self, ExamScreen(session))

    def action_back(self) -> None:
        close_exam(self)


class ExamScreen(StudyScreen):
    CSS_PATH = "exam.tcss"
    AUTO_FOCUS = ""  # nothing: keys go to the screen (None would inherit the app's "*")
    TICK_S = 0.25  # how often the countdown is redrawn and the time limit checked
    BINDINGS: ClassVar[list[BindingType]] = [
        # 2–4 are read in on_key (one row in the help screen, not four).
        Binding("1", "answer('1')", "key.exam_answer", key_display="1-4"),
        Binding("o,ㅐ", "answer('O')", "key.answer_o", key_display="o", show=False),
        Binding("x,ㅌ", "answer('X')", "key.answer_x", key_display="x", show=False),
        Binding("f,ㄹ", "flag", "key.exam_flag", key_display="f"),
        Binding("left,p", "move(-1)", "key.exam_prev", key_display="←"),
        Binding("right,n", "move(1)", "key.exam_next", key_display="→"),
        Binding("g,ㅎ", "jump", "key.exam_jump", key_display="g"),
        Binding("s,ㄴ", "submit", "key.exam_submit", key_display="s"),
        Binding("escape", "escape", "key.exam_submit", key_display="esc", show=False, priority=True),
    ]

    def __init__(self, session: ExamSession) -> None:
        super().__init__()
        self.session = session
        self._submitting = False
        self._warned = False  # the last-minutes warning is given once

    def compose(self) -> ComposeResult:
        yield TitleBar("", "", id="exam-title")
        yield Static(id="exam-nav", markup=False)
        # Above the question, not below it: long options would push it below the fold at 80×24.
        jump = Input(placeholder=self.t("exam.jump_placeholder"), id="exam-jump", type="integer")
        jump.display = False
        jump.disabled = True
        yield jump
        with VerticalScroll(id="exam-body", can_focus=False):
            yield Static(id="exam-stem", markup=False)
            yield Vertical(id="exam-options")
            yield Static(id="exam-flagged", classes="warning", markup=False)
            yield Static(id="exam-status", classes="muted", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.session.start()
        self.show_question()
        self.set_interval(self.TICK_S, self.tick)

    # -- rendering -----------------------------------------------------------------------------
    def show_question(self) -> None:
        session = self.session
        question = session.current
        t = self.t
        self.query_one("#exam-title", TitleBar).set(
            t("exam.sitting", number=session.position + 1, total=session.total),
            t("exam.clock", left=format_clock(session.remaining_s())),
        )
        self.query_one("#exam-nav", Static).update(self._nav())
        self.query_one("#exam-stem", Static).update(Content.styled(question.stem, "bold"))
        options = self.query_one("#exam-options", Vertical)
        options.remove_children()
        picked = session.answers.get(session.position)
        lines: list[Hanging] = []
        choices = (
            [(str(n), o.text) for n, o in enumerate(question.options, start=1)]
            if question.options
            else [("O", t("exam.ox.O")), ("X", t("exam.ox.X"))]
        )
        for key, text in choices:
            chosen = picked == key
            marker = f"{'▶' if chosen else ' '} {key})"
            lines.append(Hanging(marker, text, classes="exam-option chosen" if chosen else "exam-option"))
        options.mount_all(lines)
        flagged = self.query_one("#exam-flagged", Static)
        flagged.update(Content(t("exam.flagged_mark")))
        flagged.display = session.position in session.flags
        self.query_one("#exam-status", Static).update(
            Content(
                t("exam.status", answered=len(session.answers), total=session.total, flags=len(session.flags))
                + " · "
                + t("exam.no_feedback")
            )
        )
        self.query_one("#exam-body", VerticalScroll).scroll_home(animate=False)

    def _nav(self) -> Content:
        """Every question number: answered bold, flagged with ⚑, the current one reversed."""
        session = self.session
        parts: list[Content] = []
        for index in range(session.total):
            label = f"{index + 1}{'⚑' if index in session.flags else ''}"
            style = "bold $success" if index in session.answers else "$text-muted"
            if index in session.flags:
                style = "bold $warning"
            if index == session.position:
                style += " reverse"
            parts.append(Content.styled(f" {label} ", style))
        return Content("").join(parts)

    def tick(self) -> None:
        """Redraw the countdown, warn once in its last minutes; at 00:00 submit on the learner's
        behalf."""
        if self.session.finished or self._submitting:
            return
        if self.session.time_up():
            self.finish(auto=True)
            return
        remaining = self.session.remaining_s()
        title = self.query_one("#exam-title", TitleBar)
        title.set(right=self.t("exam.clock", left=format_clock(remaining)))
        title.urgent = remaining <= URGENT_S
        if not self._warned and remaining <= warning_at(self.session.time_limit_s):
            self._warned = True
            title.add_class("ending")
            self.notify(
                self.t(
                    "exam.ending",
                    left=format_clock(remaining),
                    unanswered=self.session.total - len(self.session.answers),
                ),
                severity="warning",
                timeout=10,
            )

    # -- actions -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.session.finished:
            return False
        if action == "answer":  # 1–4 for 4-choice; o/x (or 1/2, as in the quiz) for O/X
            current = self.session.current
            return not parameters or kind_of(current).exam_response(current, str(parameters[0])) is not None
        return True

    def on_key(self, event: events.Key) -> None:
        if event.character in ("2", "3", "4") and not isinstance(self.focused, Input):
            event.stop()
            if self.check_action("answer", (event.character,)):
                self.action_answer(event.character)

    def _time_guard(self) -> bool:
        """True when the time ran out (then the exam is submitted instead of taking the key)."""
        if self.session.time_up():
            self.finish(auto=True)
            return True
        return False

    def action_answer(self, response: str) -> None:
        if self._time_guard():
            return
        if not self.session.answer(response):
            return
        warning = archive_warning(self.session, self.t)
        if warning:
            self.notify(warning, severity="warning", timeout=6, markup=False)
        following = self.session.next_unanswered()  # on to the next open question, as in --plain
        if following is not None:
            self.session.position = following
        self.show_question()

    def action_flag(self) -> None:
        if self._time_guard():
            return
        self.session.toggle_flag()
        self.show_question()

    def action_move(self, step: int) -> None:
        if self._time_guard():
            return
        if step > 0:
            self.session.next()
        else:
            self.session.previous()
        self.show_question()

    def action_jump(self) -> None:
        if self._time_guard():
            return
        field = self.query_one("#exam-jump", Input)
        field.value = ""
        field.display = True
        field.disabled = False
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        field = self.query_one("#exam-jump", Input)
        field.display = False
        field.disabled = True
        self.set_focus(None)
        if self._time_guard():
            return
        try:
            self.session.go(int(event.value))
        except (ValueError, StudyappError):
            self.notify(self.t("exam.jump_placeholder"), severity="warning", timeout=2)
            return
        self.show_question()

    def action_escape(self) -> None:
        field = self.query_one("#exam-jump", Input)
        if field.display:
            field.display = False
            field.disabled = True
            self.set_focus(None)
            return
        self.action_submit()

    def action_submit(self) -> None:
        if self._time_guard():
            return
        session = self.session
        unanswered = session.total - len(session.answers)

        def decided(yes: bool | None) -> None:
            if yes:
                self.finish(auto=False)

        self.app.push_screen(ConfirmSubmit(unanswered, len(session.flags)), decided)

    def confirm_quit(self) -> bool:
        """Ctrl+Q mid-exam: ask first (one stray key would end a timed attempt). True: asked."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.confirm import ConfirmScreen

        session = self.session
        if session.finished or self._submitting:
            return False
        if isinstance(self.app.screen, ConfirmScreen):
            return True
        t = self.t

        def decided(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.app.push_screen(
            ConfirmScreen(
                t("exam.quit_title"),
                t("exam.quit_body", answered=len(session.answers), total=session.total),
                yes=t("key.quit_anyway"),
                no=t("key.keep_going"),
            ),
            decided,
        )
        return True

    def finish(self, auto: bool) -> None:
        if self._submitting:
            return
        self._submitting = True
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exam_result import ExamResultScreen

        result = self.session.submit(auto=auto)  # archived before anything is shown
        while isinstance(self.app.screen, ConfirmSubmit):  # time ran out while confirming
            self.app.pop_screen()
        replace_screen(self, ExamResultScreen(self.session, result))


class ConfirmSubmit(StudyModal):
    CSS_PATH = "exam.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "decide(True)", "key.yes_submit", key_display="⏎"),
        Binding("escape,n", "decide(False)", "key.keep_going", key_display="esc"),
    ]

    def __init__(self, unanswered: int, flags: int) -> None:
        super().__init__()
        self.unanswered = unanswered
        self.flags = flags

    def compose(self) -> ComposeResult:
        t = self.t
        with Vertical(id="confirm-box"):
            yield Static(Content.styled(t("exam.confirm_title"), "bold"), markup=False)
            yield Static(
                Content(t("exam.confirm_body", unanswered=self.unanswered, flags=self.flags)), markup=False
            )
            yield Static(Content(t("exam.confirm_keys")), classes="muted", markup=False)
        yield KeyBar()  # this dialog's keys, not the exam's underneath

    def action_decide(self, yes: bool) -> None:
        self.dismiss(yes)


__all__ = ["ConfirmSubmit", "ExamIntroScreen", "ExamScreen"]
