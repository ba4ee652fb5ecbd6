"""The lab's O/X check question, asked after a run (from the labs screen only, never over another).

Each question is asked once per version of its text (`check_version`): the version of the last
answer is kept in the store's meta under `CHECK_META_PREFIX + lab id`.
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from studyapp.tui.screens.base import StudyModal
from studyapp.tui.widgets.keybar import KeyBar

CHECK_META_PREFIX = "labs.check_asked."


def check_version(question: Any) -> str:
    """Changes when the check question's text changes: an edited question is asked once more."""
    text = f"{question.statement}\n{question.answer}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


class CheckQuestionScreen(StudyModal):
    """The lab's O/X check question; the answer is stored with `store.record_lab_answer`."""

    CSS_PATH = "check_question.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,1,left", "answer('O')", "key.answer_o", key_display="o"),
        Binding("x,2,right", "answer('X')", "key.answer_x", key_display="x"),
        Binding("enter,space", "close", "key.close", key_display="⏎"),
        Binding("escape", "skip", "key.close", key_display="esc"),
    ]

    def __init__(self, lab_id: str, question: Any) -> None:
        super().__init__()
        self.lab_id = lab_id
        self.question = question
        self.answered: str | None = None

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this modal's keys, not the labs screen's underneath
        with Vertical(id="check-box"):
            yield Static(Content(self.t("labs.check_title")), classes="heading", markup=False)
            yield Static(Content(self.question.statement), id="check-statement", markup=False)
            yield Static(id="check-verdict", markup=False)
            yield Static(id="check-explanation", markup=False)
            yield Static(Content(self.t("labs.check_hint")), id="check-hint", classes="muted", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer":
            return self.answered is None
        if action == "close":
            return self.answered is not None
        return True

    def action_answer(self, answer: str) -> None:
        if self.answered is not None:
            return
        self.answered = answer
        correct = answer == self.question.answer
        store = self.study.store
        saved = self.study.save(partial(store.record_lab_answer, self.lab_id, answer, correct))
        if saved:
            self.study.save(
                partial(store.set_meta, CHECK_META_PREFIX + self.lab_id, check_version(self.question))
            )
        t = self.t
        verdict = t("labs.check_right") if correct else t("labs.check_wrong", answer=self.question.answer)
        self.query_one("#check-verdict", Static).update(Content.styled(verdict, "bold"))
        self.query_one("#check-verdict").set_class(correct, "right")
        self.query_one("#check-verdict").set_class(not correct, "wrong")
        self.query_one("#check-explanation", Static).update(Content(self.question.explanation))
        self.query_one("#check-hint", Static).update(Content(t("labs.check_close")))
        self.refresh_bindings()

    def action_close(self) -> None:
        self.dismiss(self.answered)

    def action_skip(self) -> None:
        self.dismiss(self.answered)
