"""Glossary questions, "다음 설명에 해당하는 것은?": a definition and four terms; 1-4 picks, 0 is
"don't know", exactly like a 4-choice question. The options are drawn by `prepare`: when a
`--kind glossary` session starts, after the first question is on screen in a mixed one
(`QuizSession.prepare`); each term's reviews are stored under its own item id `gl-<term id>`
(studyapp.quiz.glossary says which). The generator is imported when a question is prepared or
graded, not with the kinds: every quiz imports this package, and its first paint is measured."""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_PICK,
    ExamScope,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    graded_pick,
    row_answer_index,
    row_ids,
)
from studyapp.quiz.question import KIND_GLOSSARY, Question, question_from_term

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback
    from studyapp.quiz.glossary import GlossaryQuestion


def _drawn(question: Question) -> GlossaryQuestion:
    if question.glossary is None:  # the engine prepares every question it asks
        raise ValueError(f"glossary question '{question.id}' was asked before its options were drawn")
    return question.glossary


class GlossaryKind(QuestionKind):
    name: ClassVar[str] = KIND_GLOSSARY
    guess_rate: ClassVar[float] = 0.25
    strikes_known_options: ClassVar[bool] = True  # its options are terms the learner knows or not
    input: ClassVar[str] = INPUT_PICK
    label_key: ClassVar[str | None] = "glossary.label"
    hint_key: ClassVar[str] = "choice.hint"
    unreadable_key: ClassVar[str] = "choice.unreadable"
    plain_prompt_key: ClassVar[str] = "plain.prompt_choice"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable_choice"
    prepares_late: ClassVar[bool] = True  # its options are drawn by the glossary generator
    exam_share: ClassVar[float] = 0.2  # of a 4-choice mock exam (rounded down), when terms are in scope

    def source(self, content: Content) -> Iterable[Question]:
        """Every askable term (one with a definition and enough distractors)."""
        from studyapp.content.glossary import askable_terms

        return (question_from_term(term) for term in askable_terms(content.glossary))

    def prepare(
        self, question: Question, content: Content, rng: random.Random, queued: Collection[str]
    ) -> Question | None:
        """Draw the options; the session's other terms are distractors only when nothing else fits
        (this question's feedback would define them just before they are asked)."""
        if question.glossary is not None:
            return question
        from studyapp.quiz.glossary import as_question, build_glossary_question, term_id_of

        term = content.glossary.get(term_id_of(question.id) or "")
        if term is None:
            return None  # the term left the glossary since the question was selected
        made = build_glossary_question(term, content.glossary, rng, avoid=set(queued) - {question.id})
        return as_question(made) if made is not None else None

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        drawn = _drawn(question)

        def credits(picked: int | None) -> list[Any]:
            from studyapp.quiz.glossary import glossary_credits  # prepared already: loaded by then

            return glossary_credits(drawn, picked, unsure)

        return graded_pick(response, unsure, len(drawn.options), credits, drawn.is_right)

    def option_lines(self, question: Question) -> list[str]:
        return [f"{index + 1}) {term.label}" for index, term in enumerate(_drawn(question).options)]

    def answer_text(self, question: Question) -> str:
        """`2) 테스트 스텁 (test stub)` once the options are drawn; the term alone before."""
        if question.glossary is None:
            return question.answer
        return f"{question.answer}) {question.glossary.key.label}"

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        """All four terms with their English names and definitions: ✓ the one defined, ✗ the
        others, the key and the pick tagged — one question teaches four terms."""
        drawn = _drawn(feedback.question)
        blocks = []
        for index, term in enumerate(drawn.options):
            is_key, picked = index == drawn.answer_index, index == feedback.picked
            tags = ([t("choice.key")] if is_key else []) + ([t("choice.picked")] if picked else [])
            blocks.append(
                FeedbackBlock(
                    term.definition,
                    heading=f"{index + 1}) {term.label}",
                    true_statement=is_key,
                    tags=tuple(tags),
                    emphasised=is_key or picked,
                )
            )
        response = (
            t("choice.no_pick")
            if feedback.picked is None
            else t("choice.your_pick", number=feedback.picked + 1)
        )
        return FeedbackView(
            answer=t("choice.answer", number=drawn.answer_index + 1),
            response=response,
            blocks=tuple(blocks),
            says_unsure=feedback.picked is None,
        )

    def recorded_answer(self, question: Question, answer: str, content: Content, t: Translator) -> str:
        """The term picked (its id is stored), or that this term was picked for another's definition."""
        from studyapp.quiz.glossary import term_id_of

        if answer == "?":
            return t("choice.no_pick")
        if answer == term_id_of(question.id):
            return t("glossary.recorded_self")
        term = content.glossary.get(answer)
        return term.label if term is not None else answer

    def retried(
        self, question: Question, content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> Question:
        """Other distractors where the glossary has them, and the key never where it stood (m3)."""
        if question.glossary is None:
            return question  # not drawn yet: the session draws it afresh anyway
        from studyapp.quiz.glossary import as_question, fresh_glossary_question

        return as_question(fresh_glossary_question(question.glossary, content.glossary, rng))

    def miss_line(self, question: Question) -> str:
        """The definition and the term it defines (the stem's form is the same for every term)."""
        definition = question.prompt.split("\n", 1)[-1]
        return f"[{question.id}] {definition} → {self.answer_text(question)}"

    def exam_questions(
        self, content: Content, scope: ExamScope, count: int, rng: random.Random
    ) -> list[Question]:
        """Terms of the scope's topics with their options drawn; none under a checklist filter
        (terms are not linked to checklist items)."""
        if scope.checklist:
            return []
        from studyapp.quiz.glossary import as_question, generate_glossary_questions

        drawn = generate_glossary_questions(content.glossary, count, rng, scope.topics)
        return [as_question(question) for question in drawn]

    def dump_row(self, question: Question) -> dict[str, Any]:
        """The generator's own shape (`--dump --json` kept it before kinds owned the dump)."""
        return question.source.to_dict() if question.source is not None else super().dump_row(question)

    def exam_from_row(self, row: dict[str, Any], content: Content) -> Question | None:
        """The same four terms in the same order (an answer "3" still means the third term)."""
        from studyapp.quiz.glossary import as_question, rebuild

        ids = row_ids(row)
        answer_index = row_answer_index(row, len(ids))
        asked = rebuild(content.glossary, ids, answer_index) if answer_index is not None else None
        return as_question(asked) if asked is not None else None

    def exam_retried(
        self, row: dict[str, Any], content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> list[Question]:
        """The same key term with today's definitions: other distractors where the glossary has
        them and the key moved; drawn afresh when a distractor left the glossary; [] when the key did."""
        from studyapp.quiz.glossary import (
            as_question,
            build_glossary_question,
            fresh_glossary_question,
            rebuild,
            term_id_of,
        )

        ids = row_ids(row)
        answer_index = row_answer_index(row, len(ids))
        key = content.glossary.get(term_id_of(ids[answer_index]) or "") if answer_index is not None else None
        if key is None or answer_index is None:
            return []
        asked = rebuild(content.glossary, ids, answer_index)
        if asked is None:
            drawn = build_glossary_question(key, content.glossary, rng)
            return [as_question(drawn)] if drawn is not None else []
        return [as_question(fresh_glossary_question(asked, content.glossary, rng))]


KIND = GlossaryKind()
