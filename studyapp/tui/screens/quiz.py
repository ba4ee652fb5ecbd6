"""The question screen: one statement at a time, O/X (or a number, or 1-4 for a 4-choice
question), feedback, undo, unsure.

Every answer goes through `QuizSession.answer`, which commits to the store before it returns;
only then is the feedback shown. (The mock exam, which keeps feedback for the end, has screens of
its own: screens/exam.py and exam_result.py.)
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import Static

from studyapp.errors import StudyappError
from studyapp.quiz.engine import Feedback, QuizSession, SessionOptions
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.kinds.base import INPUT_NUMBER, INPUT_OX, INPUT_PICK
from studyapp.quiz.numbers import EXAMPLES as NUMBER_EXAMPLES
from studyapp.quiz.presenting import due_phrase, fit, topic_path
from studyapp.quiz.questions import Question
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.screens.feedback_view import feedback_rows
from studyapp.tui.widgets.inputs import DrillInput
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.progress import SessionProgress
from studyapp.tui.widgets.text import HangingRows, row

# Registered here rather than in tui/strings.py (issue 9, store helper): the toast's title when an
# answer could not be written yet.
ASKING = "asking"
FEEDBACK = "feedback"
EMPTY = "empty"


def statement_visual(prompt: str) -> HangingRows:
    """The statement, and a 4-choice question's options hanging under their own text."""
    rows = []
    for line in prompt.split("\n"):
        number, separator, text = line.partition(") ")
        if separator and number.isdigit():
            rows.append(row(text, number + separator))
        else:
            rows.append(row(line))
    return HangingRows(rows)


class QuizScreen(StudyScreen):
    """A quiz session. Pushed on top of a section; `q` turns it into its summary."""

    AUTO_FOCUS = None  # nothing focused for O/X (keys go to the screen); the drill Input when asked

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,1,left", "answer('O')", "key.answer_o", key_display="o"),
        Binding("x,2,right", "answer('X')", "key.answer_x", key_display="x"),
        # The same keys with a Korean keyboard layout left on (두벌식: o → ㅐ, x → ㅌ).
        Binding("ㅐ", "answer('O')", "key.answer_o", show=False),
        Binding("ㅌ", "answer('X')", "key.answer_x", show=False),
        # A 4-choice question: the digits pick an option (1 and 2 reach here when not O/X).
        Binding("1", "pick(1)", "key.pick", key_display="1-4"),
        Binding("2", "pick(2)", "key.pick", show=False),
        Binding("3", "pick(3)", "key.pick", show=False),
        Binding("4", "pick(4)", "key.pick", show=False),
        Binding("0", "pick(0)", "key.dont_know", key_display="0"),
        Binding("enter,space", "next", "key.next", key_display="⏎"),
        Binding("question_mark", "toggle_unsure", "key.unsure", key_display="?", priority=True),
        # Letters are not priority bindings: in a drill's number box they are typed (`abc` stays
        # in the box); there, ctrl+z undoes, Esc ends, and Tab leaves the box for c / l / u / q.
        Binding("u,ㅕ", "undo", "key.undo", key_display="u"),
        Binding("ctrl+z", "undo", "key.undo", key_display="^z", show=False, priority=True),
        Binding("c,ㅊ", "card", "key.card", key_display="c"),
        Binding("l,ㅣ", "lab", "key.lab", key_display="l"),
        Binding("escape", "end", "key.end", key_display="esc", priority=True),
        Binding("q,ㅂ", "end", "key.end", key_display="q"),
        Binding("tab", "toggle_box", "key.toggle_box", key_display="tab", show=False, priority=True),
        Binding("n", "restart('new')", "key.start_new", show=True),
        Binding("r", "restart('cram')", "key.start_cram", show=True),
        Binding("up", "scroll('up')", "key.scroll_up", show=False),
        Binding("down", "scroll('down')", "key.scroll_down", show=False),
        Binding("pageup", "scroll('page_up')", "key.scroll_up", show=False),
        Binding("pagedown", "scroll('page_down')", "key.scroll_down", show=False),
    ]

    def __init__(self, options: SessionOptions, session: QuizSession | None = None) -> None:
        super().__init__()
        self.options = options
        self.session = session or QuizSession(self.study.content, self.study.store, options)
        self.state = EMPTY if self.session.finished else ASKING
        self.unsure = False
        self.feedback: Feedback | None = None
        self._painted = False

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # Few widgets, composed with the first question already in them: this screen is what
        # `studyapp quiz` paints first (benchmarks/startup.py).
        title, right, prompt, hint = self._asking_texts()
        yield TitleBar(title, right, id="quiz-title")
        yield SessionProgress(id="quiz-progress")
        with VerticalScroll(id="quiz-body", can_focus=False):
            yield Static(statement_visual(prompt), id="statement", markup=False)
            flag = Static(Content(self.t("quiz.unsure")), id="unsure-flag", markup=False)
            flag.display = False
            yield flag
            yield Static(Content(hint), id="quiz-hint", markup=False)
            feedback = Static(id="feedback", markup=False)
            feedback.display = False
            yield feedback
        yield KeyBar()

    def on_mount(self) -> None:
        self.show_current(initial=True)
        if not self._painted:
            self._painted = True
            self.study.first_question_painted()
        self.call_after_refresh(self._prepare_session)

    def _prepare_session(self) -> None:
        """Build the session's 4-choice and glossary questions once the first question is on screen."""
        total = self.session.total
        self.session.prepare()
        if self.session.total != total and self.state == ASKING:
            self.query_one("#quiz-title", TitleBar).set(
                right=self.t("quiz.progress", current=self.session.position + 1, total=self.session.total)
            )

    def _asking_texts(self) -> tuple[str, str, str, str]:
        """(title, progress, statement, hint) for the current question, or the empty message."""
        session = self.session
        question = self.question
        if question is None:
            return self._mode_label(), "", self.t("quiz.empty"), self.t("quiz.empty_hint")
        topic = topic_path(self.study.content, question.topic)
        question_kind = kind_of(question)
        kind = f" · {self.t(question_kind.label_key)}" if question_kind.label_key else ""
        if self.options.checklist:  # say which filter made this session
            kind += f" · {self.t('quiz.checklist_filter', id=self.options.checklist)}"
        if session.mode == "wrong":  # the notebook's grouping, visible while retrying
            tag = question.misconception
            label = (
                self.study.content.misconceptions.get(tag, tag) if tag else self.t("quiz.no_misconception")
            )
            in_group = [q for q in session.queue if q.misconception == tag]
            kind = f" · {fit(label, 40)} ({in_group.index(question) + 1}/{len(in_group)})"
        hint = self.t(question_kind.hint_key)
        if session.mode == "cram" and session.position == 0:
            hint = f"{hint}\n{self.t('quiz.cram_note')}"  # cram answers move the schedule too
        return (
            f"{self._mode_label()} · {topic}{kind}",
            self.t("quiz.progress", current=session.position + 1, total=session.total),
            "\n".join([question.prompt, "", *options])
            if (options := question_kind.option_lines(question))
            else question.prompt,
            hint,
        )

    def on_screen_resume(self) -> None:
        if self.state == ASKING and self.current_input() == INPUT_NUMBER:
            self.drill_input().focus()

    def drill_input(self) -> DrillInput:
        """The number box, mounted the first time a drill is asked (O/X sessions never need it)."""
        try:
            return self.query_one("#drill-input", DrillInput)
        except NoMatches:
            field = DrillInput(placeholder=self.t("quiz.number_placeholder"), id="drill-input")
            self.query_one("#quiz-body").mount(field, after="#unsure-flag")
            return field

    # -- state ---------------------------------------------------------------------------------
    @property
    def question(self) -> Question | None:
        return self.session.current

    def current_input(self) -> str | None:
        """How the current question is answered (the kind's INPUT_*), None when nothing is asked."""
        question = self.question
        return kind_of(question).input if question else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer":
            return self.state == ASKING and self.current_input() == INPUT_OX
        if action == "pick":
            return self.state == ASKING and self.current_input() == INPUT_PICK
        if action == "next":
            return self.state == FEEDBACK
        if action == "toggle_unsure":
            return self.state == ASKING
        if action == "toggle_box":
            return self.state == ASKING and self.current_input() == INPUT_NUMBER
        if action in ("card", "lab"):
            return self.state != EMPTY and self._shown_question() is not None
        if action == "undo":
            return self.state != EMPTY or bool(self.session.answers)
        if action == "restart":
            return self.state == EMPTY
        return True

    def _shown_question(self) -> Question | None:
        """The question on screen: the current one, or the one whose feedback is showing."""
        if self.state == FEEDBACK and self.feedback is not None:
            return self.feedback.question
        return self.question

    # -- rendering -----------------------------------------------------------------------------
    def _mode_label(self) -> str:
        return self.t(f"quiz.mode.{self.session.mode}")

    def _hide_drill_input(self) -> None:
        for field in self.query("#drill-input"):
            field.display = False
            field.disabled = True

    def show_current(self, initial: bool = False) -> None:
        """Show the current question (asking), or the empty message.

        `initial`: compose already put the texts in place; only state, focus and timing remain.
        """
        session = self.session
        question = self.question
        self.feedback = None
        self.state = ASKING if question is not None else EMPTY
        if not initial:
            title, right, prompt, hint_text = self._asking_texts()
            self.query_one("#quiz-title", TitleBar).set(title, right)
            self.query_one("#statement", Static).update(statement_visual(prompt))
            hint = self.query_one("#quiz-hint", Static)
            hint.update(Content(hint_text))
            hint.remove_class("warning")
            hint.display = True
            self.query_one("#feedback").display = False
            self.query_one("#unsure-flag").display = self.unsure and question is not None
            self.query_one("#quiz-body", VerticalScroll).scroll_home(animate=False)
            self.refresh_bindings()
        self.query_one("#quiz-progress", SessionProgress).fraction = (
            session.position / session.total if session.total else 0.0
        )
        if question is not None and kind_of(question).input == INPUT_NUMBER:
            field = self.drill_input()
            field.display = True
            field.disabled = False
            field.value = ""
            field.focus()
        else:
            self._hide_drill_input()
            self.set_focus(None)
        if question is not None:
            session.mark_shown()

    def show_feedback(self, feedback: Feedback) -> None:
        self.state = FEEDBACK
        self.feedback = feedback
        session = self.session
        self.query_one("#quiz-title", TitleBar).set(
            right=self.t("quiz.progress", current=session.position, total=session.total)
        )
        self.query_one("#quiz-progress", SessionProgress).fraction = session.position / session.total
        self.query_one("#unsure-flag").display = False
        for field in self.query("#drill-input"):
            field.disabled = True
        self.query_one("#quiz-hint", Static).display = False
        if kind_of(feedback.question).option_lines(feedback.question):  # the feedback explains each option
            self.query_one("#statement", Static).update(Content(feedback.question.prompt))
        box = self.query_one("#feedback", Static)
        box.set_class(feedback.correct, "right")
        box.set_class(not feedback.correct, "wrong")
        box.update(self._feedback_content(feedback))
        box.display = True
        self.set_focus(None)
        self.refresh_bindings()

    def _feedback_content(self, feedback: Feedback) -> HangingRows:
        """What the kind explains (feedback_view), then when it comes back."""
        t = self.t
        view = kind_of(feedback.question).feedback(feedback, self.study.content, t)
        when = due_phrase(feedback.next_due, self.study.now(), t, self.study.tz)
        return HangingRows(
            [
                *feedback_rows(view, feedback, t),
                row(Content.styled(t("quiz.next_due", when=when), "$text-muted")),
                row(Content.styled(t("quiz.continue"), "italic $text-muted")),
            ]
        )

    # -- answering -----------------------------------------------------------------------------
    def submit(self, response: str) -> None:
        """Grade `response` for the current question: record it, then show feedback (or move on)."""
        if self.state != ASKING or self.question is None:
            return
        feedback = self.session.answer(response, unsure=self.unsure)  # commits before returning
        if feedback is None:
            hint = self.query_one("#quiz-hint", Static)
            message = self.t(kind_of(self.question).unreadable_key, examples=", ".join(NUMBER_EXAMPLES))
            hint.update(Content(message))
            hint.add_class("warning")
            return
        self.unsure = False
        self.call_after_refresh(self.session.settle)  # checkpoint once the feedback is painted
        if feedback.save_problem:  # kept in memory, written with the next answer or at exit
            self.notify(
                feedback.save_problem, title=self.t("notify.not_saved"), severity="warning", markup=False
            )
        self.show_feedback(feedback)

    def action_answer(self, response: str) -> None:
        self.submit(response)

    def action_pick(self, number: int) -> None:
        """1-4 picks that option of a 4-choice question; 0 is "don't know" (counts as unsure)."""
        if number == 0:
            self.unsure = True
            self.submit("")
        else:
            self.submit(str(number))

    def on_input_submitted(self, event: DrillInput.Submitted) -> None:
        event.stop()
        if event.input.id == "drill-input":
            self.submit(event.value)

    def action_next(self) -> None:
        if self.state != FEEDBACK:
            return
        if self.session.finished:
            self.action_end()
        else:
            self.show_current()

    def action_toggle_box(self) -> None:
        """Tab: leave the number box (so c / l / u / q act as keys) or go back into it."""
        field = self.drill_input()
        hint = self.query_one("#quiz-hint", Static)
        hint.remove_class("warning")
        if field.has_focus:
            self.set_focus(None)
            hint.update(Content(self.t("quiz.drill_hint_keys")))
        else:
            field.focus()
            hint.update(Content(self.t("quiz.drill_hint")))

    def action_toggle_unsure(self) -> None:
        if self.state != ASKING:
            return
        self.unsure = not self.unsure
        self.query_one("#unsure-flag").display = self.unsure

    def action_undo(self) -> None:
        try:
            question = self.session.undo()
        except StudyappError as exc:  # the store could not be written (disk full, locked)
            self.notify(str(exc), severity="error", markup=False)
            return
        if question is None:
            self.notify(self.t("notify.nothing_to_undo"), timeout=2)
            return
        self.unsure = False
        self.show_current()
        self.notify(self.t("notify.undone"), timeout=2)

    def action_scroll(self, how: str) -> None:
        body = self.query_one("#quiz-body", VerticalScroll)
        getattr(body, f"scroll_{how}")(animate=False)

    # -- leaving -------------------------------------------------------------------------------
    def action_end(self) -> None:
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.summary import SummaryScreen

        if not self.session.answers:
            self.study.close_session()
            return
        self.study.push_screen(SummaryScreen(self.session))

    def action_restart(self, mode: str) -> None:
        if self.state != EMPTY:
            return
        # The same filters, count and kind in another mode; a fresh order (no seed).
        options = dataclasses.replace(self.options, mode=mode, seed=None)
        try:
            self.session = QuizSession(self.study.content, self.study.store, options)
        except StudyappError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.options = options
        self.show_current()

    def action_card(self) -> None:
        question = self._shown_question()
        if question is None:
            return
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.cards import CardsScreen

        self.study.push_screen(CardsScreen(topic=question.topic, section=question.section, pushed=True))

    def action_lab(self) -> None:
        question = self._shown_question()
        if question is None:
            return
        content = self.study.content
        item = content.items.get(question.id) or (question.choice.key if question.choice else None)
        if item is not None:
            labs = content.labs_for_item(item)
        else:
            topic = content.topics.get(question.topic)
            labs = topic.labs if topic else ()
        known = self.study.lab_registry()
        available = [lab for lab in labs if lab in known]
        if not available:
            self.notify(self.t("notify.no_linked_lab"), timeout=3)
            return
        self.study.open_lab(available[0])


__all__ = ["QuizScreen"]
