"""4지선다: four statements of one topic, "옳은 것은?" or "옳지 않은 것은?"; 1-4 picks, 0 is
"don't know". Each option's item is graded into its own schedule (studyapp.quiz.choice)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_PICK,
    Credit,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    as_credits,
    graded_pick,
    misconception_label,
    row_answer_index,
    row_ids,
)
from studyapp.quiz.questions import KIND_CHOICE, KIND_OX, Question

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback
    from studyapp.quiz.exam import ExamQuestion


class ChoiceKind(QuestionKind):
    name: ClassVar[str] = KIND_CHOICE
    asked_from: ClassVar[str | None] = KIND_OX  # built from O/X items (studyapp.quiz.choice)
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

    def exam_from_row(self, row: dict[str, Any], content: Content) -> ExamQuestion | None:
        """The four statements in the order asked, each with today's explanation."""
        from studyapp.quiz import exam

        ids = row_ids(row)
        items = [content.items.get(i) for i in ids]
        present = [item for item in items if item is not None]
        if not ids or len(present) != len(ids) or not row.get("options"):
            return None
        return exam.ExamQuestion(
            kind=KIND_CHOICE,
            topic=str(row.get("topic") or present[0].topic),
            stem=str(row.get("stem") or ""),
            answer=str(row.get("answer") or ""),
            options=exam.exam_options(present),
            item_ids=tuple(ids),
            source=exam.rebuild_choice(row, present),
        )

    def exam_retried(
        self, row: dict[str, Any], content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> list[ExamQuestion]:
        """A new question around the same key, its options redrawn where the topic allows (else
        the same ones reshuffled); the statements one by one as O/X when the bank's answer key
        changed since, or when only one statement is left."""
        from studyapp.quiz import exam

        ids = row_ids(row)
        if not ids or any(i not in content.items for i in ids):
            return []  # removed from the bank since
        items = [content.items[i] for i in ids]
        if len(items) == 1:
            return [exam.ox_question(items[0])]
        key_answer = items[row_answer_index(row, len(items)) or 0].answer
        if sum(item.answer == key_answer for item in items) != 1:
            return [exam.ox_question(item) for item in items]
        module = exam.choice_module()
        source = exam.rebuild_choice(row, items)
        if source is not None and module is not None:
            session = shared.setdefault(self.name, module.ChoiceSession(rng))
            return [exam.from_choice(module.shared_builder(content).fresh_question(source, rng, session))]
        return [
            exam.ExamQuestion(
                kind=KIND_CHOICE,
                topic=str(row.get("topic") or items[0].topic),
                stem=str(row.get("stem") or ""),
                answer=str(row.get("answer")),
                options=exam.exam_options(items),
                item_ids=tuple(ids),
            )
        ]

    def exam_credits(self, question: ExamQuestion, response: str, content: Content) -> tuple[Credit, ...]:
        """Every option's item, the way a 4-choice quiz answer credits them."""
        if question.source is None:
            return ()  # rebuilt without the generator: nothing to credit
        from studyapp.quiz.choice import stored_credits

        return as_credits(stored_credits(question.source, int(response) - 1, False))


KIND = ChoiceKind()
