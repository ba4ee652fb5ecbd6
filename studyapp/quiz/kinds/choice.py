"""4지선다: four statements of one topic, "옳은 것은?" or "옳지 않은 것은?"; 1-4 picks, 0 is
"don't know". Each option's item is graded into its own schedule (studyapp.quiz.choice)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from studyapp.content.model import Content, Item
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_PICK,
    ExamScope,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    graded_pick,
    misconception_label,
    row_answer_index,
    row_ids,
)
from studyapp.quiz.question import KIND_CHOICE, KIND_OX, Question, question_from_item

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback


class ChoiceKind(QuestionKind):
    name: ClassVar[str] = KIND_CHOICE
    asked_from: ClassVar[str | None] = KIND_OX  # built from O/X items (studyapp.quiz.choice)
    guess_rate: ClassVar[float] = 0.25
    input: ClassVar[str] = INPUT_PICK
    hint_key: ClassVar[str] = "choice.hint"
    unreadable_key: ClassVar[str] = "choice.unreadable"
    plain_prompt_key: ClassVar[str] = "plain.prompt_choice"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable_choice"
    options_are_statements: ClassVar[bool] = True  # each option is an O/X statement with its truth
    strikes_known_options: ClassVar[bool] = True
    exam_takes_shares: ClassVar[bool] = True  # a 4-choice exam mixes in the glossary's share

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

    def exam_questions(
        self, content: Content, scope: ExamScope, count: int, rng: random.Random
    ) -> list[Question]:
        """Four statements of one topic around each key the scope's items allow."""
        from studyapp.quiz.choice import as_question, generate_choice_questions, topic_titles

        made = generate_choice_questions(scope.items, count, rng, titles=topic_titles(content))
        return [as_question(question) for question in made]

    def dump_row(self, question: Question) -> dict[str, Any]:
        """The generator's own shape (`--dump --json` kept it before kinds owned the dump)."""
        return question.source.to_dict() if question.source is not None else super().dump_row(question)

    def exam_from_row(self, row: dict[str, Any], content: Content) -> Question | None:
        """The four statements in the order asked, each with today's explanation."""
        from studyapp.quiz.choice import as_question

        ids = row_ids(row)
        items = [content.items.get(i) for i in ids]
        present = [item for item in items if item is not None]
        if not ids or len(present) != len(ids) or not row.get("options"):
            return None
        asked = _rebuild_choice(row, present)
        return as_question(asked) if asked is not None else None

    def exam_retried(
        self, row: dict[str, Any], content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> list[Question]:
        """A new question around the same key, its options redrawn where the topic allows (else
        the same ones reshuffled); the statements one by one as O/X when the bank's answer key
        changed since, or when only one statement is left."""
        from studyapp.quiz.choice import ChoiceSession, as_question, shared_builder

        ids = row_ids(row)
        if not ids or any(i not in content.items for i in ids):
            return []  # removed from the bank since
        items = [content.items[i] for i in ids]
        if len(items) == 1:
            return [question_from_item(items[0])]
        key_answer = items[row_answer_index(row, len(items)) or 0].answer
        if sum(item.answer == key_answer for item in items) != 1:
            return [question_from_item(item) for item in items]
        source = _rebuild_choice(row, items)
        if source is None:
            return []
        session = shared.setdefault(self.name, ChoiceSession(rng))
        return [as_question(shared_builder(content).fresh_question(source, rng, session))]


def _rebuild_choice(row: dict[str, Any], items: list[Item]) -> Any | None:
    """The ChoiceQuestion as asked (its stem, options and key), or None when the row does not read."""
    from studyapp.quiz.choice import KIND_CORRECT, KIND_INCORRECT, STEMS, ChoiceQuestion

    try:
        answer_index = int(row.get("answer", "")) - 1
        if not 0 <= answer_index < len(items):
            return None
        kind = KIND_CORRECT if items[answer_index].answer == "O" else KIND_INCORRECT
        return ChoiceQuestion(
            stem=str(row.get("stem") or STEMS[kind]),
            kind=kind,
            options=tuple(items),
            answer_index=answer_index,
            topic=str(row.get("topic") or items[0].topic),
        )
    except (ValueError, TypeError, KeyError):
        return None


KIND = ChoiceKind()
