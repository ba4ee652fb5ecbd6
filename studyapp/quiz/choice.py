"""4-choice questions (4지선다) generated from the O/X bank, and how they are graded into FSRS.

The exam asks "다음 중 옳은 것은?" (one true statement among three false ones) or "다음 중 옳지
않은 것은?" (one false among three true). Every option is a bank item, so a question is four items
at once: the feedback explains all four, and each option's item gets its own FSRS review.

Rules (docs/CHOICE.md says why):
- All four options come from one topic, from the key's section first when it has enough; the
  stem names the topic ("다음 중 에러 분해에 대한 설명으로 옳은 것은?").
- Never two siblings, near-duplicates or mirrors in one question (`studyapp.content.similarity`):
  a statement and its negation side by side give the key away by logic.
- No cue answers better than chance (`studyapp.content.cues`): options of similar length (none
  an outlier, the longest at most `LENGTH_BAND` × the shortest), and within a session every
  cue-only strategy (longest, shortest, middle, odd one out, absolute words, hedges) is kept
  near 25 %: each candidate set is scored by what each strategy would earn on it, and the set
  that keeps the session's running surplus smallest wins (`ChoiceSession`). A key whose every
  set would push a strategy past `CUE_ALLOWANCE` is not asked: fewer questions, not flawed ones.
- The key's position comes from a shuffled bag of the four positions, and the two stem kinds
  alternate, so neither position nor stem kind is lopsided within a session.
- A seed reproduces a question (the caller's `random.Random`).
- Grading (`grade_choice`): right and sure → key Good, each distractor Hard (it was judged only
  by elimination); right but unsure → key Hard, distractors untouched; a wrong pick → Again for
  the picked item and for the missed key, the other two untouched; "don't know" (no pick) →
  Again for the key only.
- Retrying a miss (`fresh_question`) asks the key again with other options, or at least with
  the options in another order, so a retry does not test position memory.

Domain logic only: no Textual, no torch.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from studyapp.content.cues import ChoiceCase, Form, form_credits, has_absolute_word, has_hedge, text_length
from studyapp.content.model import Content, Item
from studyapp.content.similarity import CHOICE_SCORE, SimilarityIndex
from studyapp.progress.scheduler import Grade, ItemSchedule
from studyapp.quiz.kinds.base import item_options
from studyapp.quiz.questions import (
    KIND_CHOICE,
    KIND_OX,
    OPTION_COUNT,
    Question,
    question_from_item,
    record_credits,
)

if TYPE_CHECKING:
    from studyapp.progress.store import ProgressStore
    from studyapp.quiz.questions import Question

KIND_CORRECT = "correct"  # "다음 중 옳은 것은?": the key is the one O item
KIND_INCORRECT = "incorrect"  # "다음 중 옳지 않은 것은?": the key is the one X item
KINDS = (KIND_CORRECT, KIND_INCORRECT)
# The stems without a topic (a question whose topic has no title), and with one. "…에 대한 설명으로
# 옳은 것은?" is the 국가기술자격 phrasing; `에 대한` takes no particle that depends on the title.
STEMS = {KIND_CORRECT: "다음 중 옳은 것은?", KIND_INCORRECT: "다음 중 옳지 않은 것은?"}
TOPIC_STEMS = {
    KIND_CORRECT: "다음 중 {topic}에 대한 설명으로 옳은 것은?",
    KIND_INCORRECT: "다음 중 {topic}에 대한 설명으로 옳지 않은 것은?",
}
# The key's answer for each kind, and the distractors' (the opposite).
KEY_ANSWER = {KIND_CORRECT: "O", KIND_INCORRECT: "X"}

# Options alike in length: the longest at most this many times the shortest...
LENGTH_BAND = 1.6
# ...and none an outlier: the longest at most this many times the next longest, the shortest at
# least the next shortest ÷ this (the reviews counted ≥ 1.25-1.3 as a giveaway).
LENGTH_OUTLIER = 1.2
# What one strategy may earn above chance over a session, in questions' worth: after n questions
# a cue-only solver is right at most n/4 + CUE_ALLOWANCE times (per topic and overall).
CUE_ALLOWANCE = 0.75
CHANCE = 1 / OPTION_COUNT
# Distractor sets drawn at random per key; then, when there are at most EXHAUSTIVE_LIMIT sets
# (about 14 candidates), every set in turn, so that a small topic yields a question whenever one
# exists. A large topic relies on the draws: a key they miss is not asked.
RANDOM_DRAWS = 40
EXHAUSTIVE_LIMIT = 400
# Clean sets compared per key (enough to find one that keeps every strategy near chance), and
# sets whose cues are weighed at most, per key.
SETS_SCORED = 8
SCORING_LIMIT = 60
# A batch stops after this many keys in a row of the kind it needs make no clean question (what
# is left of the topic is used up, or would tip a cue past its allowance).
MAX_FAILED_KEYS = 12
# Small preferences between sets that fit equally well (in units of the cue objective).
OFF_SECTION_COST = 0.02
NOT_PREFERRED_COST = 0.05


def kind_for_key(item: Item) -> str:
    """An O item can only be the key of "옳은 것은?", an X item of "옳지 않은 것은?"."""
    return KIND_CORRECT if item.answer == "O" else KIND_INCORRECT


def stem_for(kind: str, topic_title: str | None = None) -> str:
    """The stem of a question of `kind`, naming the topic when its title is known."""
    return TOPIC_STEMS[kind].format(topic=topic_title) if topic_title else STEMS[kind]


def topic_titles(content: Content) -> dict[str, str]:
    """Each topic's title as the stem names it."""
    return {topic.id: topic.title for topic in content.topics.values()}


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


def choice_case(question: ChoiceQuestion) -> ChoiceCase:
    """The question as a cue-only solver sees it (`studyapp.content.cues`)."""
    return ChoiceCase(
        asks_true=question.kind == KIND_CORRECT,
        options=tuple(item.statement for item in question.options),
        answer=question.answer_index,
        topic=question.topic,
    )


def build_choice_question(
    key: Item,
    distractors: Sequence[Item],
    rng: random.Random,
    *,
    position: int | None = None,
    topic_title: str | None = None,
) -> ChoiceQuestion:
    """A question with `key` at `position` (random when None) and three distractors of the
    opposite answer, in random order."""
    kind = kind_for_key(key)
    if len(distractors) != OPTION_COUNT - 1:
        raise ValueError(f"a 4-choice question needs {OPTION_COUNT - 1} distractors, got {len(distractors)}")
    if any(item.answer == key.answer for item in distractors):
        raise ValueError(
            f"distractors of '{key.id}' must all be answered {'X' if key.answer == 'O' else 'O'}"
        )
    options = list(distractors)
    rng.shuffle(options)
    if position is None:
        position = rng.randrange(OPTION_COUNT)
    options.insert(position, key)
    return ChoiceQuestion(
        stem=stem_for(kind, topic_title),
        kind=kind,
        options=tuple(options),
        answer_index=position,
        topic=key.topic,
    )


def lengths_alike(lengths: Sequence[int]) -> bool:
    """Option lengths a reader cannot tell apart at a glance: within `LENGTH_BAND`, no outlier."""
    ordered = sorted(lengths)
    shortest, next_shortest, next_longest, longest = ordered[0], ordered[1], ordered[-2], ordered[-1]
    if shortest <= 0:
        return False
    return (
        longest <= LENGTH_BAND * shortest
        and longest <= LENGTH_OUTLIER * next_longest
        and next_shortest <= LENGTH_OUTLIER * shortest
    )


@dataclass
class ChoiceSession:
    """What the questions of one session share, so that no cue pays across them.

    - `next_position`: the key's position from a shuffled bag of the four (refilled when empty).
    - The running surplus of each cue-only strategy (what it earned minus chance), per topic and
      overall: a new question is chosen to keep both near zero, and refused when a strategy
      would pass `CUE_ALLOWANCE`.
    - How many questions of each stem kind were made.
    """

    rng: random.Random
    surplus: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    kinds: Counter[str] = field(default_factory=Counter)
    _positions: list[int] = field(default_factory=list)

    def next_position(self, avoid: int | None = None) -> int:
        if not self._positions:
            self._positions = list(range(OPTION_COUNT))
            self.rng.shuffle(self._positions)
        if avoid is not None and self._positions[-1] == avoid:
            choices = [p for p in self._positions if p != avoid] or [
                p for p in range(OPTION_COUNT) if p != avoid
            ]
            position = choices[-1]
            if position in self._positions:
                self._positions.remove(position)
            return position
        return self._positions.pop()

    def _after(self, topic: str, credits: Mapping[str, float]) -> list[float]:
        """Every strategy's surplus, per topic and overall, were a question with `credits` added."""
        return [
            self.surplus[(scope, name)] + credit - CHANCE
            for name, credit in credits.items()
            for scope in (topic, "")
        ]

    def fits(self, topic: str, credits: Mapping[str, float]) -> bool:
        return all(value <= CUE_ALLOWANCE + 1e-9 for value in self._after(topic, credits))

    def cost(self, topic: str, credits: Mapping[str, float]) -> float:
        """How far above chance the session's strategies would stand (sum of squared surpluses;
        a strategy below chance costs nothing: a solver that does worse than guessing is fine)."""
        return sum(value * value for value in self._after(topic, credits) if value > 0)

    def record(self, question: ChoiceQuestion, credits: Mapping[str, float]) -> None:
        for name, credit in credits.items():
            for scope in (question.topic, ""):
                self.surplus[(scope, name)] += credit - CHANCE
        self.kinds[question.kind] += 1


class ChoiceBuilder:
    """Draws distractors for keys from one bank, keeping near-duplicates, mirrors and siblings
    apart and the options free of cues.

    Build once per bank (the similarity index costs a few milliseconds) and reuse it.
    `titles` (topic id → title) name the topic in the stem.
    """

    def __init__(
        self,
        items: Iterable[Item],
        index: SimilarityIndex | None = None,
        titles: Mapping[str, str] | None = None,
    ) -> None:
        self.items: dict[str, Item] = {item.id: item for item in items}
        self.index = index or SimilarityIndex(self.items.values())
        self.titles: dict[str, str] = dict(titles or {})
        self._by_topic: dict[str, list[Item]] = defaultdict(list)
        for item in sorted(self.items.values(), key=lambda i: i.id):
            self._by_topic[item.topic].append(item)
        self._apart: dict[tuple[str, str], bool] = {}
        # Whether any distractor set can serve a key (lengths, closeness), whatever the session:
        # worked out once per key, exhaustively and without the session's random draws
        self._servable: dict[str, bool] = {}
        self._lengths = {item.id: text_length(item.statement) for item in self.items.values()}
        self._absolute = {item.id: has_absolute_word(item.statement) for item in self.items.values()}
        self._hedged = {item.id: has_hedge(item.statement) for item in self.items.values()}

    def can_key(self, item: Item) -> bool:
        """Enough opposite-answer items in its topic for three distractors (ignoring closeness)."""
        opposite = [other for other in self._by_topic.get(item.topic, ()) if other.answer != item.answer]
        return len(opposite) >= OPTION_COUNT - 1

    def _kept_apart(self, first: str, second: str) -> bool:
        pair = (first, second) if first < second else (second, first)
        apart = self._apart.get(pair)
        if apart is None:
            apart = self._apart[pair] = self.index.too_close(first, second, CHOICE_SCORE)
        return apart

    def _can_serve(self, key: Item, candidates: Sequence[Item]) -> bool:
        """Whether some three of `candidates` (the key's distractor candidates) pass the rules that
        do not depend on the session: lengths alike with the key's, none too close to another.
        Exhaustive and in a fixed order (the whole bank: 0.15 s, the worst key 6 ms), remembered."""
        servable = self._servable.get(key.id)
        if servable is None:
            key_length = self._lengths[key.id]
            servable = self._servable[key.id] = any(
                lengths_alike((key_length, *(self._lengths[item.id] for item in three)))
                and not any(self._kept_apart(a.id, b.id) for a, b in itertools.combinations(three, 2))
                for three in itertools.combinations(
                    sorted(candidates, key=lambda item: item.id), OPTION_COUNT - 1
                )
            )
        return servable

    def _compatible(self, candidate: Item, chosen: Sequence[Item]) -> bool:
        return all(not self._kept_apart(candidate.id, other.id) for other in chosen)

    def question_for(
        self,
        key: Item,
        rng: random.Random,
        avoid: Collection[str] = (),
        prefer: Collection[str] = (),
        session: ChoiceSession | None = None,
    ) -> ChoiceQuestion | None:
        """A question keyed on `key`, or None when its topic cannot supply three distractors that
        make a clean question (see the module's rules).

        Distractors: opposite answer, same topic, none too close to the key or to each other,
        lengths alike. `avoid` (e.g. items already asked this session) is used only when nothing
        else fits; `prefer` (e.g. items already studied) and the key's section are tried first.
        `session` carries the position bag and the cue surplus across a session's questions.
        """
        if key.id not in self.items:  # not in this builder's bank: nothing to compare it with
            return None
        session = session or ChoiceSession(rng)
        key_length = self._lengths[key.id]
        candidates = [
            item
            for item in self._by_topic.get(key.topic, ())
            if item.answer != key.answer
            and item.id != key.id
            and key_length / LENGTH_BAND <= self._lengths[item.id] <= key_length * LENGTH_BAND
            and not self._kept_apart(key.id, item.id)
        ]
        if len(candidates) < OPTION_COUNT - 1:
            return None
        # Checked before the session's random stream is touched: a key that no set can serve
        # draws nothing, the first time as every time after, so a seed gives the same questions
        # whatever earlier sessions in this process met (a memo filled by the search itself made
        # the stream depend on them)
        if not self._can_serve(key, candidates):
            return None
        rng.shuffle(candidates)
        avoid_set, prefer_set = set(avoid), set(prefer)
        fresh = [item for item in candidates if item.id not in avoid_set]
        search = _SetSearch(self, key, session, prefer_set, avoid_set)
        search.run(fresh, rng)
        if not search.found:  # no fresh set is clean: items already used may fill in
            search.run(candidates, rng)
        if not search.found:
            return None
        _, _, distractors, credits = min(search.found.values(), key=lambda entry: (entry[0], entry[1]))
        question = build_choice_question(
            key,
            distractors,
            rng,
            position=session.next_position(),
            topic_title=self.titles.get(key.topic),
        )
        session.record(question, credits)
        return question

    def fresh_question(
        self, original: ChoiceQuestion, rng: random.Random, session: ChoiceSession | None = None
    ) -> ChoiceQuestion:
        """`original`'s key asked again: other distractors where the topic has them (the old
        ones only to fill in), else the same options in another order — never the same
        options in the same places, so a retry tests the statement, not position memory."""
        session = session or ChoiceSession(rng)
        others = {item.id for item in original.options if item.id != original.key.id}
        key = self.items.get(original.key.id)
        made = self.question_for(key, rng, avoid=others, session=session) if key is not None else None
        if made is not None and made.options != original.options:
            return made
        # The same four, the key moved to another place (so the order differs too).
        return build_choice_question(
            original.key,
            original.distractors,
            rng,
            position=session.next_position(avoid=original.answer_index),
            topic_title=self.titles.get(original.topic),
        )


class _SetSearch:
    """The search for one key's distractors: clean sets, each scored by the cue surplus it
    would leave the session with (`found`: ids → (items already used, cost, set, credits)).

    Random draws first (variety), then every combination in turn, so that a small topic yields
    a question whenever one exists. At most `SETS_SCORED` clean sets are kept and at most
    `SCORING_LIMIT` sets are scored (a key whose sets all push a cue too far is given up)."""

    def __init__(
        self,
        builder: ChoiceBuilder,
        key: Item,
        session: ChoiceSession,
        prefer: Collection[str],
        stale: Collection[str],
    ) -> None:
        self.builder, self.key, self.session = builder, key, session
        self.prefer, self.stale = prefer, stale
        self.asks_true = kind_for_key(key) == KIND_CORRECT
        self.key_length = builder._lengths.get(key.id) or text_length(key.statement)
        self.found: dict[frozenset[str], tuple[int, float, tuple[Item, ...], dict[str, float]]] = {}
        self.seen: set[frozenset[str]] = set()
        self.scored = 0  # sets whose cues were weighed (they passed every other rule)

    def run(self, candidates: Sequence[Item], rng: random.Random) -> None:
        if len(candidates) < OPTION_COUNT - 1:
            return
        # Draws stratified by the key's length rank (0..3 distractors shorter than the key), in
        # turn: the length strategies' credit depends on that rank, and a plain draw would
        # almost never find the rare set where a short key is not the shortest.
        lengths = self.builder._lengths
        shorter = [item for item in candidates if lengths[item.id] < self.key_length]
        longer = [item for item in candidates if lengths[item.id] >= self.key_length]
        ranks = [rank for rank in range(OPTION_COUNT) if len(shorter) >= rank and len(longer) >= 3 - rank]
        for draw in range(RANDOM_DRAWS if ranks else 0):
            if self._enough():
                return
            rank = ranks[draw % len(ranks)]
            self._consider(tuple(rng.sample(shorter, rank) + rng.sample(longer, OPTION_COUNT - 1 - rank)))
        if self.found or math.comb(len(candidates), OPTION_COUNT - 1) > EXHAUSTIVE_LIMIT:
            return
        for combination in itertools.combinations(candidates, OPTION_COUNT - 1):
            if self._enough():
                return
            self._consider(combination)

    def _enough(self) -> bool:
        return len(self.found) >= SETS_SCORED or self.scored >= SCORING_LIMIT

    def _consider(self, distractors: tuple[Item, ...]) -> None:
        builder = self.builder
        lengths = (self.key_length, *(builder._lengths[item.id] for item in distractors))
        if not lengths_alike(lengths):
            return
        ids = frozenset(item.id for item in distractors)
        if ids in self.seen:
            return
        self.seen.add(ids)
        first, second, third = distractors
        if (
            builder._kept_apart(first.id, second.id)
            or builder._kept_apart(first.id, third.id)
            or builder._kept_apart(second.id, third.id)
        ):
            return
        options = (self.key, *distractors)
        form = Form(
            self.asks_true,
            lengths,
            tuple(builder._absolute.get(item.id, False) for item in options),
            tuple(builder._hedged.get(item.id, False) for item in options),
        )
        self.scored += 1
        credits = form_credits(form, 0)  # the key is option 0 here; its place is drawn later
        topic = self.key.topic
        if not self.session.fits(topic, credits):
            return
        cost = self.session.cost(topic, credits)
        cost += OFF_SECTION_COST * sum(item.section != self.key.section for item in distractors)
        if self.prefer:
            cost += NOT_PREFERRED_COST * sum(item.id not in self.prefer for item in distractors)
        stale = sum(item.id in self.stale for item in distractors)
        self.found[ids] = (stale, cost, distractors, credits)


_shared_builder: tuple[Content, ChoiceBuilder] | None = None


def shared_builder(content: Content) -> ChoiceBuilder:
    """The builder for a loaded bank, made once per process and reused by every later session on
    the same `Content` (the TUI starts many): its similarity index is most of what a 4-choice
    session adds to quiz start-up. Another `Content` (a reload) gets a fresh one."""
    global _shared_builder
    if _shared_builder is None or _shared_builder[0] is not content:
        _shared_builder = (content, ChoiceBuilder(content.items.values(), titles=topic_titles(content)))
    return _shared_builder[1]


def generate_choice_questions(
    items: Iterable[Item],
    count: int,
    rng: random.Random,
    topic: str | Collection[str] | None = None,
    *,
    builder: ChoiceBuilder | None = None,
    keys: Sequence[Item] | None = None,
    titles: Mapping[str, str] | None = None,
) -> list[ChoiceQuestion]:
    """Up to `count` 4-choice questions from the O/X bank `items`.

    `topic`: one topic id or a set of them (None: all). `keys`: the items to ask about, in order
    of preference (e.g. the due ones); by default keys are drawn at random, interleaving topics.
    "옳은 것은?" and "옳지 않은 것은?" alternate; when one kind runs out of clean questions the
    other goes on while the two stay within a fifth of the batch (at least one) of each other. No item is the key twice; an item is an option in only one
    question while the bank allows it. Fewer questions come back when the bank runs out of
    clean ones. `titles` (topic id → title) name the topic in the stem (`topic_titles`).
    """
    if count < 0:
        raise ValueError("count must not be negative")
    pool = list(items)
    if topic is not None:
        topics = {topic} if isinstance(topic, str) else set(topic)
        pool = [item for item in pool if item.topic in topics]
    builder = builder or ChoiceBuilder(pool, titles=titles)
    ordered = list(keys) if keys is not None else _default_keys(pool, rng)
    waiting = {kind: [key for key in ordered if kind_for_key(key) == kind] for kind in KINDS}
    for entries in waiting.values():
        entries.reverse()  # popped from the end: the first key first
    session = ChoiceSession(rng)
    used: set[str] = set()
    questions: list[ChoiceQuestion] = []
    last_kind = rng.choice(KINDS)

    def next_question(kind: str) -> ChoiceQuestion | None:
        failed = 0
        while waiting[kind] and failed < MAX_FAILED_KEYS:
            key = waiting[kind].pop()
            if key.id in used or not builder.can_key(key):
                continue
            question = builder.question_for(key, rng, avoid=used, session=session)
            if question is not None:
                return question
            failed += 1
        return None

    while len(questions) < count:
        asked = session.kinds
        if asked[KIND_CORRECT] != asked[KIND_INCORRECT]:
            wanted = min(KINDS, key=lambda kind: asked[kind])
        else:
            wanted = KIND_INCORRECT if last_kind == KIND_CORRECT else KIND_CORRECT
        question = next_question(wanted)
        if question is None:
            other = KIND_INCORRECT if wanted == KIND_CORRECT else KIND_CORRECT
            # `wanted` found no clean question now. The other kind goes on while the two stay
            # within a fifth of the batch of each other: the stems stay balanced, and a narrow
            # scope still fills (a hard stop here once ended a 30-question exam at 3).
            if asked[other] - asked[wanted] >= max(1, count // 5):
                break
            question = next_question(other)
            if question is None:
                break
        used.update(item.id for item in question.options)
        questions.append(question)
        last_kind = question.kind
    return questions


def _default_keys(pool: Sequence[Item], rng: random.Random) -> list[Item]:
    """Every item once, shuffled, alternating O and X keys, round-robin over topics in a new order
    each round (in one fixed order, an even number of topics locks each topic to one stem)."""
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
        rng.shuffle(topics)
    return ordered


def retry_choice_questions(
    content: Content, questions: Sequence[Question], rng: random.Random
) -> list[Question]:
    """A session's misses asked again: each 4-choice question rebuilt around its key with other
    options (`ChoiceBuilder.fresh_question`), O/X questions and drills as they were."""
    builder = shared_builder(content)
    session = ChoiceSession(rng)
    retried = []
    for question in questions:
        if question.choice is None:
            retried.append(question)
            continue
        retried.append(as_question(builder.fresh_question(question.choice, rng, session)))
    return retried


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
        options=item_options(question.options),
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

    `kind` "choice": every O/X question (one whose topic cannot make a clean question stays
    O/X); "mixed": about every `MIXED_EVERY`-th, choosing the O/X question that keeps the two
    stem kinds within one of each other. Distractors come from outside the queue where possible
    (so nothing is asked twice), preferring `studied` items (so a choice question does not pull
    in three brand-new items); an O/X question whose item already served as an option is
    dropped. One `ChoiceSession` runs through the queue: positions and cues balance across it.
    """

    if kind not in ("choice", "mixed"):
        return list(queue)
    queued = {q.id for q in queue if q.kind == KIND_OX}
    used: set[str] = set()
    result: list[Question] = []
    session = ChoiceSession(rng)
    ox_seen = 0
    owed = False  # mixed: a 4-choice question is due, waiting for a key of the kind asked less
    for question in queue:
        if question.kind != KIND_OX:
            result.append(question)
            continue
        if question.id in used:
            continue  # already shown as an option of an earlier 4-choice question
        ox_seen += 1
        key = builder.items.get(question.id)
        owed = owed or ox_seen % MIXED_EVERY == 0
        wanted = kind == "choice" or (owed and key is not None and _keeps_kinds_even(session, key))
        made = (
            builder.question_for(key, rng, avoid=queued | used, prefer=studied, session=session)
            if wanted and key is not None and builder.can_key(key)
            else None
        )
        if made is None:
            result.append(question)
            used.add(question.id)
            continue
        owed = False
        used.update(item.id for item in made.options)
        result.append(as_question(made))
    return result


def _keeps_kinds_even(session: ChoiceSession, key: Item) -> bool:
    """Would a question keyed on `key` keep "옳은 것은?" and "옳지 않은 것은?" within one?"""
    kind = kind_for_key(key)
    other = KIND_INCORRECT if kind == KIND_CORRECT else KIND_CORRECT
    return session.kinds[kind] <= session.kinds[other]


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
    """Write `stored_credits` with kind "choice" (`record_credits`)."""
    return record_credits(store, stored_credits(question, picked_index, unsure), KIND_CHOICE, **review)


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
