"""The end of a session: right/wrong per topic, time, what is due next, and a review of every
miss (statement, your answer, the answer, the explanation and the misconception)."""

from __future__ import annotations

import random
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from studyapp.quiz.engine import AnswerRecord, QuizSession, SessionOptions
from studyapp.quiz.kinds import retried_questions
from studyapp.quiz.presenting import answer_text, due_phrase, elapsed_text, exam_note, percent, topic_path
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.screens.quiz import QuizScreen
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging


class SummaryScreen(StudyScreen):
    CSS_PATH = "summary.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,q,escape", "close", "key.close", key_display="⏎"),
        Binding("w", "retry_wrong", "key.retry_wrong"),
        Binding("u,ㅕ", "undo", "key.undo", key_display="u"),
    ]

    def __init__(self, session: QuizSession) -> None:
        super().__init__()
        self.session = session
        self.summary = session.summary()

    def compose(self) -> ComposeResult:
        t = self.t
        summary = self.summary
        score = t(
            "summary.score",
            correct=summary.correct,
            answered=summary.answered,
            percent=percent(summary.correct / summary.answered if summary.answered else None),
            elapsed=elapsed_text(summary.elapsed_s, t),
        )
        yield TitleBar(f"{t('summary.title')} · {t('quiz.mode.' + summary.mode)}", id="summary-title")
        with VerticalScroll(id="summary-body"):
            yield Static(Content(score), id="summary-score", markup=False)
            table: DataTable[Text] = DataTable(cursor_type="none", id="summary-topics", show_cursor=False)
            table.can_focus = False
            yield table
            when = due_phrase(summary.next_due, self.study.now(), t, self.study.tz)
            yield Static(
                Content(
                    f"{t('summary.due_now', count=summary.due_now)} · {t('summary.next_due', when=when)}"
                ),
                id="summary-due",
                markup=False,
            )
            yield Static(Content(t("summary.misses")), classes="heading", markup=False)
            if not summary.misses:
                yield Static(Content(t("summary.no_misses")), classes="muted", markup=False)
            for record in summary.misses:
                yield from self._miss(record, full=True)  # every summary explains its misses
            labelled = {k: v for k, v in summary.by_misconception.items() if k != "-"}
            if labelled:
                yield Static(Content(t("summary.by_misconception")), classes="heading", markup=False)
                for tag, records in sorted(labelled.items(), key=lambda kv: -len(kv[1])):
                    label = self.study.content.misconceptions.get(tag, tag)
                    yield Hanging("•", f"{label} ×{len(records)}", classes="miss-line")
            # `w` only where there are misses to retry (N29)
            hint = "summary.hint" if self.summary.misses else "summary.hint_no_misses"
            yield Static(Content(t(hint)), classes="muted hint", markup=False)
        yield KeyBar()

    def _miss(self, record: AnswerRecord, full: bool) -> ComposeResult:
        question = record.question
        t = self.t
        with Vertical(classes="miss"):
            # A 4-choice miss names the statement that was the key, after the stem.
            statement = (
                f"{question.prompt} {question.choice.key.statement}" if question.choice else question.prompt
            )
            yield Hanging("✗", statement, classes="miss-statement")
            line = f"{t('quiz.your_answer', answer=record.response)} · {t('quiz.answer', answer=answer_text(question))}"
            yield Static(Content(line), classes="miss-answer", markup=False)
            if full:
                yield Static(Content(question.explanation), classes="miss-explanation", markup=False)
                note = exam_note(self.study.content, question)
                if note:
                    yield Static(
                        Content(t("quiz.exam_note", note=note)), classes="miss-explanation", markup=False
                    )
                if question.misconception:
                    label = self.study.content.misconceptions.get(
                        question.misconception, question.misconception
                    )
                    yield Static(
                        Content(t("quiz.misconception", label=label)),
                        classes="miss-misconception",
                        markup=False,
                    )

    def on_mount(self) -> None:
        t = self.t
        table = self.query_one("#summary-topics", DataTable)
        table.add_column(t("summary.col.topic"), key="topic")
        table.add_column(t("summary.col.right"), key="right")
        table.add_column(t("summary.col.wrong"), key="wrong")
        table.add_column(t("summary.col.score"), key="score")
        order = {topic.id: index for index, topic in enumerate(self.study.content.ordered_topics())}
        for topic_id, (right, wrong) in sorted(
            self.summary.per_topic.items(), key=lambda kv: order.get(kv[0], 99)
        ):
            table.add_row(
                Text(topic_path(self.study.content, topic_id)),
                Text(str(right), justify="right"),
                Text(str(wrong), justify="right"),
                Text(percent(right / (right + wrong) if right + wrong else None), justify="right"),
                key=topic_id,
            )
        self.query_one("#summary-body").focus()

    def action_close(self) -> None:
        self.study.close_session()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry_wrong":
            return bool(self.summary.misses)
        if action == "undo":
            return bool(self.session.answers) and self._quiz() is not None
        return True

    def _quiz(self) -> QuizScreen | None:
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) > 1 else None
        return below if isinstance(below, QuizScreen) and below.session is self.session else None

    def action_undo(self) -> None:
        """Back to the session with its last answer taken back (a fumbled last key is not final)."""
        quiz = self._quiz()
        if quiz is None:
            return
        self.dismiss()
        quiz.action_undo()

    def action_retry_wrong(self) -> None:
        """Retry this session's misses (the whole notebook is on Home: w). A missed 4-choice or
        glossary question comes back around the same key with its options redrawn or reshuffled."""
        questions = list(dict.fromkeys(record.question for record in self.summary.misses))
        if not questions:
            return
        questions = retried_questions(self.study.content, questions, random.Random())
        self.study.close_session()
        self.study.start_quiz(SessionOptions(mode="wrong"), questions=questions)
