"""The mock exam's result: score, pass/fail, time used, score per topic and a review of every miss
(each option of a 4-choice question with its explanation). `r` retries the misses as a new exam."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from studyapp.errors import StudyappError
from studyapp.progress import exams
from studyapp.quiz.exam import (
    ExamResult,
    ExamSession,
    QuestionResult,
    retry_questions,
    retry_time_limit,
)
from studyapp.quiz.exam_text import (
    archive_warning,
    option_truth,
    score_line,
    time_used_line,
    topic_scores,
    verdict_line,
)
from studyapp.quiz.presenting import percent, topic_path
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.screens.exam import close_exam, replace_screen
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging


class ExamResultScreen(StudyScreen):
    CSS_PATH = "exam.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,q,escape", "close", "key.close", key_display="⏎"),
        Binding("r", "retry", "key.exam_retry"),
    ]

    def __init__(self, session: ExamSession, result: ExamResult) -> None:
        super().__init__()
        self.session = session
        self.result = result

    def compose(self) -> ComposeResult:
        t = self.t
        result = self.result
        verdict = t("exam.pass") if result.passed else t("exam.fail")
        yield TitleBar(t("summary.exam_title"), verdict, id="exam-result-title")
        with VerticalScroll(id="exam-result-body"):
            yield Static(
                Content(score_line(result, t)),
                id="exam-result-score",
                classes="passed" if result.passed else "failed",
                markup=False,
            )
            yield Static(
                Content(verdict_line(result, self.study.content, t)), id="exam-result-verdict", markup=False
            )
            time_line = time_used_line(result, t)
            if result.unanswered:
                time_line += " · " + t("exam.unanswered", count=result.unanswered)
            yield Static(Content(time_line), id="exam-result-time", markup=False)
            warning = archive_warning(self.session, t)
            if warning:
                yield Static(Content(warning), classes="warning", markup=False)
            table: DataTable[Text] = DataTable(cursor_type="none", id="exam-result-topics", show_cursor=False)
            table.can_focus = False
            yield table
            yield Static(Content(t("exam.review")), classes="heading", markup=False)
            if not result.misses:
                yield Static(Content(t("exam.no_misses")), classes="muted", markup=False)
            for record in result.misses:
                yield from self._miss(record)
            yield Static(
                Content(
                    t("exam.attempt_keys" if result.misses else "exam.attempt_only", id=result.attempt_id[:8])
                ),
                classes="muted hint",
                markup=False,
            )
        yield KeyBar()

    def _miss(self, record: QuestionResult) -> ComposeResult:
        t = self.t
        question = record.question
        content = self.study.content
        with Vertical(classes="exam-miss"):
            yield Hanging(f"{record.number}.", question.stem, classes="exam-miss-head")
            yours = record.response if record.response is not None else t("exam.no_answer")
            yield Static(
                Content(f"{t('exam.you', answer=yours)} · {t('exam.key', answer=question.answer)}"),
                classes="exam-miss-line",
                markup=False,
            )
            if question.options:  # 4-choice, or glossary terms explained by their definitions
                for number, option in enumerate(question.options, start=1):
                    # ✓ the answer, ✗ the wrong pick: the same marks as the quiz's feedback
                    picked = record.response == str(number)
                    key = "✓" if str(number) == question.answer else ("✗" if picked else " ")
                    mine = "←" if picked else " "
                    truth = option_truth(question, option, t)
                    yield Hanging(f"{key}{mine} {number})", f"{option.text}{truth}", classes="exam-miss-line")
                    yield Static(Content(option.explanation), classes="exam-miss-explanation", markup=False)
            else:
                yield Static(Content(question.explanation), classes="exam-miss-explanation", markup=False)
                item = content.items.get(question.item_ids[0]) if question.item_ids else None
                if item is not None and item.exam_note:
                    yield Static(
                        Content(t("quiz.exam_note", note=item.exam_note)),
                        classes="exam-miss-explanation",
                        markup=False,
                    )

    def on_mount(self) -> None:
        t = self.t
        table = self.query_one("#exam-result-topics", DataTable)
        table.add_column(t("summary.col.topic"), key="topic")
        table.add_column(t("summary.col.right"), key="right")
        table.add_column(t("summary.col.score"), key="score")
        for topic_id, right, total in topic_scores(self.result, self.study.content):
            table.add_row(
                Text(topic_path(self.study.content, topic_id)),
                Text(f"{right}/{total}", justify="right"),
                Text(percent(right / total if total else 0.0), justify="right"),
                key=topic_id,
            )
        self.query_one("#exam-result-body").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return bool(self.result.misses)
        return True

    def action_close(self) -> None:
        close_exam(self)

    def action_retry(self) -> None:
        """A new exam of this attempt's misses (from the archive), starting at its intro."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exam import ExamIntroScreen

        store = self.study.store
        try:
            attempt = exams.find_attempt(store, self.result.attempt_id)
            questions = retry_questions(self.study.content, attempt)
        except StudyappError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        per_question = self.result.time_limit_s / max(1, self.result.total)
        settings = replace(
            self.session.settings,
            retry_of=attempt.uid,
            count=len(questions),
            time_limit_s=retry_time_limit(per_question, len(questions)),
        )
        session = ExamSession(
            self.study.content, store, settings, questions=questions, clock=self.session.clock
        )
        replace_screen(self, ExamIntroScreen(session))


__all__ = ["ExamResultScreen"]
