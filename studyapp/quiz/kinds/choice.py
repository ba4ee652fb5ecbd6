"""4지선다: four statements of one topic, "옳은 것은?" or "옳지 않은 것은?"; 1-4 picks, 0 is
"don't know". Each option's item is graded into its own schedule (studyapp.quiz.choice)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_PICK,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    graded_pick,
    misconception_label,
)
from studyapp.quiz.questions import KIND_CHOICE, Question

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback


class ChoiceKind(QuestionKind):
    name: ClassVar[str] = KIND_CHOICE
    guess_rate: ClassVar[float] = 0.25
    input: ClassVar[str] = INPUT_PICK
    hint_key: ClassVar[str] = "choice.hint"
    unreadable_key: ClassVar[str] = "choice.unreadable"
    plain_prompt_key: ClassVar[str] = "plain.prompt_choice"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable_choice"

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        choice = question.choice
        assert choice is not None

        def credits(picked: int | None) -> list[Any]:
            # quiz.choice is the generator too (cue solver, similarity index): imported on the
            # first answer, not at start-up, since the quiz's first paint is measured
            # (benchmarks/startup.py)
            from studyapp.quiz.choice import stored_credits

            return stored_credits(choice, picked, unsure)

        return graded_pick(response, unsure, len(choice.options), credits, choice.is_right)

    def option_lines(self, question: Question) -> list[str]:
        assert question.choice is not None
        return [f"{index + 1}) {item.statement}" for index, item in enumerate(question.choice.options)]

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        """Every option with its [O]/[X] truth, ✓ on the answer and ✗ on a wrong pick, and why —
        one question teaches four facts."""
        choice = feedback.question.choice
        assert choice is not None
        from studyapp.quiz.choice import option_marks  # after first paint (see read)

        blocks = []
        for mark in option_marks(choice, feedback.picked):
            tags = ([t("choice.key")] if mark.is_key else []) + ([t("choice.picked")] if mark.picked else [])
            explains_miss = mark.picked and not feedback.correct
            blocks.append(
                FeedbackBlock(
                    mark.item.explanation,
                    heading=f"{mark.number}) [{mark.item.answer}] {mark.item.statement}",
                    true_statement=mark.true_statement,
                    verdict=True if mark.is_key else (False if mark.picked else None),
                    tags=tuple(tags),
                    emphasised=mark.is_key or mark.picked,
                    exam_note=mark.item.exam_note,
                    misconception=misconception_label(content, mark.item.misconception)
                    if explains_miss
                    else None,
                )
            )
        response = (
            t("choice.no_pick")
            if feedback.picked is None
            else t("choice.your_pick", number=feedback.picked + 1)
        )
        return FeedbackView(
            answer=t("choice.answer", number=choice.answer_index + 1),
            response=response,
            blocks=tuple(blocks),
            says_unsure=feedback.picked is None,
        )

    def recorded_answer(self, question: Question, answer: str, content: Content, t: Translator) -> str:
        """A 4-choice answer credits each option's O/X item with the judgement the pick implies:
        say it came from a 4지선다 question, not from an O/X one the learner never saw (m2)."""
        key = {"O": "choice.recorded_true", "X": "choice.recorded_false"}.get(answer, "choice.recorded_none")
        return t(key)

    def retried(
        self, question: Question, content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> Question:
        """Around the same key with other options (or the same ones reshuffled): one ChoiceSession
        per retry, so its questions do not share options."""
        if question.choice is None:
            return question
        from studyapp.quiz.choice import ChoiceSession, as_question, shared_builder

        session = shared.setdefault(self.name, ChoiceSession(rng))
        return as_question(shared_builder(content).fresh_question(question.choice, rng, session))

    def miss_line(self, question: Question) -> str:
        """Name the statement that was the key."""
        assert question.choice is not None
        key = question.choice.key
        return f"[{key.id}] {question.prompt} {key.statement} → {question.answer}"


KIND = ChoiceKind()
