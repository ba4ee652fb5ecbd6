"""O/X: is the statement true? Answered with o/x (1/2, ←/→); one review of the item."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_OX,
    Credit,
    ExamScope,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    misconception_label,
    row_ids,
)
from studyapp.quiz.question import KIND_OX, Question, question_from_item

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback

# Typed in the line mode; the TUI binds the same keys.
_KEY_ALIASES = {"1": "O", "2": "X", "o": "O", "x": "X", "ㅇ": "O", "ㅐ": "O", "ㅌ": "X"}


class OxKind(QuestionKind):
    name: ClassVar[str] = KIND_OX
    guess_rate: ClassVar[float] = 0.5
    input: ClassVar[str] = INPUT_OX

    def source(self, content: Content) -> Iterable[Question]:
        return (question_from_item(item) for item in content.items.values())

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        answer = response.strip().upper()
        if answer not in ("O", "X"):
            return None
        correct = answer == question.answer
        return Graded(correct, answer, (Credit(question.id, answer, correct, unsure, question.text_hash),))

    def plain_response(self, text: str) -> str:
        return _KEY_ALIASES.get(text.lower(), text)

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        question = feedback.question
        item = content.items.get(question.id)
        return FeedbackView(
            answer=t("quiz.answer", answer=self.answer_text(question)),
            response=t("quiz.your_answer", answer=feedback.response.strip().upper()),
            blocks=(
                FeedbackBlock(
                    question.explanation,
                    exam_note=item.exam_note if item is not None else None,
                    misconception=misconception_label(content, question.misconception),
                ),
            ),
        )

    def exam_questions(
        self, content: Content, scope: ExamScope, count: int, rng: random.Random
    ) -> list[Question]:
        """The scope's items shuffled, dealt round-robin over topics."""
        from studyapp.quiz.engine import interleave  # the engine imports the kinds: asked at call time

        shuffled = list(scope.items)
        rng.shuffle(shuffled)
        return interleave(question_from_item(item) for item in shuffled)[:count]

    def exam_from_row(self, row: dict[str, Any], content: Content) -> Question | None:
        ids = row_ids(row)
        item = content.items.get(ids[0]) if ids else None
        return question_from_item(item) if item is not None else None

    def exam_note(self, question: Question, content: Content) -> str | None:
        item = content.items.get(question.id)
        return item.exam_note if item is not None else None


KIND = OxKind()
