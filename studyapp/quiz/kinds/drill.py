"""Calculation drills: a number typed into a box (fractions, %, units read by quiz.numbers)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.drills import grade
from studyapp.quiz.kinds.base import (
    INPUT_NUMBER,
    Credit,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    misconception_label,
)
from studyapp.quiz.numbers import parse_number
from studyapp.quiz.question import KIND_DRILL, Question, drill_index, question_from_drill

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback

# Units written against the number (`6.40배`, `25%`, `9.0건`); any other unit gets a space (`40.0 items/s`).
_TIGHT_UNITS = ("", "배", "%", "x", "×", "건")


def unit_suffix(unit: str) -> str:
    return unit if unit in _TIGHT_UNITS else f" {unit}"


class DrillKind(QuestionKind):
    name: ClassVar[str] = KIND_DRILL
    guess_rate: ClassVar[float] = 0.0
    in_exam: ClassVar[bool] = False  # the exam's screens take picks and O/X, not typed numbers
    input: ClassVar[str] = INPUT_NUMBER
    label_key: ClassVar[str | None] = "quiz.drill"
    hint_key: ClassVar[str] = "quiz.drill_hint"
    unreadable_key: ClassVar[str] = "quiz.unreadable_drill"
    plain_prompt_key: ClassVar[str] = "plain.prompt_num"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable_num"

    def source(self, content: Content) -> Iterable[Question]:
        """The generated drills of the content's topics."""
        return (question_from_drill(d) for d in drill_index().values() if d.topic in content.topics)

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        typed = response.strip()
        correct = grade(drill_index()[question.id], typed)
        if correct is None:
            return None
        return Graded(correct, typed, (Credit(question.id, typed, correct, unsure, question.text_hash),))

    def answer_text(self, question: Question) -> str:
        """The number with its unit, to the decimals asked: the tolerance is one unit of the last."""
        decimals = max(0, round(-math.log10(question.tolerance))) if question.tolerance > 0 else 2
        unit = unit_suffix(question.unit)
        try:
            return f"{float(question.answer):.{decimals}f}{unit}"
        except ValueError:
            return f"{question.answer}{unit}"

    def response_text(self, question: Question, typed: str) -> str:
        """What was typed, and the value it gives when it was an expression: `1/(0.2+0.8/4) =
        2.50배` (c9: the miss showed the expression, not that it gave Amdahl's 2.50)."""
        try:
            float(typed.replace(",", ""))
            return typed  # a plain number says its value itself
        except ValueError:
            pass
        value = parse_number(typed, question.unit)
        if value is None:
            return typed
        decimals = max(0, round(-math.log10(question.tolerance))) if question.tolerance > 0 else 2
        return f"{typed} = {value:.{decimals}f}{unit_suffix(question.unit)}"

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        question = feedback.question
        return FeedbackView(
            answer=t("quiz.answer", answer=self.answer_text(question)),
            response=t("quiz.your_answer", answer=self.response_text(question, feedback.response.strip())),
            blocks=(
                FeedbackBlock(
                    question.explanation, misconception=misconception_label(content, question.misconception)
                ),
            ),
        )


KIND = DrillKind()
