"""A new question kind is one module: a toy kind, defined here, runs through the engine, the line
mode and the TUI quiz screen without a change to any of them (docs/ARCHITECTURE.md)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from studyapp.cli.plain import format_feedback
from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.progress.store import ProgressStore
from studyapp.quiz import kinds
from studyapp.quiz.engine import QuizSession, SessionOptions
from studyapp.quiz.kinds.base import INPUT_OX, Credit, FeedbackBlock, FeedbackView, Graded, QuestionKind
from studyapp.quiz.questions import Question
from tests.tui.helpers import screen_text


class FalseStatementKind(QuestionKind):
    """ "Is this statement false?" — the O/X item turned around."""

    name: ClassVar[str] = "toy-false"
    input: ClassVar[str] = INPUT_OX
    hint_key: ClassVar[str] = "toy.hint"
    strings: ClassVar[dict[str, dict[str, str]]] = {
        "ko": {"toy.hint": "틀린 문장이면 o", "toy.answer": "정답: {answer} (틀린 문장인가?)"},
        "en": {"toy.hint": "o if the statement is false", "toy.answer": "Answer: {answer} (is it false?)"},
    }

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        answer = response.strip().upper()
        if answer not in ("O", "X"):
            return None
        correct = answer == question.answer
        stored = "X" if answer == "O" else "O"  # the item's own O/X judgement the answer implies
        return Graded(correct, answer, (Credit(question.id, stored, correct, unsure, question.text_hash),))

    def answer_text(self, question: Question) -> str:
        return question.answer

    def feedback(self, feedback: Any, content: Content, t: Translator) -> FeedbackView:
        question = feedback.question
        return FeedbackView(
            answer=t("toy.answer", answer=question.answer),
            response=None,
            blocks=(FeedbackBlock(question.explanation),),
        )


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> FalseStatementKind:
    kind = FalseStatementKind()
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))  # registered for this test only
    kinds.register(kind)
    return kind


def toy_question(content: Content) -> Question:
    item = next(item for item in content.items.values() if item.answer == "X")
    return Question(
        id=item.id,
        kind="toy-false",
        topic=item.topic,
        prompt=item.statement,
        answer="O",  # the statement is false, so "is it false?" is O
        explanation=item.explanation,
    )


def test_the_engine_and_the_line_mode_take_a_new_kind(
    toy: FalseStatementKind, content: Content, store: ProgressStore
) -> None:
    question = toy_question(content)
    session = QuizSession(content, store, SessionOptions(), questions=[question])
    feedback = session.answer("o")
    assert feedback is not None and feedback.correct
    (review,) = store.reviews(question.id)
    assert review.kind == "toy-false" and review.answer == "X" and review.correct
    lines = format_feedback(feedback, content, Translator("en"))
    assert "Answer: O (is it false?)" in lines[0] and question.explanation in lines


async def test_the_quiz_screen_takes_a_new_kind(toy: FalseStatementKind, make: Any, content: Content) -> None:
    app = make(lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_quiz(SessionOptions(), questions=[toy_question(content)])
        await pilot.pause()
        assert "o if the statement is false" in screen_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert "Answer: O (is it false?)" in screen_text(app)
