"""The predicted mock-exam score and pass probability, today and on the exam date.

Per question: the probability this learner answers it right, from `recall_model` (what each item's
history says they know, projected to the day) and the question's kind:
- O/X on item i:            p = ½ + ½·k_i
- 4-choice, key i, distractors d: the learner picks the key when they know it; otherwise they
  strike the distractors they know to be wrong and guess among the rest:
                            p = k_i + (1 − k_i) · E[1 / (1 + number of distractors not known)]
- any other kind:           p = k_i + (1 − k_i) · its blind-guess rate.
The score is a sum of Bernoulli trials, so its distribution is computed exactly:
- for an exam already built (`exam_forecast`: the prediction archived with each attempt), the
  Poisson-binomial of its questions;
- for "a mock exam" not yet built (`pool_forecast`: today and the exam day), the distribution of
  the number right when each topic's questions are keyed on items drawn at random, without
  replacement, from the topic's pool (the exam deals its questions round-robin over topics), with
  a distractor's chance of being known the topic's average — computed by dynamic programming.
A per-topic cutoff (과락) truncates each topic's distribution before they are convolved, so the
pass probability is P(total ≥ pass mark and every topic ≥ its cutoff).

Projected "to the day" means as things stand, with no more study: FSRS recall at 09:00 on that
day. The interval is the central 80 % of the score's distribution.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from itertools import combinations
from typing import Any

import numpy as np

from studyapp.content.model import Content, Item
from studyapp.progress import exams, goals
from studyapp.progress.exam_aim import exam_moment
from studyapp.progress.scheduler import Grade
from studyapp.progress.store import ProgressStore, Review
from studyapp.quiz.engine import local_tz
from studyapp.quiz.exam import DEFAULT_COUNT, DEFAULT_KIND, DEFAULT_PASS_MARK, exam_pool, share_pools
from studyapp.quiz.kinds import kind_of, kinds
from studyapp.quiz.pass_rule import questions_needed
from studyapp.quiz.question import Question
from studyapp.report.recall_model import (
    THIN_EVIDENCE,
    Calibration,
    Fitted,
    RecallModel,
    by_item,
    first_traced,
    fit_learner,
    traced_per_item,
    wrong_picks,
)

INTERVAL = (0.10, 0.90)  # the central 80 % of the score distribution
DISTRACTORS = 3  # of a 4-choice question
MAX_TOPIC_SPLITS = 64  # ways to hand out the remainder questions among topics, enumerated or sampled


# ---------------------------------------------------------------------------------------------
# distributions
# ---------------------------------------------------------------------------------------------


def poisson_binomial(probabilities: Iterable[float]) -> np.ndarray:
    """P(k right) for k = 0..n when question j is right with probability p_j, independently."""
    distribution = np.array([1.0])
    for p in probabilities:
        distribution = np.convolve(distribution, [1.0 - p, p])
    return distribution


def drawn_sum(probabilities: Sequence[float], draws: int) -> np.ndarray:
    """P(k right) for k = 0..draws when `draws` of the questions are picked at random without
    replacement and each picked one is right with its probability (selection sampling: question j
    is picked with probability (draws − picked so far) / (questions left))."""
    total = len(probabilities)
    draws = min(draws, total)
    state = np.zeros((draws + 1, draws + 1))  # [picked so far, right so far]
    state[0, 0] = 1.0
    picked = np.arange(draws + 1)
    for index, p in enumerate(probabilities):
        take = np.clip((draws - picked) / (total - index), 0.0, 1.0)[:, None]
        chosen = state * take
        state = state - chosen
        state[1:, :] += chosen[:-1, :] * (1.0 - p)
        state[1:, 1:] += chosen[:-1, :-1] * p
    return state[draws]


@dataclass(frozen=True)
class Outlook:
    """The predicted score of one exam: its distribution and what follows from it."""

    questions: int
    expected: float  # share, 0–1
    low: float
    high: float
    pass_probability: float
    pass_mark: float
    cutoff: float | None = None
    topic_pass: dict[str, float] = field(default_factory=dict)  # P(topic ≥ cutoff), when one is set
    distribution: tuple[float, ...] = ()  # P(share = k / questions), k = 0..questions

    def to_dict(self) -> dict[str, Any]:
        return {
            "expected_score": round(self.expected, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
            "pass_probability": round(self.pass_probability, 4),
            "pass_mark": round(self.pass_mark, 4),
            "questions": self.questions,
        }


def _quantile(distribution: np.ndarray, level: float) -> int:
    cumulative = np.cumsum(distribution)
    return int(np.searchsorted(cumulative, level - 1e-12))


def outlook(
    topic_distributions: Mapping[str, np.ndarray],
    pass_mark: float,
    cutoff: float | None = None,
    shared: Sequence[np.ndarray] = (),
) -> Outlook:
    """Combine per-topic score distributions into the exam's (independent topics). The pass
    probability is P(`pass_rule.verdict` passes): each topic's distribution is cut below the
    cutoff's `questions_needed` (과락) before the convolution, and the total must reach the pass
    mark's — the mock exam's own rule, summed over every outcome. `shared`: the other kinds'
    shares (`pool_forecast`), counted in the total but not held to a topic's cutoff (their
    questions fall to topics at random)."""
    total = np.array([1.0])
    passing = np.array([1.0])  # every topic at or above its cutoff
    for distribution in shared:
        total = np.convolve(total, distribution)
        passing = np.convolve(passing, distribution)
    topic_pass: dict[str, float] = {}
    for topic, distribution in topic_distributions.items():
        total = np.convolve(total, distribution)
        if cutoff is not None:
            needed = questions_needed(len(distribution) - 1, cutoff)
            truncated = distribution.copy()
            truncated[:needed] = 0.0
            topic_pass[topic] = float(truncated.sum())
            passing = np.convolve(passing, truncated)
    count = len(total) - 1
    needed = questions_needed(count, pass_mark)
    source = passing if cutoff is not None else total
    shares = np.arange(count + 1) / max(count, 1)
    return Outlook(
        questions=count,
        expected=float(np.dot(total, shares)),
        low=float(shares[_quantile(total, INTERVAL[0])]),
        high=float(shares[_quantile(total, INTERVAL[1])]),
        pass_probability=float(min(1.0, source[needed:].sum())),
        pass_mark=pass_mark,
        cutoff=cutoff,
        topic_pass=topic_pass,
        distribution=tuple(float(x) for x in total),
    )


def mix(outlooks: Sequence[Outlook], weights: Sequence[float]) -> Outlook:
    """One outlook for an exam that is one of several shapes (how questions fall to topics)."""
    if len(outlooks) == 1:
        return outlooks[0]
    scale = sum(weights)
    w = [x / scale for x in weights]
    first = outlooks[0]
    same_size = all(o.questions == first.questions for o in outlooks)
    distribution: tuple[float, ...] = ()
    low, high = (
        sum(a * o.low for a, o in zip(w, outlooks, strict=True)),
        sum(a * o.high for a, o in zip(w, outlooks, strict=True)),
    )
    if same_size:
        mixed = sum(a * np.array(o.distribution) for a, o in zip(w, outlooks, strict=True))
        shares = np.arange(first.questions + 1) / max(first.questions, 1)
        low = float(shares[_quantile(mixed, INTERVAL[0])])
        high = float(shares[_quantile(mixed, INTERVAL[1])])
        distribution = tuple(float(x) for x in mixed)
    topics = {t for o in outlooks for t in o.topic_pass}
    return Outlook(
        questions=first.questions,
        expected=sum(a * o.expected for a, o in zip(w, outlooks, strict=True)),
        low=low,
        high=high,
        pass_probability=sum(a * o.pass_probability for a, o in zip(w, outlooks, strict=True)),
        pass_mark=first.pass_mark,
        cutoff=first.cutoff,
        topic_pass={
            t: sum(a * o.topic_pass.get(t, 1.0) for a, o in zip(w, outlooks, strict=True)) for t in topics
        },
        distribution=distribution,
    )


# ---------------------------------------------------------------------------------------------
# what the learner knows
# ---------------------------------------------------------------------------------------------


@dataclass
class Knowledge:
    """k_i, the calibrated P(known), for every item of the bank at one moment."""

    at: datetime
    knows: dict[str, float]
    unseen: float  # an item with no review

    def of(self, item_id: str) -> float:
        return self.knows.get(item_id, self.unseen)


@dataclass
class LearnerState:
    """The learner's history read and fitted once: enough for any number of predictions."""

    content: Content
    fitted: Fitted
    # kind name → its question ids, for each skill of its own (`own_skill_ids`), read once with the fit
    skill_ids: Mapping[str, list[str]] = field(default_factory=dict)

    @property
    def model(self) -> RecallModel:
        return self.fitted.model

    @property
    def calibration(self) -> Calibration:
        return self.fitted.calibration

    def knowledge(self, moment: datetime, prior: float | None = None) -> Knowledge:
        """Every item's P(known) at `moment`; `prior`: the unseen ones at that value of the
        learner's `prior` (one point of its posterior) instead of its mean."""
        knows = {item_id: self.fitted.knows(item_id, moment) for item_id in self.fitted.logs}
        unseen = {i: self.fitted.knows(i, moment, prior) for i in self.content.items if i not in knows}
        return Knowledge(
            moment,
            {**own_skills(self.skill_ids, knows), **knows, **unseen},
            self.fitted.knows("", moment, prior),
        )


# A skill of its own (`QuestionKind.own_skill`: reading a trace) is not what the learner's
# `prior` measures (how many of the bank's facts they brought): its questions start at this
# P(known), and the answers to them move it; an unseen one sits at the mean over the answered
# ones, shrunk toward this start as if OWN_SKILL_PSEUDO_ANSWERS more were at it.
OWN_SKILL_PRIOR = 0.1
OWN_SKILL_PSEUDO_ANSWERS = 3


def own_skill_ids(content: Content) -> dict[str, list[str]]:
    """Kind name → the item ids of its questions, for each kind that is a skill of its own."""
    return {
        kind.name: sorted({i for question in kind.source(content) for i in question.item_ids})
        for kind in kinds().values()
        if kind.own_skill
    }


def own_skills(skill_ids: Mapping[str, list[str]], knows: Mapping[str, float]) -> dict[str, float]:
    """P(known) of each unseen question of a skill of its own (`own_skill_ids`): what the learner
    showed on that kind's answered questions, shrunk toward `OWN_SKILL_PRIOR`."""
    result: dict[str, float] = {}
    for ids in skill_ids.values():
        shown = [knows[i] for i in ids if i in knows]
        level = (sum(shown) + OWN_SKILL_PRIOR * OWN_SKILL_PSEUDO_ANSWERS) / (
            len(shown) + OWN_SKILL_PSEUDO_ANSWERS
        )
        result.update((i, level) for i in ids if i not in knows)
    return result


_cached: tuple[tuple[Any, ...], LearnerState] | None = None


def exam_answers(attempts: Iterable[exams.ExamAttempt]) -> list[Review]:
    """A finished mock exam's answers as evidence, each at its kind's guess rate: the key item of
    each answered question, right or wrong (sure: the exam has no unsure mark). An exam sat with
    `--schedule` stored its answers as reviews already and is not counted twice. Rows that do not
    read as a question (an old or damaged archive) are skipped."""
    answers: list[Review] = []
    for attempt in attempts:
        if attempt.finished_at is None or attempt.settings.get("schedule"):
            continue
        for number, row in enumerate(attempt.questions):
            if not isinstance(row, dict) or row.get("response") is None:
                continue
            ids = [i for i in row.get("item_ids") or () if isinstance(i, str)]
            kind = row.get("kind")
            if not ids or not isinstance(kind, str):
                continue
            key = ids[0]
            if len(ids) > 1:  # options: the key is the one the answer names
                answer = str(row.get("answer", ""))
                index = int(answer) - 1 if answer.isdigit() else -1
                if not 0 <= index < len(ids):
                    continue
                key = ids[index]
            correct = bool(row.get("correct"))
            answers.append(
                Review(
                    f"{attempt.uid}:{number}",
                    key,
                    kind,
                    str(row.get("response")),
                    correct,
                    False,
                    int(Grade.from_answer(correct, False)),
                    "exam",
                    attempt.uid,
                    attempt.finished_at,
                    None,
                    None,
                )
            )
    return answers


def learner_state(content: Content, store: ProgressStore) -> LearnerState:
    """Read the log, fit the learner's model on their answers, score its calibration. The last
    fit is reused while the log is unchanged (same file, same number of reviews and newest row):
    Home, the report and the exam ask for it in turn."""
    global _cached
    row = store.query("SELECT count(*), max(id) FROM reviews")[0]
    sat = store.query("SELECT count(*), max(finished_at) FROM exam_attempts WHERE finished_at IS NOT NULL")[0]
    key = (id(content), str(store.path), row[0], row[1], sat[0], sat[1])
    if _cached is not None and _cached[0] == key:
        return _cached[1]
    topic_of = {item.id: item.topic for item in content.items.values()}
    # only what the tracer reads of each item (its first and last reviews): a heavy store is not
    # loaded whole (10⁶ reviews: ~6 s and ~1 GB before)
    items = store.reviewed_items()
    limit = traced_per_item(len(items))
    stored = store.reviews_bounded(first_traced(limit), limit - first_traced(limit), items)
    answers = [*stored, *exam_answers(exams.attempts(store))]
    skill_ids = own_skill_ids(content)
    skill_prior = {i: OWN_SKILL_PRIOR for ids in skill_ids.values() for i in ids}
    state = LearnerState(
        content, fit_learner(by_item(answers), topic_of, skill_prior, wrong_picks(stored)), skill_ids
    )
    _cached = (key, state)
    return state


# ---------------------------------------------------------------------------------------------
# questions
# ---------------------------------------------------------------------------------------------


def eliminated_guess(distractor_knows: Sequence[float]) -> float:
    """P(right) when the key is not known: strike the known distractors, guess among the rest."""
    unknown = poisson_binomial(1.0 - k for k in distractor_knows)
    return float(sum(p / (1 + count) for count, p in enumerate(unknown)))


def choice_probability(key: float, distractors: Sequence[float]) -> float:
    return key + (1 - key) * eliminated_guess(distractors)


def question_probability(question: Question, knowledge: Knowledge) -> float:
    """P(right) for one exam question as built: its kind says how knowing its items turns into
    a right answer (`QuestionKind.knows_probability`)."""
    return kind_of(question).knows_probability(question, knowledge.of)


def exam_forecast(
    questions: Sequence[Question], knowledge: Knowledge, pass_mark: float, cutoff: float | None = None
) -> tuple[Outlook, list[float]]:
    """The outlook of an exam already built, and each question's probability."""
    probabilities = [question_probability(q, knowledge) for q in questions]
    per_topic: dict[str, list[float]] = defaultdict(list)
    for question, p in zip(questions, probabilities, strict=True):
        per_topic[question.topic].append(p)
    distributions = {topic: poisson_binomial(ps) for topic, ps in per_topic.items()}
    return outlook(distributions, pass_mark, cutoff), probabilities


def _keyable(items: Sequence[Item]) -> dict[str, list[Item]]:
    """Items that can key a 4-choice question: three opposite-answer items in their topic."""
    by_topic: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_topic[item.topic].append(item)
    keyable: dict[str, list[Item]] = {}
    for topic, members in by_topic.items():
        answers = [m.answer for m in members]
        chosen = [m for m in members if sum(a != m.answer for a in answers) >= DISTRACTORS]
        if chosen:
            keyable[topic] = chosen
    return keyable


def pool_question_probabilities(
    pool: Sequence[Item], knowledge: Knowledge, kind: str = DEFAULT_KIND
) -> dict[str, dict[str, float]]:
    """Topic → item → P(right) for the question keyed on that item, distractors at the topic's
    average knowledge of opposite-answer items (4-choice), or the item itself asked O/X."""
    result: dict[str, dict[str, float]] = {}
    asked = kind_of(kind)
    if not asked.options_are_statements:  # each item asked on its own, at the kind's guess rate
        for item in pool:
            k = knowledge.of(item.id)
            result.setdefault(item.topic, {})[item.id] = k + (1 - k) * asked.guess_rate
        return result
    for topic, keys in _keyable(pool).items():
        members = [i for i in pool if i.topic == topic]
        mean_known = {
            answer: float(np.mean([knowledge.of(i.id) for i in members if i.answer == answer] or [0.0]))
            for answer in ("O", "X")
        }
        result[topic] = {}
        for item in keys:
            other = "X" if item.answer == "O" else "O"
            result[topic][item.id] = choice_probability(
                knowledge.of(item.id), [mean_known[other]] * DISTRACTORS
            )
    return result


def topic_counts(topics: Sequence[str], questions: int, available: Mapping[str, int]) -> list[dict[str, int]]:
    """How `questions` questions fall to topics dealt round-robin in a random order: every topic
    gets the same number, the remainder going to a random set of topics (each set equally likely;
    at most MAX_TOPIC_SPLITS of them, sampled with a fixed seed beyond that)."""
    if not topics:
        return []
    base, extra = divmod(questions, len(topics))
    ordered = sorted(topics)
    if extra == 0:
        splits: list[tuple[str, ...]] = [()]
    elif math.comb(len(ordered), extra) <= MAX_TOPIC_SPLITS:
        splits = list(combinations(ordered, extra))
    else:
        rng = random.Random(0)
        splits = [tuple(rng.sample(ordered, extra)) for _ in range(MAX_TOPIC_SPLITS)]
    return [
        {t: min(available.get(t, 0), base + (t in chosen)) for t in ordered if available.get(t, 0)}
        for chosen in splits
    ]


def pool_forecast(
    content: Content,
    knowledge: Knowledge,
    pass_mark: float,
    cutoff: float | None = None,
    questions: int = DEFAULT_COUNT,
    kind: str = DEFAULT_KIND,
) -> Outlook:
    """The outlook of a mock exam not yet built: `questions` questions from the whole bank."""
    from studyapp.quiz.exam import ExamSettings

    settings = ExamSettings(kind=kind, count=questions)
    pool = exam_pool(content, settings)
    per_topic = pool_question_probabilities(pool, knowledge, kind)
    # The kinds that take a share of this exam (the glossary's 6 and trace reading's 3 of a
    # 4-choice 30), as build_questions draws them: at random from what is in scope, each question
    # at its own kind's probability (a learner who never read a trace guesses those).
    shared = []
    for other, in_scope in share_pools(content, settings):
        count = min(int(questions * other.exam_share), len(in_scope))
        if count:
            shared.append(drawn_sum(other.forecast_probabilities(in_scope, knowledge.of), count))
    main_count = questions - sum(len(d) - 1 for d in shared)
    shapes = topic_counts(list(per_topic), main_count, {t: len(ps) for t, ps in per_topic.items()})
    drawn: dict[tuple[str, int], np.ndarray] = {}  # the shapes share most (topic, count) pairs

    def topic_distribution(topic: str, count: int) -> np.ndarray:
        if (topic, count) not in drawn:
            drawn[topic, count] = drawn_sum([per_topic[topic][i] for i in sorted(per_topic[topic])], count)
        return drawn[topic, count]

    outlooks = []
    for counts in shapes:
        distributions = {topic: topic_distribution(topic, count) for topic, count in counts.items() if count}
        outlooks.append(outlook(distributions, pass_mark, cutoff, shared))
    if not outlooks:
        return Outlook(0, 0.0, 0.0, 0.0, 0.0, pass_mark, cutoff)
    return mix(outlooks, [1.0] * len(outlooks))


# ---------------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------------


def pass_mark_of(store: ProgressStore) -> float:
    return goals.pass_mark(store) or DEFAULT_PASS_MARK


@dataclass(frozen=True)
class Prediction:
    today: Outlook
    exam_day: Outlook | None
    exam_date: date | None
    calibration: Calibration
    model: RecallModel
    knowledge_today: Knowledge
    knowledge_exam_day: Knowledge | None
    answers: int = 0  # the answers the prediction rests on
    damaged_reviews: int = 0  # stored answers left out: a value no answer can have

    def to_dict(self) -> dict[str, Any]:
        return {
            "today": self.today.to_dict(),
            "exam_day": self.exam_day.to_dict() if self.exam_day else None,
            "exam_date": self.exam_date.isoformat() if self.exam_date else None,
            "answers": self.answers,
            "thin_evidence": self.answers < THIN_EVIDENCE,
            "damaged_reviews": self.damaged_reviews,
        }


def predict(
    content: Content,
    store: ProgressStore,
    now: datetime,
    tz: tzinfo | None = None,
    state: LearnerState | None = None,
) -> Prediction:
    """Today's and the exam day's outlook for a default mock exam, with the learner's settings."""
    state = state or learner_state(content, store)
    mark, cutoff = pass_mark_of(store), goals.topic_cutoff(store)
    exam_date = store.exam_date()
    today_knowledge = state.knowledge(now)
    today = uncertain_forecast(state, now, mark, cutoff)
    exam_day = exam_knowledge = None
    zone = tz or local_tz()
    if exam_date is not None and exam_date >= now.astimezone(zone).date():
        moment = max(now, exam_moment(exam_date, zone))
        exam_knowledge = state.knowledge(moment)
        exam_day = uncertain_forecast(state, moment, mark, cutoff)
    return Prediction(
        today,
        exam_day,
        exam_date,
        state.calibration,
        state.model,
        today_knowledge,
        exam_knowledge,
        state.fitted.answers,
        state.fitted.damaged,
    )


def uncertain_forecast(
    state: LearnerState, moment: datetime, pass_mark: float, cutoff: float | None
) -> Outlook:
    """`pool_forecast` over the posterior of the learner's `prior` (what an unseen item is known
    with), not at its mean alone: after few answers the model is unsure how much the learner
    brought, and a pass probability from the mean alone would be as sure as after thousands."""
    points = state.fitted.prior_points()
    if len(points) <= 1:
        return pool_forecast(state.content, state.knowledge(moment), pass_mark, cutoff)
    outlooks = [
        pool_forecast(state.content, state.knowledge(moment, value), pass_mark, cutoff) for value, _ in points
    ]
    return mix(outlooks, [weight for _, weight in points])


def attempt_prediction(
    content: Content, store: ProgressStore, questions: Sequence[Question], pass_mark: float
) -> dict[str, Any]:
    """What is archived with a mock exam just before it starts: the outlook of exactly its
    questions and each question's probability (`settings["prediction"]` of the attempt)."""
    state = learner_state(content, store)
    now = store.clock()
    forecast, probabilities = exam_forecast(
        questions, state.knowledge(now), pass_mark, goals.topic_cutoff(store)
    )
    return {
        **forecast.to_dict(),
        "made_at": now.isoformat(),
        "model_fitted": state.model.fitted,
        "per_question": [round(p, 4) for p in probabilities],
    }


def attach_prediction(session: Any) -> None:
    """Give an `ExamSession` (before it starts) the prediction to archive with it; a prediction
    that cannot be made (a damaged store) leaves the exam as it was."""
    try:
        session.prediction = attempt_prediction(
            session.content, session.store, session.questions, session.settings.pass_mark
        )
    except Exception:  # the exam matters more than its forecast
        session.prediction = None


def attempt_outcomes(attempts: Iterable[Any]) -> list[tuple[float, bool]]:
    """(predicted probability, right) for every question of finished attempts archived with a
    prediction: the exam's own calibration."""
    pairs: list[tuple[float, bool]] = []
    for attempt in attempts:
        prediction = attempt.settings.get("prediction") if attempt.finished else None
        if not isinstance(prediction, dict):
            continue
        per_question = prediction.get("per_question")
        if not isinstance(per_question, list) or len(per_question) != len(attempt.questions):
            continue
        for p, row in zip(per_question, attempt.questions, strict=True):
            if isinstance(p, int | float):
                pairs.append((float(p), bool(row.get("correct"))))
    return pairs


def days_until(exam_date: date | None, now: datetime, tz: tzinfo | None = None) -> int | None:
    if exam_date is None:
        return None
    return (exam_date - now.astimezone(tz or local_tz()).date()).days
