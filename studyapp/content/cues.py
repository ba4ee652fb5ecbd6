"""A cue-only solver: how far the bank can be answered from the form of its text alone.

A learner who knows nothing of the subject but has seen many exams answers with cues: the longer
statement is true, an absolute word (항상, 반드시, 모든, …) means false, a hedge (…할 수 있다,
대개) means true; in a 4지선다 the longest option is "옳은 것", the one with an absolute word (else
the shortest) is "옳지 않은 것", the odd one out by length is the key, and of two options that
contradict each other one is the key. Item-writing guidance (docs/CHOICE.md, "Cue-free
questions") asks that none of these does better than chance. This module measures that, and
`studyapp check` reports it per topic (`lint`).

- **O/X** (`ox_cue_score`): every rule below is fitted on one half of the statements (its
  threshold and which way it points, so a bank that over-corrects is caught too) and scored on the
  other half, averaged over several seeded splits. The score is the best rule's held-out accuracy.
  Lengths relative to the topic's mean use every statement's length, never a key.
- **4-choice** (`choice_cue_score`): each strategy picks from the four option texts and the stem's
  kind; ties count as a fair guess among the tied options (a tie of two earns 1/2). The score is
  the best strategy's mean. Questions come from the caller (the generator lives in
  `studyapp.quiz`, a floor above; `studyapp.quiz.choice_cues` runs it).

Only the text's form is read: characters, a list of words and the options' positions. No
knowledge of the subject; nothing here imports a UI.
"""

from __future__ import annotations

import functools
import random
import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from studyapp.content.model import Content, Item
from studyapp.content.problems import Problem
from studyapp.content.similarity import SimilarityIndex, mirror_change, normalise

# Specific determiners: words that make a statement absolute. Test-wise learners read them as "false".
ABSOLUTE_WORDS = (
    "항상",
    "반드시",
    "모든",
    "모두",
    "전혀",
    "보장",
    "절대",
    "오직",
    "무조건",
    "결코",
    "언제나",
    "완전히",
    "불가능",
    "유일",
    "필요 없",
    "필요가 없",
    "아무",
    "어떤 경우에도",
    "뿐이다",
    "만으로",
    "100%",
    "100 %",
)
ABSOLUTE_WORDS_EN = ("always", "never", "only", "guarantee", "guarantees", "guaranteed")
# Hedges: words that soften a statement. Test-wise learners read them as "true".
HEDGE_WORDS = (
    "수 있",
    "수도 있",
    "경우가 있",
    "경우가 많",
    "일반적으로",
    "대개",
    "보통",
    "주로",
    "흔히",
    "대부분",
    "일부",
    "경향",
    "가능성",
    "도움이 된",
)
HEDGE_WORDS_EN = ("may", "might", "can", "often", "usually", "typically", "generally")

_ENGLISH_WORD = re.compile(r"[A-Za-z]+")

DEFAULT_SPLITS = 20  # seeded half/half splits the O/X rules are averaged over
MIN_OX_ITEMS = 8  # fewer statements than this: too few to fit on one half and score on the other


def _english_words(text: str) -> set[str]:
    return {word.lower() for word in _ENGLISH_WORD.findall(text)}


@functools.lru_cache(maxsize=8192)
def absolute_words_in(text: str) -> tuple[str, ...]:
    """The absolute words a statement uses, in list order (`항상`, `only`, …)."""
    english = _english_words(text)
    return tuple(word for word in ABSOLUTE_WORDS if word in text) + tuple(
        word for word in ABSOLUTE_WORDS_EN if word in english
    )


def has_absolute_word(text: str) -> bool:
    return bool(absolute_words_in(text))


@functools.lru_cache(maxsize=8192)
def has_hedge(text: str) -> bool:
    english = _english_words(text)
    return any(word in text for word in HEDGE_WORDS) or any(word in english for word in HEDGE_WORDS_EN)


def text_length(text: str) -> int:
    """Characters a reader sees, spaces at the ends left out."""
    return len(text.strip())


# ---------------------------------------------------------------------------------------------
# O/X: rules fitted on half the statements, scored on the other half
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OxCase:
    """What a cue-only solver sees of one statement (and the key it is scored against)."""

    item_id: str
    topic: str
    length: int
    relative_length: float  # length ÷ the mean length of its topic's statements
    absolute: bool
    hedge: bool
    answer: str  # "O" or "X": used to fit and to score, never as a feature


def ox_cases(items: Iterable[Item]) -> list[OxCase]:
    """Each statement's form. The topic mean uses every statement of the topic (no keys)."""
    items = sorted(items, key=lambda item: item.id)
    lengths: dict[str, list[int]] = defaultdict(list)
    for item in items:
        lengths[item.topic].append(text_length(item.statement))
    means = {topic: statistics.fmean(values) for topic, values in lengths.items()}
    return [
        OxCase(
            item.id,
            item.topic,
            text_length(item.statement),
            text_length(item.statement) / (means[item.topic] or 1.0),
            has_absolute_word(item.statement),
            has_hedge(item.statement),
            item.answer,
        )
        for item in items
    ]


Predictor = Callable[[OxCase], str]


def _majority(cases: Sequence[OxCase]) -> str:
    o_count = sum(case.answer == "O" for case in cases)
    return "O" if o_count * 2 >= len(cases) else "X"


def _other(answer: str) -> str:
    return "X" if answer == "O" else "O"


def _fit_threshold(cases: Sequence[OxCase], feature: Callable[[OxCase], float]) -> Predictor:
    """The split `feature > t → one answer, else the other` with the fewest training errors,
    trying every threshold between two observed values and both directions."""
    if not cases:
        return lambda case: "O"
    ordered = sorted(cases, key=feature)
    values = [feature(case) for case in ordered]
    total_o = sum(case.answer == "O" for case in ordered)
    # Threshold below everything: all cases are "above".
    best_right, best_threshold, best_above = max(total_o, len(ordered) - total_o), values[0] - 1, "O"
    if total_o * 2 < len(ordered):
        best_above = "X"
    o_below = 0
    for index, case in enumerate(ordered):
        o_below += case.answer == "O"
        if index + 1 < len(ordered) and values[index + 1] == values[index]:
            continue  # a threshold must fall between two different values
        below, above = index + 1, len(ordered) - index - 1
        o_above = total_o - o_below
        above_o_right = (below - o_below) + o_above  # above → O, below → X
        above_x_right = o_below + (above - o_above)  # above → X, below → O
        threshold = values[index] if index + 1 == len(ordered) else (values[index] + values[index + 1]) / 2
        for right, answer in ((above_o_right, "O"), (above_x_right, "X")):
            if right > best_right:
                best_right, best_threshold, best_above = right, threshold, answer
    below_answer = _other(best_above)
    return lambda case: best_above if feature(case) > best_threshold else below_answer


def _fit_flag(cases: Sequence[OxCase], flag: Callable[[OxCase], bool], fallback: str) -> str:
    """The answer most statements with `flag` have in training (`fallback` when none has it)."""
    flagged = [case for case in cases if flag(case)]
    return _majority(flagged) if flagged else fallback


def _then(flags: Sequence[Callable[[OxCase], bool]], rest: Callable[[Sequence[OxCase]], Predictor]) -> OxRule:
    """A decision list: each flag in turn answers what its training statements mostly are;
    statements with none of the flags go to the `rest` rule, fitted on them alone."""

    def fit(train: Sequence[OxCase]) -> Predictor:
        majority = _majority(train)
        answers = [_fit_flag(train, flag, majority) for flag in flags]
        unflagged = [case for case in train if not any(flag(case) for flag in flags)]
        otherwise = rest(unflagged or train)

        def predict(case: OxCase) -> str:
            for flag, answer in zip(flags, answers, strict=True):
                if flag(case):
                    return answer
            return otherwise(case)

        return predict

    return fit


OxRule = Callable[[Sequence[OxCase]], Predictor]


def _by_length(cases: Sequence[OxCase]) -> Predictor:
    return _fit_threshold(cases, lambda case: case.length)


def _by_relative_length(cases: Sequence[OxCase]) -> Predictor:
    return _fit_threshold(cases, lambda case: case.relative_length)


def _by_majority(cases: Sequence[OxCase]) -> Predictor:
    answer = _majority(cases)
    return lambda case: answer


def _absolute(case: OxCase) -> bool:
    return case.absolute


def _hedge(case: OxCase) -> bool:
    return case.hedge


# The rules a test-wise solver tries. "majority" is the base rate a rule has to beat.
OX_RULES: dict[str, OxRule] = {
    "majority": _by_majority,
    "length": _by_length,
    "relative length": _by_relative_length,
    "absolute word": _then([_absolute], _by_majority),
    "absolute word, then length": _then([_absolute], _by_length),
    "absolute word, then relative length": _then([_absolute], _by_relative_length),
    "hedge, then relative length": _then([_hedge], _by_relative_length),
    "absolute word, hedge, then relative length": _then([_absolute, _hedge], _by_relative_length),
}


@dataclass(frozen=True)
class OxCueScore:
    statements: int
    splits: int
    by_rule: dict[str, float]  # mean held-out accuracy of each rule
    base_rate: float  # share of the more common key: what answering it every time scores

    @property
    def best_rule(self) -> str:
        return max(self.by_rule, key=lambda name: (self.by_rule[name], name == "majority"))

    @property
    def best(self) -> float:
        """The solver's score: the best rule's mean held-out accuracy."""
        return self.by_rule[self.best_rule]

    @property
    def chance(self) -> float:
        """The share of the more common key (a rule has to beat it to be a cue)."""
        return self.base_rate


def ox_cue_score(items: Iterable[Item], splits: int = DEFAULT_SPLITS, seed: int = 0) -> OxCueScore | None:
    """Each rule fitted on a random half of `items` and scored on the other half, averaged over
    `splits` seeded splits. None for fewer than `MIN_OX_ITEMS` statements."""
    cases = ox_cases(items)
    if len(cases) < MIN_OX_ITEMS:
        return None
    totals: dict[str, float] = dict.fromkeys(OX_RULES, 0.0)
    for split in range(splits):
        shuffled = list(cases)
        random.Random(seed * 1_000_003 + split).shuffle(shuffled)
        half = len(shuffled) // 2
        train, test = shuffled[:half], shuffled[half:]
        for name, rule in OX_RULES.items():
            predict = rule(train)
            totals[name] += sum(predict(case) == case.answer for case in test) / len(test)
    o_share = sum(case.answer == "O" for case in cases) / len(cases)
    return OxCueScore(
        len(cases),
        splits,
        {name: total / splits for name, total in totals.items()},
        max(o_share, 1 - o_share),
    )


# ---------------------------------------------------------------------------------------------
# 4-choice: strategies that read four option texts
# ---------------------------------------------------------------------------------------------


class Form(NamedTuple):
    """What the form strategies read of a 4-choice question: the stem's kind and, per option, its
    length and whether it has an absolute word or a hedge."""

    asks_true: bool  # "옳은 것은?" (the key is the one true statement); False: "옳지 않은 것은?"
    lengths: tuple[int, ...]
    absolute: tuple[bool, ...]
    hedged: tuple[bool, ...]


def form_of(asks_true: bool, options: Sequence[str]) -> Form:
    return Form(
        asks_true,
        tuple(text_length(option) for option in options),
        tuple(has_absolute_word(option) for option in options),
        tuple(has_hedge(option) for option in options),
    )


@dataclass(frozen=True)
class ChoiceCase:
    """A 4-choice question as a cue-only solver sees it, with the key it is scored against."""

    asks_true: bool  # "옳은 것은?" (the key is the one true statement); False: "옳지 않은 것은?"
    options: tuple[str, ...]
    answer: int  # 0-based index of the key
    topic: str = ""

    @functools.cached_property
    def form(self) -> Form:
        return form_of(self.asks_true, self.options)


# A form strategy returns the options it would pick from; it guesses fairly among them.
FormStrategy = Callable[[Form], Sequence[int]]


def _extreme(form: Form, among: Sequence[int], longest: bool) -> list[int]:
    lengths = form.lengths
    target = max(lengths[index] for index in among) if longest else min(lengths[index] for index in among)
    return [index for index in among if lengths[index] == target]


def by_length(form: Form) -> list[int]:
    """ "옳은 것은?": the longest option; "옳지 않은 것은?": the shortest."""
    return _extreme(form, range(len(form.lengths)), longest=form.asks_true)


def by_reverse_length(form: Form) -> list[int]:
    """The other way round: catches a generator that over-corrects the length cue."""
    return _extreme(form, range(len(form.lengths)), longest=not form.asks_true)


def by_middle_length(form: Form) -> list[int]:
    """Neither the longest nor the shortest: catches a generator that keeps the key off the ends."""
    lengths = form.lengths
    low, high = min(lengths), max(lengths)
    middle = [index for index, length in enumerate(lengths) if low < length < high]
    return middle or list(range(len(lengths)))


def _flag_then_length(form: Form, flags: Sequence[bool], flagged_is_true: bool) -> list[int]:
    """Options whose flag says "true" ("옳은 것은?") or "false" (else), then the length rule."""
    wanted = flagged_is_true == form.asks_true
    among = [index for index, flag in enumerate(flags) if flag == wanted]
    return _extreme(form, among or range(len(flags)), longest=form.asks_true)


def by_absolute_words(form: Form) -> list[int]:
    """ "옳은 것은?": the longest of the options without an absolute word; "옳지 않은 것은?": the
    shortest of those with one (else of all)."""
    return _flag_then_length(form, form.absolute, flagged_is_true=False)


def by_hedges(form: Form) -> list[int]:
    """ "옳은 것은?": a hedged option (the longest of them); "옳지 않은 것은?": an unhedged one."""
    return _flag_then_length(form, form.hedged, flagged_is_true=True)


def by_odd_length(form: Form) -> list[int]:
    """The odd one out: the option whose length is farthest from the mean of the other three."""
    lengths = form.lengths
    total, others = sum(lengths), len(lengths) - 1
    distance = [abs(length - (total - length) / others) for length in lengths]
    target = max(distance)
    return [index for index, value in enumerate(distance) if value == target]


# The strategies that read only lengths and words: cheap enough for the 4-choice generator to
# score every candidate set with them (contradicting pairs it keeps out by construction).
FORM_STRATEGIES: dict[str, FormStrategy] = {
    "length": by_length,
    "reverse length": by_reverse_length,
    "middle length": by_middle_length,
    "absolute words, then length": by_absolute_words,
    "hedges, then length": by_hedges,
    "odd one out by length": by_odd_length,
}


def form_credits(form: Form, answer: int) -> dict[str, float]:
    """What each form strategy earns on one question (a fair guess among tied picks)."""
    credits = {}
    for name, strategy in FORM_STRATEGIES.items():
        picks = strategy(form)
        credits[name] = (answer in picks) / len(picks)
    return credits


@functools.lru_cache(maxsize=1024)
def contradicting_pairs(options: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """Pairs of options that read as one statement and its negation or a number/word swap
    (`studyapp.content.similarity.mirror_change`), or as the same statement twice."""
    found: list[tuple[int, int]] = []
    for first in range(len(options)):
        for second in range(first + 1, len(options)):
            same = normalise(options[first]) == normalise(options[second])
            if same or mirror_change(options[first], options[second]) is not None:
                found.append((first, second))
    return tuple(found)


# A strategy that also reads the words: it returns the options it would pick from.
Strategy = Callable[[ChoiceCase], Sequence[int]]


def by_logic(case: ChoiceCase) -> list[int]:
    """Two options that contradict each other: one of them is the key, so pick between them by
    length; with no such pair, a blind guess."""
    pairs = contradicting_pairs(case.options)
    if not pairs:
        return list(range(len(case.options)))
    among = sorted({index for pair in pairs for index in pair})
    return _extreme(case.form, among, longest=case.asks_true)


def by_test_wisdom(case: ChoiceCase) -> list[int]:
    """Everything at once: a contradicting pair narrows the field, then absolute words, then length."""
    pairs = contradicting_pairs(case.options)
    among = sorted({index for pair in pairs for index in pair}) if pairs else list(range(len(case.options)))
    flagged = [index for index in among if case.form.absolute[index]]
    if case.asks_true:
        among = [index for index in among if index not in flagged] or among
    else:
        among = flagged or among
    return _extreme(case.form, among, longest=case.asks_true)


def _on_form(strategy: FormStrategy) -> Strategy:
    return lambda case: strategy(case.form)


CHOICE_STRATEGIES: dict[str, Strategy] = {
    **{name: _on_form(strategy) for name, strategy in FORM_STRATEGIES.items()},
    "contradicting pair": by_logic,
    "test-wise (all cues)": by_test_wisdom,
}
POSITION_STRATEGY = "same position every time"


@dataclass(frozen=True)
class ChoiceCueScore:
    questions: int
    by_strategy: dict[str, float]  # mean credit per question (a fair guess among ties)
    key_longest: float  # share of questions whose key is the (or a) longest option
    key_shortest: float
    positions: tuple[int, ...] = ()  # how often the key sat at each position
    kinds: tuple[int, int] = (0, 0)  # questions asking "옳은 것은?", "옳지 않은 것은?"

    @property
    def best_strategy(self) -> str:
        return max(self.by_strategy, key=lambda name: self.by_strategy[name])

    @property
    def best(self) -> float:
        """The solver's score: the best strategy's mean."""
        return self.by_strategy[self.best_strategy] if self.by_strategy else 0.0


def choice_cue_score(cases: Iterable[ChoiceCase]) -> ChoiceCueScore:
    """Every strategy over `cases`; also where the key sat by length and by position."""
    cases = list(cases)
    totals: dict[str, float] = dict.fromkeys(CHOICE_STRATEGIES, 0.0)
    longest = shortest = 0
    option_count = max((len(case.options) for case in cases), default=4)
    positions = [0] * option_count
    for case in cases:
        for name, strategy in CHOICE_STRATEGIES.items():
            picks = strategy(case)
            totals[name] += (case.answer in picks) / len(picks)
        lengths = case.form.lengths
        longest += lengths[case.answer] == max(lengths)
        shortest += lengths[case.answer] == min(lengths)
        positions[case.answer] += 1
    count = len(cases)
    scores = {name: total / count for name, total in totals.items()} if count else {}
    if count:  # a learner who always answers the same number: the best fixed position
        scores[POSITION_STRATEGY] = max(positions) / count
    kinds = (sum(case.asks_true for case in cases), sum(not case.asks_true for case in cases))
    return ChoiceCueScore(
        count,
        scores,
        longest / count if count else 0.0,
        shortest / count if count else 0.0,
        tuple(positions),
        kinds,
    )


# ---------------------------------------------------------------------------------------------
# the item-writing lint of `studyapp check`
# ---------------------------------------------------------------------------------------------

# Warnings (each tuned on the bank of issue 20 and the item-writing guidance):
LENGTH_GAP_WARNING = 0.15  # |mean O − mean X| ÷ the topic's mean length
LONG_ITEM_FACTOR = 1.75  # a statement this many times its topic's mean length
ABSOLUTE_SKEW_WARNING = 0.10  # share of X statements with an absolute word − share of O ones
ABSOLUTE_SKEW_MIN_ITEMS = 3  # ...and at least this many more X statements than O ones use one
OX_CUE_WARNING = 0.65  # a topic's O/X cue score (about 50 items: a split is noisy)
BANK_OX_CUE_TARGET = 0.60  # the whole bank's O/X cue score (issue 20's "done when")
CHOICE_CUE_WARNING = 0.35  # a topic's 4-choice cue score over generated questions


@dataclass(frozen=True)
class TopicCueFigures:
    """One row of the lint's table."""

    topic: str
    statements: int
    o_count: int
    x_count: int
    mean_length_o: float
    mean_length_x: float
    absolute_o: int  # O statements with an absolute word
    absolute_x: int
    unmarked_mirrors: int  # mirror pairs keyed O and X without `siblings:`
    ox: OxCueScore | None
    choice: ChoiceCueScore | None = None

    @property
    def length_gap(self) -> float:
        """(mean O − mean X) ÷ the mean of all statements: positive when true ones are longer."""
        total = self.o_count + self.x_count
        if not self.o_count or not self.x_count:
            return 0.0
        mean = (self.mean_length_o * self.o_count + self.mean_length_x * self.x_count) / total
        return (self.mean_length_o - self.mean_length_x) / mean if mean else 0.0

    @property
    def absolute_skew(self) -> float:
        """Share of X statements with an absolute word minus the share of O ones."""
        share_x = self.absolute_x / self.x_count if self.x_count else 0.0
        share_o = self.absolute_o / self.o_count if self.o_count else 0.0
        return share_x - share_o


@dataclass(frozen=True)
class CueLint:
    topics: list[TopicCueFigures]
    bank: TopicCueFigures
    problems: list[Problem] = field(default_factory=list)


def _figures(
    topic: str,
    items: Sequence[Item],
    mirrors: int,
    choice: ChoiceCueScore | None,
    splits: int,
) -> TopicCueFigures:
    o_lengths = [text_length(item.statement) for item in items if item.answer == "O"]
    x_lengths = [text_length(item.statement) for item in items if item.answer == "X"]
    return TopicCueFigures(
        topic=topic,
        statements=len(items),
        o_count=len(o_lengths),
        x_count=len(x_lengths),
        mean_length_o=statistics.fmean(o_lengths) if o_lengths else 0.0,
        mean_length_x=statistics.fmean(x_lengths) if x_lengths else 0.0,
        absolute_o=sum(has_absolute_word(item.statement) for item in items if item.answer == "O"),
        absolute_x=sum(has_absolute_word(item.statement) for item in items if item.answer == "X"),
        unmarked_mirrors=mirrors,
        ox=ox_cue_score(items, splits),
        choice=choice,
    )


def lint(
    content: Content,
    choice_scores: Mapping[str, ChoiceCueScore] | None = None,
    base: Path | None = None,
    index: SimilarityIndex | None = None,
    splits: int = DEFAULT_SPLITS,
) -> CueLint:
    """The figures per topic and for the bank, and a warning for each cue over its threshold.

    `choice_scores`: the 4-choice solver's score per topic over generated questions (the
    generator is a floor above: `studyapp.quiz.choice_cues.choice_scores`). Every warning names
    `FILE:LINE`: an item's line, or the topic's items file for a topic-wide figure.
    """
    choice_scores = choice_scores or {}
    index = index or SimilarityIndex(content.items.values())
    mirrors = index.mirrors()
    mirrors_by_topic: dict[str, int] = defaultdict(int)
    for pair in mirrors:
        mirrors_by_topic[pair.first.topic] += 1
        if pair.second.topic != pair.first.topic:
            mirrors_by_topic[pair.second.topic] += 1
    problems: list[Problem] = []
    rows: list[TopicCueFigures] = []
    for topic in content.ordered_topics():
        items = sorted(
            content.items_for_topic(topic.id), key=lambda i: (str(i.location.path), i.location.line)
        )
        if not items:
            continue
        row = _figures(topic.id, items, mirrors_by_topic[topic.id], choice_scores.get(topic.id), splits)
        rows.append(row)
        problems += _topic_problems(row, items, base)
    everything = sorted(content.items.values(), key=lambda i: i.id)
    bank = _figures("(bank)", everything, len(mirrors), _pooled(choice_scores), splits)
    return CueLint(rows, bank, problems)


def _pooled(scores: Mapping[str, ChoiceCueScore]) -> ChoiceCueScore | None:
    """The topics' 4-choice scores weighted by their question counts."""
    if not scores:
        return None
    total = sum(score.questions for score in scores.values())
    if not total:
        return None
    names = {name for score in scores.values() for name in score.by_strategy}

    def weighted(value: Callable[[ChoiceCueScore], float]) -> float:
        return sum(value(score) * score.questions for score in scores.values()) / total

    by_strategy = {name: weighted(lambda score, n=name: score.by_strategy.get(n, 0.0)) for name in names}
    positions = [0] * max(len(score.positions) for score in scores.values())
    for score in scores.values():
        for position, count in enumerate(score.positions):
            positions[position] += count
    by_strategy[POSITION_STRATEGY] = max(positions) / total
    return ChoiceCueScore(
        total,
        by_strategy,
        weighted(lambda score: score.key_longest),
        weighted(lambda score: score.key_shortest),
        tuple(positions),
        (
            sum(score.kinds[0] for score in scores.values()),
            sum(score.kinds[1] for score in scores.values()),
        ),
    )


def _where(item: Item, base: Path | None) -> str:
    path = item.location.path
    if base is not None and path.is_relative_to(base):
        path = path.relative_to(base)
    return f"{path}:{item.location.line}"


def _topic_problems(row: TopicCueFigures, items: Sequence[Item], base: Path | None) -> list[Problem]:
    found: list[Problem] = []
    first = items[0]
    topic_file, topic_line = first.location.path, 1  # the items file's `topic:` line
    mean = statistics.fmean(text_length(item.statement) for item in items)

    for item in items:  # a statement padded far past its neighbours
        ratio = text_length(item.statement) / mean if mean else 0.0
        if ratio >= LONG_ITEM_FACTOR:
            found.append(
                Problem(
                    item.location.path,
                    item.location.line,
                    f"'{item.id}' is {ratio:.1f}× its topic's mean length ({text_length(item.statement)} "
                    f"characters against {mean:.0f}): the longest statement reads as the true one; move "
                    "detail into the explanation",
                    warning=True,
                )
            )

    if abs(row.length_gap) > LENGTH_GAP_WARNING:
        longer, shorter = ("O", "X") if row.length_gap > 0 else ("X", "O")
        extremes = sorted(
            (item for item in items if item.answer == longer),
            key=lambda item: -text_length(item.statement),
        )[:3]
        named = ", ".join(f"{item.id} ({_where(item, base)})" for item in extremes)
        found.append(
            Problem(
                topic_file,
                topic_line,
                f"topic '{row.topic}': {longer} statements average {_mean_of(row, longer):.0f} characters, "
                f"{shorter} ones {_mean_of(row, shorter):.0f} ({row.length_gap:+.0%}): length alone hints "
                f"at the key; the longest {longer} ones: {named}",
                warning=True,
            )
        )

    if (
        row.absolute_skew > ABSOLUTE_SKEW_WARNING
        and row.absolute_x - row.absolute_o >= ABSOLUTE_SKEW_MIN_ITEMS
    ):
        for item in items:
            if item.answer == "X" and has_absolute_word(item.statement):
                words = ", ".join(absolute_words_in(item.statement))
                found.append(
                    Problem(
                        item.location.path,
                        item.location.line,
                        f"'{item.id}' is false and says '{words}': in topic '{row.topic}' absolute words "
                        f"mark false statements ({row.absolute_x} X against {row.absolute_o} O); make "
                        "the error a wrong fact, number, direction or scope",
                        warning=True,
                    )
                )

    if row.ox is not None and row.ox.best > OX_CUE_WARNING:
        found.append(
            Problem(
                topic_file,
                topic_line,
                f"topic '{row.topic}': a cue-only solver ('{row.ox.best_rule}') answers {row.ox.best:.0%} "
                f"of its O/X statements held out (chance {row.ox.chance:.0%}; warning above "
                f"{OX_CUE_WARNING:.0%})",
                warning=True,
            )
        )
    if row.choice is not None and row.choice.questions and row.choice.best > CHOICE_CUE_WARNING:
        found.append(
            Problem(
                topic_file,
                topic_line,
                f"topic '{row.topic}': a cue-only solver ('{row.choice.best_strategy}') finds the key of "
                f"{row.choice.best:.0%} of {row.choice.questions} generated 4-choice questions "
                f"(chance 25 %; warning above {CHOICE_CUE_WARNING:.0%})",
                warning=True,
            )
        )
    return found


def _mean_of(row: TopicCueFigures, answer: str) -> float:
    return row.mean_length_o if answer == "O" else row.mean_length_x


def format_figures(report: CueLint) -> list[str]:
    """The lint's table, one line per topic and one for the bank (plain text, fixed columns)."""
    header = ("topic", "items", "O/X", "len O/X", "gap", "abs O/X", "mirrors", "O/X cue", "4-choice cue")
    rows = [header]
    for row in [*report.topics, report.bank]:
        rows.append(
            (
                row.topic,
                str(row.statements),
                f"{row.o_count}/{row.x_count}",
                f"{row.mean_length_o:.0f}/{row.mean_length_x:.0f}",
                f"{row.length_gap:+.0%}",
                f"{row.absolute_o}/{row.absolute_x}",
                str(row.unmarked_mirrors),
                f"{row.ox.best:.0%}" if row.ox is not None else "-",
                f"{row.choice.best:.0%} of {row.choice.questions}"
                if row.choice is not None and row.choice.questions
                else "-",
            )
        )
    widths = [max(len(cells[column]) for cells in rows) for column in range(len(header))]
    lines = [
        "item-writing cues: a solver that reads only the form "
        f"(warning above O/X {OX_CUE_WARNING:.0%} per topic, 4-choice {CHOICE_CUE_WARNING:.0%}; "
        f"chance ≈ 50% and 25%)"
    ]
    for cells in rows:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        lines.append("  " + "  ".join([first, *rest]))
    return lines
