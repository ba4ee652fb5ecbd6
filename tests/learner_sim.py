"""A simulated learner that studies with the real engine and sits real mock exams.

Used by tests/test_prediction_sim.py (a small run) and benchmarks/exam_prediction.py (the table).

The memory model is deliberately not FSRS, so the prediction is tested against a world it was not
built from: each item the learner can learn has a memory trace that decays exponentially,

    P(recall after Δ days) = 2^(−Δ / h),

with a half-life h set when the item is first learned from feedback (about 1.5 days, varying by
item) and multiplied by 1 + 4·(1 − P(recall)) at each successful recall — a review that was
nearly forgotten strengthens most, a same-day repeat hardly at all — and halved (not below its
first value) after a lapse. A learner "knows N %" of the items: the other items never stick, and
are guessed (½ on O/X; on a 4-choice question after striking the options they do recognise). A
learner sometimes marks an answer unsure: mostly when guessing, rarely when recalling. Some items
are known before any study (a trace with a long half-life, refreshed a few weeks before day 0).

Everything runs in-process on a `ProgressStore` whose clock the simulation sets, through
`QuizSession` (daily study, `--mode due` with the new-item quota for the exam date) and
`ExamSession` (the mock exam, with its prediction archived the way `studyapp quiz --mode exam`
does it).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from studyapp.content.glossary import askable_terms
from studyapp.content.model import Content, Item
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions
from studyapp.quiz.exam import ExamSession, ExamSettings, build_questions
from studyapp.quiz.questions import KIND_CHOICE, glossary_item_id
from studyapp.quiz.questions import KIND_CHOICE as QUESTION_CHOICE
from studyapp.report import prediction

START = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)
FIRST_HALF_LIFE = 3.0  # days (median), when an item is first learned from feedback
PRIOR_HALF_LIFE = 25.0  # days, for an item known before any study
SLIP = 0.02  # a recalled item still answered wrong (a misread)
UNSURE_WHEN_GUESSING = 0.6
UNSURE_WHEN_RECALLING = 0.05
LEARN_FROM_FEEDBACK = 0.8  # a learnable item not yet known is learned from one feedback this often
SECONDS_PER_ANSWER = 20
# The feedback on a 4-choice answer explains all four options; the learner reads the key and their
# own pick closely and skims the other two, learning from those this much less often.
SKIMMED_OPTION = 0.3


class SimClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class Trace:
    half_life: float  # days
    first: float  # the half-life it started with
    last: datetime  # last retrieval or study


@dataclass
class Learner:
    """One simulated learner: which items they can learn, and their memory of those."""

    known_share: float
    rng: random.Random
    learnable: set[str] = field(default_factory=set)
    traces: dict[str, Trace] = field(default_factory=dict)

    @classmethod
    def create(cls, content: Content, known_share: float, seed: int, prior_known: float = 0.25) -> Learner:
        rng = random.Random(seed)
        learner = cls(known_share, rng)
        # The glossary's terms after the items, so the items' draws are those of a bank without
        # one; study sessions here skip terms (no drills, no glossary), so terms are known from
        # before or met in a mock exam, like items never studied.
        terms = sorted(glossary_item_id(term.id) for term in askable_terms(content.glossary))
        for item_id in [*sorted(content.items), *terms]:
            if rng.random() < known_share:
                learner.learnable.add(item_id)
                if rng.random() < prior_known:
                    learner.traces[item_id] = Trace(
                        PRIOR_HALF_LIFE, PRIOR_HALF_LIFE, START - timedelta(days=rng.uniform(7, 40))
                    )
        return learner

    # -- memory ----------------------------------------------------------------------------------
    def recall_probability(self, item_id: str, now: datetime) -> float:
        trace = self.traces.get(item_id)
        if trace is None:
            return 0.0
        elapsed = max(0.0, (now - trace.last).total_seconds() / 86400)
        return 2.0 ** (-elapsed / trace.half_life)

    def recalls(self, item_id: str, now: datetime) -> bool:
        return self.rng.random() < self.recall_probability(item_id, now)

    def study(self, item_id: str, now: datetime, recalled: bool, attention: float = 1.0) -> None:
        """After the feedback on an item: strengthen, relearn or learn it (if it can be learned);
        `attention` below 1 for an explanation only skimmed."""
        if item_id not in self.learnable:
            return
        trace = self.traces.get(item_id)
        if trace is None:
            if self.rng.random() < LEARN_FROM_FEEDBACK * attention:
                first = FIRST_HALF_LIFE * math.exp(self.rng.gauss(0, 0.5))
                self.traces[item_id] = Trace(first, first, now)
            return
        if recalled:
            p = self.recall_probability(item_id, now)
            trace.half_life *= 1 + 4 * (1 - p)
        else:
            trace.half_life = max(trace.first, trace.half_life / 2)
        trace.last = now

    # -- answering ---------------------------------------------------------------------------------
    def answer_ox(self, item: Item, now: datetime) -> tuple[str, bool, bool]:
        """(response, unsure, recalled)."""
        if self.recalls(item.id, now):
            response = item.answer if self.rng.random() > SLIP else ("X" if item.answer == "O" else "O")
            return response, self.rng.random() < UNSURE_WHEN_RECALLING, True
        return self.rng.choice("OX"), self.rng.random() < UNSURE_WHEN_GUESSING, False

    def answer_choice(
        self, options: Sequence[str], key_index: int, now: datetime
    ) -> tuple[int, bool, dict[str, bool]]:
        """(picked index, unsure, which options were recalled), the options by item or term id."""
        recalled = {option: self.recalls(option, now) for option in options}
        if recalled[options[key_index]] and self.rng.random() > SLIP:
            return key_index, self.rng.random() < UNSURE_WHEN_RECALLING, recalled
        left = [n for n, option in enumerate(options) if n == key_index or not recalled[option]]
        picked = self.rng.choice(left)
        guessed = len(left) > 1
        unsure = self.rng.random() < (UNSURE_WHEN_GUESSING if guessed else UNSURE_WHEN_RECALLING)
        return picked, unsure, recalled


# ---------------------------------------------------------------------------------------------
# driving the engine
# ---------------------------------------------------------------------------------------------


def open_store(folder: Path, clock: SimClock) -> ProgressStore:
    folder.mkdir(parents=True, exist_ok=True)
    return ProgressStore.in_dir(folder, clock=clock)


def study_day(
    content: Content, store: ProgressStore, learner: Learner, clock: SimClock, count: int, seed: int
) -> int:
    """One study session (`--mode due`, mixed O/X and 4-choice, no drills). Returns answers given."""
    options = SessionOptions(mode="due", count=count, include_drills=False, seed=seed, kind="mixed")
    session = QuizSession(content, store, options)
    answered = 0
    while not session.finished:
        question = session.current
        assert question is not None
        session.mark_shown()
        clock.advance(seconds=SECONDS_PER_ANSWER)
        now = clock()
        if question.kind == QUESTION_CHOICE and question.choice is not None:
            choice = question.choice
            ids = [item.id for item in choice.options]
            picked, unsure, recalled = learner.answer_choice(ids, choice.answer_index, now)
            session.answer(str(picked + 1), unsure=unsure)
            for index, item in enumerate(choice.options):
                focus = index in (picked, choice.answer_index)
                learner.study(item.id, now, recalled[item.id], 1.0 if focus else SKIMMED_OPTION)
        else:
            item = content.items[question.id]
            response, unsure, recalled_ox = learner.answer_ox(item, now)
            session.answer(response, unsure=unsure)
            learner.study(item.id, now, recalled_ox)
        answered += 1
    session.settle()
    return answered


@dataclass(frozen=True)
class Sitting:
    """One mock exam: what was predicted just before it and what happened."""

    predicted_pool: float  # `exam_prediction.today.expected_score`: a mock exam not yet built
    pool_pass_probability: float
    predicted_attempt: float  # the archived prediction of exactly these questions
    attempt_pass_probability: float
    low: float
    high: float
    score: float  # share right
    passed: bool
    per_question: tuple[tuple[float, bool], ...]  # (predicted, right) per question
    oracle: float  # the simulator's own expected share for these questions (the noise floor)


def sit_exam(
    content: Content,
    store: ProgressStore,
    learner: Learner,
    clock: SimClock,
    seed: int,
    pool: prediction.Outlook,
    pass_mark: float = 0.6,
) -> Sitting:
    """A 30-question 4-choice mock exam, answered by the learner; nothing is scheduled."""
    session = ExamSession(content, store, ExamSettings(seed=seed, pass_mark=pass_mark, kind=KIND_CHOICE))
    prediction.attach_prediction(session)
    archived = session.prediction
    assert archived is not None
    session.start()
    now = clock()
    oracle = 0.0
    for index, question in enumerate(session.questions):
        session.go(index + 1)
        options = list(question.item_ids)  # items, or terms in a glossary question
        key_index = int(question.answer) - 1
        oracle += oracle_choice(learner, options, key_index, now)
        picked, _unsure, _recalled = learner.answer_choice(options, key_index, now)
        session.answer(str(picked + 1))
    result = session.submit()
    per_question = tuple(
        (p, r.correct) for p, r in zip(archived["per_question"], result.questions, strict=True)
    )
    return Sitting(
        predicted_pool=pool.expected,
        pool_pass_probability=pool.pass_probability,
        predicted_attempt=archived["expected_score"],
        attempt_pass_probability=archived["pass_probability"],
        low=pool.low,
        high=pool.high,
        score=result.percent,
        passed=result.passed,
        per_question=per_question,
        oracle=oracle / len(session.questions),
    )


def oracle_choice(learner: Learner, options: Sequence[str], key_index: int, now: datetime) -> float:
    """The simulator's true P(right) for a 4-choice question (the same rule `answer_choice` uses)."""
    recall = [learner.recall_probability(option, now) for option in options]
    key = recall[key_index] * (1 - SLIP)
    distractors = [r for n, r in enumerate(recall) if n != key_index]
    unknown = prediction.poisson_binomial(1 - r for r in distractors)
    guess = sum(p / (1 + count) for count, p in enumerate(unknown))
    # A slip on a recalled key falls back to the guess among the options not struck.
    return key + (1 - key) * guess


def pool_oracle(content: Content, learner: Learner, now: datetime, seeds: Sequence[int]) -> float:
    """The simulator's own expected share over mock exams not yet drawn (the mean over `seeds`'
    draws): what a perfect forecast made before the questions are known would say. Its error
    against the scores is the floor of a pool forecast (Home's), which also cannot know which
    questions, the learner's known ones or not, an exam will draw."""
    shares = []
    for seed in seeds:
        questions, _ = build_questions(content, ExamSettings(seed=seed, kind=KIND_CHOICE))
        shares.append(
            sum(oracle_choice(learner, list(q.item_ids), int(q.answer) - 1, now) for q in questions)
            / len(questions)
        )
    return sum(shares) / len(shares)
