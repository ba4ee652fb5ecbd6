"""Glossary questions, "다음 설명에 해당하는 것은?": a term's definition, four terms to pick from.

The key is the term defined; its three distractors come from its `confused_with` first (the pairs
an examiner sets side by side: test stub / test driver), then from the other terms of its topic
(`studyapp.content.glossary.distractor_candidates`), never a broader or narrower kind of the key
nor a `not_with` pair of it (a genus fits its species' definition: a second right answer). Options are shuffled with the caller's
`random.Random`, so a seed reproduces a question, and a term asked again gets its options in a new
order (nothing to learn from where the answer stood).

Only this form is generated. Its negative, "…에 해당하지 않는 것은?", needs a category that three
of the options belong to and one does not (블랙박스 기법 / 화이트박스 기법); the glossary holds no
such field, and "not of this topic" would test how studyapp files its terms, not the terms.

Grading, into FSRS under each term's own item id (`gl-<term id>`), the recorded answer being the
id of the term picked ("?" for none):
- right and sure → the key Good; right but unsure → the key Hard;
- a wrong pick → Again for the key and for the term picked (its meaning was taken for this
  definition, so that term is not known either); "don't know" → Again for the key only;
- the distractors of a right answer are untouched: picking the key says nothing about them.

Domain logic only: no Textual.
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studyapp.content.glossary import askable_terms, distractor_candidates
from studyapp.content.model import Term
from studyapp.progress.scheduler import Grade, ItemSchedule
from studyapp.quiz.questions import (
    GLOSSARY_PREFIX,
    GLOSSARY_STEM,
    KIND_GLOSSARY,
    OPTION_COUNT,
    Option,
    Question,
    glossary_item_id,
    question_from_term,
    record_credits,
)

if TYPE_CHECKING:
    from studyapp.progress.store import ProgressStore


def term_id_of(item_id: str) -> str | None:
    """`gl-test-stub` → `test-stub`; None for an id that is not a glossary item's."""
    return item_id[len(GLOSSARY_PREFIX) :] if item_id.startswith(GLOSSARY_PREFIX) else None


@dataclass(frozen=True)
class GlossaryQuestion:
    key: Term
    options: tuple[Term, ...]  # in the order shown, numbered 1..4; the key among them
    answer_index: int  # 0-based position of the key in `options`

    @property
    def id(self) -> str:
        """The key's item id: a glossary question is a review of its key term."""
        return glossary_item_id(self.key.id)

    @property
    def topic(self) -> str:
        return self.key.topic

    @property
    def stem(self) -> str:
        """The question as printed: the form, then the definition."""
        return f"{GLOSSARY_STEM}\n{self.key.definition}"

    def is_right(self, picked_index: int | None) -> bool:
        return picked_index == self.answer_index

    def to_dict(self) -> dict[str, Any]:
        """The `--dump --json` shape of a 4-choice question: stem, options [{item_id, text}],
        answer (0-based index); plus the definition alone and each option's term id."""
        return {
            "id": self.id,
            "stem": self.stem,
            "kind": KIND_GLOSSARY,
            "topic": self.topic,
            "definition": self.key.definition,
            "options": [
                {"item_id": glossary_item_id(term.id), "term_id": term.id, "text": term.label}
                for term in self.options
            ],
            "answer": self.answer_index,
        }


def build_glossary_question(
    key: Term, glossary: dict[str, Term], rng: random.Random, avoid: Collection[str] = ()
) -> GlossaryQuestion | None:
    """A question on `key`, or None when fewer than three other terms can stand beside it.

    `avoid`: item ids (`gl-…`) to use as distractors only when nothing else fits, e.g. the terms
    a session asks later (their definitions would be shown in this question's feedback)."""
    confused, same_topic = distractor_candidates(key, glossary)
    avoided = set(avoid)
    chosen: list[Term] = []
    for tier in (confused, same_topic):
        tier = list(tier)
        rng.shuffle(tier)
        tier.sort(key=lambda term: glossary_item_id(term.id) in avoided)  # stable: fresh ones first
        chosen += tier
    distractors = chosen[: OPTION_COUNT - 1]
    if len(distractors) < OPTION_COUNT - 1:
        return None
    options = [key, *distractors]
    rng.shuffle(options)
    return GlossaryQuestion(key=key, options=tuple(options), answer_index=options.index(key))


def fresh_glossary_question(
    original: GlossaryQuestion, glossary: dict[str, Term], rng: random.Random
) -> GlossaryQuestion:
    """`original`'s key asked again (a retried miss): other distractors where the glossary has
    them (its confused terms come first, so often the same ones), and the key never where it
    stood, so a retry tests the term, not where its answer sat."""
    shown = {glossary_item_id(term.id) for term in original.options if term != original.key}
    made = build_glossary_question(original.key, glossary, rng, avoid=shown)
    options = list(made.options if made is not None else original.options)
    index = made.answer_index if made is not None else original.answer_index
    if index == original.answer_index:  # the key moves to another place
        other = rng.choice([i for i in range(len(options)) if i != index])
        options[index], options[other] = options[other], options[index]
        index = other
    return GlossaryQuestion(key=original.key, options=tuple(options), answer_index=index)


def as_question(question: GlossaryQuestion) -> Question:
    """The engine's `Question`: the bank's question for the key with its options attached, and
    the key's option number as the answer (as a 4-choice question's). Reviews keep the bank
    question's text hash (`glossary_credits`), which does not depend on the options drawn."""
    options = tuple(
        Option(glossary_item_id(term.id), term.label, term.definition, index == question.answer_index)
        for index, term in enumerate(question.options)
    )
    return dataclasses.replace(
        question_from_term(question.key),
        glossary=question,
        answer=str(question.answer_index + 1),
        options=options,
    )


def generate_glossary_questions(
    glossary: dict[str, Term],
    count: int,
    rng: random.Random,
    topics: Collection[str] | None = None,
) -> list[GlossaryQuestion]:
    """Up to `count` questions, no term the key twice, topics interleaved; distractors avoid the
    other keys where they can. For `--dump` and the mock exam."""
    if count < 0:
        raise ValueError("count must not be negative")
    by_topic: dict[str, list[Term]] = defaultdict(list)
    for term in sorted(askable_terms(glossary), key=lambda t: t.id):
        if topics is None or term.topic in topics:
            by_topic[term.topic].append(term)
    for terms in by_topic.values():
        rng.shuffle(terms)
    order = sorted(by_topic)
    rng.shuffle(order)
    keys: list[Term] = []
    while len(keys) < count and any(by_topic.values()):
        for topic in order:
            if by_topic[topic] and len(keys) < count:
                keys.append(by_topic[topic].pop())
    avoid = {glossary_item_id(term.id) for term in keys}
    made = (build_glossary_question(key, glossary, rng, avoid - {glossary_item_id(key.id)}) for key in keys)
    return [question for question in made if question is not None]


def rebuild(glossary: dict[str, Term], item_ids: Sequence[str], answer_index: int) -> GlossaryQuestion | None:
    """A question as it was asked (an archived exam question), when its terms all still exist."""
    terms = [glossary.get(term_id_of(item_id) or "") for item_id in item_ids]
    if len(terms) != OPTION_COUNT or not 0 <= answer_index < len(terms):
        return None
    if any(term is None for term in terms):
        return None
    options = tuple(term for term in terms if term is not None)
    return GlossaryQuestion(key=options[answer_index], options=options, answer_index=answer_index)


# ---------------------------------------------------------------------------------------------
# grading
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TermCredit:
    """One review an answer stores, in the store's shape: the term's item id, the id of the term
    picked, and (correct, unsure) as an O/X answer is stored (right and unsure is Hard)."""

    item_id: str
    answer: str
    correct: bool
    unsure: bool
    text_hash: str

    @property
    def grade(self) -> Grade:
        return Grade.from_answer(self.correct, self.unsure)


def glossary_credits(question: GlossaryQuestion, picked_index: int | None, unsure: bool) -> list[TermCredit]:
    """The reviews an answer stores, key first (the module docstring says why these)."""
    if picked_index is not None and not 0 <= picked_index < len(question.options):
        raise ValueError(f"picked option {picked_index + 1} is not one of 1..{len(question.options)}")
    answer = "?" if picked_index is None else question.options[picked_index].id

    def credit(term: Term, correct: bool) -> TermCredit:
        return TermCredit(
            glossary_item_id(term.id),
            answer,
            correct,
            unsure,  # an unsure right answer is Hard; a miss is Again either way
            question_from_term(term).text_hash,
        )

    if picked_index is None:
        return [credit(question.key, False)]
    if picked_index != question.answer_index:
        return [credit(question.key, False), credit(question.options[picked_index], False)]
    return [credit(question.key, True)]


def record_glossary(
    store: ProgressStore,
    question: GlossaryQuestion,
    picked_index: int | None,
    unsure: bool,
    **review: Any,
) -> tuple[list[ItemSchedule], str | None]:
    """Write `glossary_credits` with kind "glossary" (`record_credits`; the mock exam's path with --schedule)."""
    return record_credits(store, glossary_credits(question, picked_index, unsure), KIND_GLOSSARY, **review)


def terms_in(questions: Iterable[Question]) -> set[str]:
    """The glossary item ids among `questions`."""
    return {question.id for question in questions if question.kind == KIND_GLOSSARY}
