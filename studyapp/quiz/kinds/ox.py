"""O/X: is the statement true? Answered with o/x (1/2, ←/→); one review of the item."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_OX,
    Credit,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    misconception_label,
)
from studyapp.quiz.questions import KIND_OX, Question

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback

# Typed in the line mode; the TUI binds the same keys.
_KEY_ALIASES = {"1": "O", "2": "X", "o": "O", "x": "X", "ㅇ": "O", "ㅐ": "O", "ㅌ": "X"}


class OxKind(QuestionKind):
    name: ClassVar[str] = KIND_OX
    guess_rate: ClassVar[float] = 0.5
    input: ClassVar[str] = INPUT_OX

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


KIND = OxKind()
