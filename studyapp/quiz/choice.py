"""4-choice questions (4지선다) generated from the O/X bank, and how they are graded into FSRS.

The exam asks "다음 중 옳은 것은?" (one true statement among three false ones) or "다음 중 옳지
않은 것은?" (one false among three true). Every option is a bank item, so a question is four items
at once: the feedback explains all four, and each option's item gets its own FSRS review.

Rules (docs/CHOICE.md says why):
- All four options come from one topic, from the key's section first when it has enough.
- Never two siblings or near-duplicates in one question (`studyapp.content.similarity`): a
  statement and its mirror side by side give the key away.
- Options are shuffled with the caller's `random.Random`, so a seed reproduces a question.
- Grading (`grade_choice`): right and sure → key Good, each distractor Hard (it was judged only
  by elimination); right but unsure → key Hard, distractors untouched; a wrong pick → Again for
  the picked item and for the missed key, the other two untouched; "don't know" (no pick) →
  Again for the key only.

Domain logic only: no Textual, no torch.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from studyapp.content.model import Content, Item
from studyapp.content.similarity import CHOICE_SCORE, SimilarityIndex
from studyapp.progress.scheduler import Grade, ItemSchedule
from studyapp.quiz.questions import KIND_CHOICE, KIND_OX, OPTION_COUNT, Question, question_from_item

if TYPE_CHECKING:
    from studyapp.progress.store import ProgressStore
    from studyapp.quiz.questions import Question

KIND_CORRECT = "correct"  # "다음 중 옳은 것은?": the key is the one O item
KIND_INCORRECT = "incorrect"  # "다음 중 옳지 않은 것은?": the key is the one X item
KINDS = (KIND_CORRECT, KIND_INCORRECT)
STEMS = {KIND_CORRECT: "다음 중 옳은 것은?", KIND_INCORRECT: "다음 중 옳지 않은 것은?"}
# The key's answer for each kind, and the distractors' (the opposite).
KEY_ANSWER = {KIND_CORRECT: "O", KIND_INCORRECT: "X"}


def kind_for_key(item: Item) -> str:
    """An O item can only be the key of "옳은 것은?", an X item of "옳지 않은 것은?"."""
    return KIND_CORRECT if item.answer == "O" else KIND_INCORRECT


@dataclass(frozen=True)
class ChoiceQuestion:
    stem: str
    kind: str  # KIND_CORRECT or KIND_INCORRECT
    options: tuple[Item, ...]  # in the order shown, numbered 1..4
    answer_index: int  # 0-based position of the key in `options`
    topic: str

    @property
    def id(self) -> str:
        """Stable for the same options in the same order (archives, logs)."""
        return f"choice-{self.kind}-" + "+".join(item.id for item in self.options)

    @property
    def key(self) -> Item:
        return self.options[self.answer_index]

    @property
    def distractors(self) -> tuple[Item, ...]:
        return tuple(item for index, item in enumerate(self.options) if index != self.answer_index)

    def is_right(self, picked_index: int | None) -> bool:
        return picked_index == self.answer_index

    def to_dict(self) -> dict[str, Any]:
        """The `--dump --json` shape: stem, options [{item_id, text}], answer (0-based index)."""
        return {
            "id": self.id,
            "stem": self.stem,
            "kind": self.kind,
            "topic": self.topic,
            "options": [{"item_id": item.id, "text": item.statement} for item in self.options],
            "answer": self.answer_index,
        }


def build_choice_question(key: Item, distractors: Sequence[Item], rng: random.Random) -> ChoiceQuestion:
    """A question with `key` and three distractors of the opposite answer, options shuffled."""
    kind = kind_for_key(key)
    if len(distractors) != OPTION_COUNT - 1:
        raise ValueError(f"a 4-choice question needs {OPTION_COUNT - 1} distractors, got {len(distractors)}")
    if any(item.answer == key.answer for item in distractors):
        raise ValueError(
            f"distractors of '{key.id}' must all be answered {'X' if key.answer == 'O' else 'O'}"
        )
    options = [key, *distractors]
    rng.shuffle(options)
    return ChoiceQuestion(
        stem=STEMS[kind],
        kind=kind,
        options=tuple(options),
        answer_index=options.index(key),
        topic=key.topic,
    )


class ChoiceBuilder:
    """Draws distractors for keys from one bank, keeping near-duplicates and siblings apart.

    Build once per bank (the similarity index costs a few milliseconds) and reuse it.
    """

    def __init__(self, items: Iterable[Item], index: SimilarityIndex | None = None) -> None:
        self.items: dict[str, Item] = {item.id: item for item in items}
        self.index = index or SimilarityIndex(self.items.values())
        self._by_topic: dict[str, list[Item]] = defaultdict(list)
        for item in sorted(self.items.values(), key=lambda i: i.id):
            self._by_topic[item.topic].append(item)

    def can_key(self, item: Item) -> bool:
        """Enough opposite-answer items in its topic for three distractors (ignoring closeness)."""
        opposite = [other for other in self._by_topic.get(item.topic, ()) if other.answer != item.answer]
        return len(opposite) >= OPTION_COUNT - 1

    def _compatible(self, candidate: Item, chosen: Sequence[Item]) -> bool:
        return all(not self.index.too_close(candidate.id, other.id, CHOICE_SCORE) for other in chosen)

    def question_for(
        self,
        key: Item,
        rng: random.Random,
        avoid: Collection[str] = (),
        prefer: Collection[str] = (),
    ) -> ChoiceQuestion | None:
        """A question keyed on `key`, or None when its topic cannot supply three distractors.

        Distractors: opposite answer, same topic, none too close to the key or to each other.
        `avoid` (e.g. items already asked this session) is used only when nothing else fits;
        `prefer` (e.g. items already studied) and the key's section are tried first.
        """
        candidates = [
            item
            for item in self._by_topic.get(key.topic, ())
            if item.answer != key.answer and item.id != key.id
        ]
        rng.shuffle(candidates)  # random among equals; the sort below is stable
        avoid_set, prefer_set = set(avoid), set(prefer)

        def rank(item: Item) -> tuple[bool, bool]:
            return (item.section != key.section, item.id not in prefer_set)

        fresh = sorted((c for c in candidates if c.id not in avoid_set), key=rank)
        stale = sorted((c for c in candidates if c.id in avoid_set), key=rank)
        chosen: list[Item] = [key]
        for candidate in fresh + stale:
            if len(chosen) == OPTION_COUNT:
                break
            if self._compatible(candidate, chosen):
                chosen.append(candidate)
        if len(chosen) < OPTION_COUNT:
            return None
        return build_choice_question(key, chosen[1:], rng)


_shared_builder: tuple[Content, ChoiceBuilder] | None = None


def shared_builder(content: Content) -> ChoiceBuilder:
    """The builder for a loaded bank, made once per process and reused by every later session on
    the same `Content` (the TUI starts many): its similarity index is most of what a 4-choice
    session adds to quiz start-up. Another `Content` (a reload) gets a fresh one."""
    global _shared_builder
    if _shared_builder is None or _shared_builder[0] is not content:
        _shared_builder = (content, ChoiceBuilder(content.items.values()))
    return _shared_builder[1]


def generate_choice_questions(
    items: Iterable[Item],
    count: int,
    rng: random.Random,
    topic: str | Collection[str] | None = None,
    *,
    builder: ChoiceBuilder | None = None,
    keys: Sequence[Item] | None = None,
) -> list[ChoiceQuestion]:
    """Up to `count` 4-choice questions from the O/X bank `items`.

    `topic`: one topic id or a set of them (None: all). `keys`: the items to ask about, in order
    (e.g. the due ones); by default keys are drawn at random, alternating "옳은 것은?" and "옳지
    않은 것은?" and interleaving topics. No item is the key twice; an item is an option in only
    one question while the bank allows it. Fewer questions come back when the bank runs out.
    """
    if count < 0:
        raise ValueError("count must not be negative")
    pool = list(items)
    if topic is not None:
        topics = {topic} if isinstance(topic, str) else set(topic)
        pool = [item for item in pool if item.topic in topics]
    builder = builder or ChoiceBuilder(pool)
    if keys is None:
        keys = _default_keys(pool, rng)
    used: set[str] = set()
    questions: list[ChoiceQuestion] = []
    for key in keys:
        if len(questions) >= count:
            break
        if key.id in used or not builder.can_key(key):
            continue
        question = builder.question_for(key, rng, avoid=used)
        if question is None:
            continue
        used.update(item.id for item in question.options)
        questions.append(question)
    return questions


def _default_keys(pool: Sequence[Item], rng: random.Random) -> list[Item]:
    """Every item once, shuffled, alternating O and X keys, round-robin over topics."""
    by_topic: dict[str, dict[str, list[Item]]] = defaultdict(lambda: {"O": [], "X": []})
    for item in sorted(pool, key=lambda i: i.id):
        by_topic[item.topic][item.answer].append(item)
    for lists in by_topic.values():
        for entries in lists.values():
            rng.shuffle(entries)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    ordered: list[Item] = []
    answer = rng.choice(("O", "X"))
    while any(lists["O"] or lists["X"] for lists in by_topic.values()):
        for topic in topics:
            lists = by_topic[topic]
            first = lists[answer] or lists["X" if answer == "O" else "O"]
            if first:
                ordered.append(first.pop())
                answer = "X" if answer == "O" else "O"
    return ordered


# ---------------------------------------------------------------------------------------------
# grading
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionCredit:
    """What one option's item gets from a choice answer, in the shape the store records."""

    item_id: str
    grade: Grade
    # The O/X answer the pick implies for this statement: picking it in "옳은 것은?" says O,
    # leaving it says X (and the reverse for "옳지 않은 것은?"); "?" when nothing was picked.
    implied_answer: str

    @property
    def correct(self) -> bool:
        return self.grade != Grade.AGAIN

    @property
    def unsure(self) -> bool:
        """The store's (correct, unsure) pair for Hard: credited, but weak evidence."""
        return self.grade == Grade.HARD


def implied_answer(question: ChoiceQuestion, option_index: int, picked_index: int | None) -> str:
    """The O/X judgement a pick implies for option `option_index`."""
    if picked_index is None:
        return "?"
    picked = option_index == picked_index
    key_answer = KEY_ANSWER[question.kind]
    other = "X" if key_answer == "O" else "O"
    return key_answer if picked else other


def grade_choice(
    question: ChoiceQuestion, picked_index: int | None, unsure: bool = False
) -> list[tuple[str, Grade]]:
    """The FSRS rating each affected item gets; items left out are untouched. Key first."""
    return [(credit.item_id, credit.grade) for credit in choice_credits(question, picked_index, unsure)]


def choice_credits(
    question: ChoiceQuestion, picked_index: int | None, unsure: bool = False
) -> list[OptionCredit]:
    """`grade_choice` with the implied O/X answer of each item (what the store records). Key first."""
    if picked_index is not None and not 0 <= picked_index < len(question.options):
        raise ValueError(f"picked option {picked_index + 1} is not one of 1..{len(question.options)}")
    key_index = question.answer_index

    def credit(index: int, grade: Grade) -> OptionCredit:
        return OptionCredit(question.options[index].id, grade, implied_answer(question, index, picked_index))

    if picked_index is None:  # "don't know": the key was not found
        return [credit(key_index, Grade.AGAIN)]
    if picked_index != key_index:  # a lapse for the statement misjudged and for the one missed
        return [credit(key_index, Grade.AGAIN), credit(picked_index, Grade.AGAIN)]
    if unsure:
        return [credit(key_index, Grade.HARD)]
    return [credit(key_index, Grade.GOOD)] + [
        credit(index, Grade.HARD) for index in range(len(question.options)) if index != key_index
    ]


@dataclass(frozen=True)
class OptionMark:
    """One line of the feedback: the option, whether its statement is true, what the learner did."""

    number: int  # 1-based
    item: Item
    is_key: bool
    picked: bool

    @property
    def true_statement(self) -> bool:
        return self.item.answer == "O"


def option_marks(question: ChoiceQuestion, picked_index: int | None) -> list[OptionMark]:
    """Every option in order, for feedback that explains all four."""
    return [
        OptionMark(index + 1, item, index == question.answer_index, index == picked_index)
        for index, item in enumerate(question.options)
    ]


# ---------------------------------------------------------------------------------------------
# in a quiz session
# ---------------------------------------------------------------------------------------------

MIXED_EVERY = 3  # in a mixed session every third O/X question is asked as a 4-choice question


def as_question(question: ChoiceQuestion) -> Question:
    """The engine's `Question` for a 4-choice question (`Question.choice` holds the options)."""

    key = question.key
    checklist = tuple(dict.fromkeys(entry for item in question.options for entry in item.checklist))
    return Question(
        id=question.id,
        kind=KIND_CHOICE,
        topic=question.topic,
        prompt=question.stem,
        answer=str(question.answer_index + 1),
        explanation=key.explanation,
        section=key.section,
        misconception=key.misconception,
        checklist=checklist,
        choice=question,
    )


def mix_into_queue(
    builder: ChoiceBuilder,
    queue: Sequence[Question],
    kind: str,
    rng: random.Random,
    studied: Collection[str] = (),
) -> list[Question]:
    """Turn O/X questions of a selected queue into 4-choice questions keyed on the same items.

    `kind` "choice": every O/X question (one whose topic cannot make a question stays O/X);
    "mixed": every `MIXED_EVERY`-th. Distractors come from outside the queue where possible (so
    nothing is asked twice), preferring `studied` items (so a choice question does not pull in
    three brand-new items); an O/X question whose item already served as an option is dropped.
    """

    if kind not in ("choice", "mixed"):
        return list(queue)
    queued = {q.id for q in queue if q.kind == KIND_OX}
    used: set[str] = set()
    result: list[Question] = []
    ox_seen = 0
    for question in queue:
        if question.kind != KIND_OX:
            result.append(question)
            continue
        if question.id in used:
            continue  # already shown as an option of an earlier 4-choice question
        ox_seen += 1
        key = builder.items.get(question.id)
        wanted = kind == "choice" or ox_seen % MIXED_EVERY == 0
        made = (
            builder.question_for(key, rng, avoid=queued | used, prefer=studied)
            if wanted and key is not None and builder.can_key(key)
            else None
        )
        if made is None:
            result.append(question)
            used.add(question.id)
            continue
        used.update(item.id for item in made.options)
        result.append(as_question(made))
    return result


@dataclass(frozen=True)
class StoredCredit:
    """A credit as the store records it: the option's own item id, the O/X answer the pick
    implies for that statement, and Hard stored as (correct, unsure) as an unsure O/X answer is."""

    item_id: str
    answer: str
    correct: bool
    unsure: bool
    text_hash: str


def stored_credits(question: ChoiceQuestion, picked_index: int | None, unsure: bool) -> list[StoredCredit]:
    """One review per credited option item, key first (`choice_credits` in the store's shape)."""
    by_id = {item.id: item for item in question.options}
    return [
        StoredCredit(
            credit.item_id,
            credit.implied_answer,
            credit.correct,
            credit.unsure or (unsure and not credit.correct),
            question_from_item(by_id[credit.item_id]).text_hash,
        )
        for credit in choice_credits(question, picked_index, unsure)
    ]


def record_choice(
    store: ProgressStore,
    question: ChoiceQuestion,
    picked_index: int | None,
    unsure: bool,
    **review: Any,
) -> tuple[list[ItemSchedule], str | None]:
    """Write `stored_credits` with kind "choice" (the mock exam's path; a quiz session stores the
    same credits through `studyapp.quiz.kinds.choice`), so the notebook, stats and readiness read
    them like any other review of that item. Returns the new schedules and, when a write failed,
    its one-line reason (those reviews are kept and retried by the store)."""
    schedules = []
    problem: str | None = None
    for credit in stored_credits(question, picked_index, unsure):
        saved = store.save_answer(
            store.new_review(
                credit.item_id,
                answer=credit.answer,
                correct=credit.correct,
                unsure=credit.unsure,
                kind="choice",
                text_hash=credit.text_hash,
                **review,
            ),
            checkpoint=False,  # the caller checkpoints once (the exam after all its answers)
        )
        schedules.append(saved.schedule)
        problem = problem or saved.problem
    return schedules, problem


def reshuffled(question: Question, rng: random.Random) -> Question:
    """A 4-choice question asked again with its options in a new order and the key elsewhere, so
    that a retry tests the facts, not the remembered position (the review's N15). Other kinds
    come back as they are."""
    choice = question.choice
    if choice is None or len(choice.options) < 2:
        return question
    others = [i for i in range(len(choice.options)) if i != choice.answer_index]
    new_key = rng.choice(others)  # the key moves
    distractors = list(choice.distractors)
    rng.shuffle(distractors)
    options = (*distractors[:new_key], choice.key, *distractors[new_key:])
    return as_question(replace(choice, options=options, answer_index=new_key))
