"""How likely this learner is to *know* an item at a given moment, from their own answers.

FSRS's retrievability says how likely a learned item is still recalled, but FSRS learns from
grades, and half of all blind O/X guesses are graded correct: a lucky guess looks like knowledge.
So whether an item is known is traced with a two-state hidden Markov model (knowledge tracing)
over its review log, and FSRS only supplies the forgetting:

- before its first review an item is known with probability `prior` (what the learner brought);
- between two reviews a known item stays known with FSRS's retrievability over that gap (the
  stability after the earlier review), so forgetting follows FSRS's curve;
- an answer is evidence: a known item is answered right unless it slips (`SLIP`) and is marked
  unsure rarely (`UNSURE_KNOWN`); an unknown one is right by the guess rate (½ on O/X) and marked
  unsure with probability `unsure` (fitted: a learner who never marks unsure gets no credit
  for a "sure" answer). Of a 4-choice answer's credits the key's is evidence, at the guess rate
  left after striking the distractors the learner knows; the picked option of a wrong answer
  says only that it was not known (it was picked *because* it was not: `wrong_picks`), and a
  distractor credited when the key is found, known or not, says nothing;
- an option shown without being credited (the feedback explains all four) may teach a little
  (`Exposures`);
- after the feedback an unknown item becomes known with probability `learn`.
Projected to a day, an item is known with P(known after its last review) × FSRS retrievability
on that day.

`learn`, `prior`, `unsure` and `pace` are the learner's own: the posterior mean over a small
grid (weak Beta priors) on the likelihood of all their answers of every kind, from the first
answer on (no floor: the priors keep a thin history honest). On top, a logistic calibration,

    P(right on a question with guess rate g) = g + (1 − g) · σ(a + b · logit P(known)),

fitted (Fisher scoring, priors a ~ N(0, ½²), b ~ N(1, ½²)) on the same O/X answers, each from
what was known just before it. Calibration is shown prequentially: the answers are cut in
time-ordered blocks, and each block is predicted by parameters fitted only on the blocks before
it (Brier score, log loss, reliability bins).

docs/READINESS.md ("Exam prediction") has the reasoning; no Textual here.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache
from itertools import pairwise, product
from typing import Any

import numpy as np

from studyapp.progress.scheduler import Grade, recall_after, recall_curve, replay_states
from studyapp.progress.store import Review
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.kinds.base import INPUT_PICK, QuestionKind

SLIP = 0.05  # a known item answered wrong anyway
UNSURE_KNOWN = 0.05  # a known item marked unsure
GUESS_OX = 0.5
# A pick answer's credits (studyapp.quiz.choice) are read in `trace`: the key right (Good, or Hard
# when marked unsure) or missed (Again) at the guess rate left once the distractors the learner
# knows are struck (`struck_guess`, each known with the learner's `prior`); the picked option of
# a wrong answer only as "not known"; a distractor's Hard credit (a right answer) as nothing.
GUESS_FLOOR = 0.02
CHOICE_OPTIONS = 4
SKIM_SHARE = 0.5  # an option shown but not credited teaches half as often as a feedback on the item
FIRST_STABILITY = 2.3065  # days: FSRS-6's default stability after a first sure answer (w[2])
# What the learner brought fades like any memory not studied: an item known before the first
# answer is remembered like a card first answered Easy on that day (FSRS-6's w[3]), on the
# learner's own forgetting pace. Unseen items are forecast, and first reviews traced, with it.
BROUGHT_STABILITY = 8.2956

HARD_LEARN = 0.02  # an item feedback does not teach this learner, learnt anyway
# The grid the learner's parameters are chosen from, and the defaults (block 0 of the prequential check).
LEARNABLE_GRID = (0.15, 0.35, 0.55, 0.75, 0.95)
LEARN_GRID = (0.3, 0.6, 0.9)
PRIOR_GRID = (0.02, 0.07, 0.15, 0.3, 0.5, 0.7, 0.85)  # up to a learner who studied before the app
UNSURE_GRID = (0.05, 0.3, 0.6)
PACE_GRID = (1.0, 2.0, 4.0, 8.0, 16.0)
DEFAULT_LEARNABLE, DEFAULT_LEARN, DEFAULT_PRIOR, DEFAULT_UNSURE, DEFAULT_PACE = 0.75, 0.6, 0.07, 0.3, 1.0
# Weak Beta(α, β) priors on each: mean ½ for the share of items feedback teaches and for how
# often one feedback does, about 0.15 for knowing an item before studying it, 0.4 for marking a
# guess unsure. The forgetting pace (how much faster than FSRS's default curve this learner
# forgets) has a log-normal prior around 1 (`PACE_PRIOR_SD` in ln units).
PACE_PRIOR_SD = 1.5
BETA_PRIORS = {"learnable": (2.0, 2.0), "learn": (2.0, 2.0), "prior": (1.2, 6.8), "unsure": (2.0, 3.0)}
BETA_GRIDS = {"learnable": LEARNABLE_GRID, "learn": LEARN_GRID, "prior": PRIOR_GRID, "unsure": UNSURE_GRID}
CALIBRATION_PRIOR = (np.array([0.0, 1.0]), 0.5)  # (a, b) means, one standard deviation
# Fewer answers than this: the prediction says how few it rests on ("answers so far: N"). The
# model is fitted from the first answer on (weak priors keep it honest), there is no floor.
THIN_EVIDENCE = 50
CALIBRATION_BLOCKS = 5
# A `prior` value with less of the posterior than this is left out of the forecast's mixture
# (`Fitted.prior_points`): each value kept costs one more forecast.
PRIOR_POINT_LEAST = 0.03
RELIABILITY_BINS = 10
CLIP = 1e-4
# The reviews of one item the tracer reads: its first FIRST_TRACED and its newest ones, at most
# MAX_TRACED in all (`bounded`): 10⁶ reviews of one item cost what 64 do. Over many items the
# fit reads at most about TRACE_BUDGET answers in all (but never fewer than MIN_TRACED an item):
# 35 000 answers choose five parameters no better than 12 000 do, at three times the wait.
MAX_TRACED = 64
FIRST_TRACED = 16
MIN_TRACED = 16
TRACE_BUDGET = 12_000
RATINGS = frozenset(int(grade) for grade in Grade)

DEFAULT_GUESS = 0.25  # a stored kind that no longer exists: priced like four options


def _stored_kind(kind: str) -> QuestionKind | None:
    """The kind a stored review names, or None for one that no longer exists."""
    try:
        return kind_of(kind)
    except ValueError:
        return None


def picks(kind: str) -> bool:
    """Whether `kind`'s stored reviews are credits of a pick among options (the kind's input),
    read as evidence with elimination, rather than direct answers."""
    found = _stored_kind(kind)
    return found is not None and found.input == INPUT_PICK


def guess_rate(kind: str) -> float:
    """How often a blind guess at a question of `kind` is right: the kind's own `guess_rate`."""
    found = _stored_kind(kind)
    return DEFAULT_GUESS if found is None else found.guess_rate


def strikes(kind: str) -> bool:
    """Whether a learner answering `kind` strikes the options they know to be wrong before
    guessing (its kind's `strikes_known_options`)."""
    found = _stored_kind(kind)
    return found is not None and found.strikes_known_options


def struck_guess(guess: float, known: Any) -> Any:
    """P(right) on a pick question whose key is not known, with blind rate `guess` (1/options),
    when each distractor is known, and struck, with probability `known`: the number left unknown
    is binomial, and Σ C(n,u)(1−q)^u q^(n−u)/(1+u) = (1 − q^(n+1)) / ((n+1)(1 − q))."""
    options = max(2, round(1 / guess))
    q = np.minimum(known, 1 - 1e-6)
    return (1 - q**options) / (options * (1 - q))


def _sigmoid(z: np.ndarray | float) -> Any:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def _logit(p: np.ndarray | float) -> Any:
    q = np.clip(p, CLIP, 1 - CLIP)
    return np.log(q / (1 - q))


# ---------------------------------------------------------------------------------------------
# the review log, prepared once
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One review as the tracer reads it."""

    at: datetime
    elapsed: float  # days since the previous review (0 for the first)
    stability: float | None  # FSRS stability after the previous review (None for the first)
    guess: float  # how often a blind guess at this kind is right (its kind's guess_rate)
    pick: bool  # a credit of a pick-one-option answer (4-choice, glossary), else a direct answer
    correct: bool
    unsure: bool
    # a pick answered right but marked unsure: its key's only credit (Hard), read like a direct
    # answer marked unsure, where a distractor's Hard credit says nothing of the item
    unsure_key: bool = False
    picked_wrong: bool = False  # the option picked in a wrong answer (not its key): `wrong_picks`
    strikes: bool = False  # a pick whose known distractors are struck before guessing
    studied: float = 0.0  # the share of its topic's items answered before (`StudiedShare`)


@dataclass(frozen=True)
class ItemLog:
    item_id: str
    steps: tuple[Step, ...]
    stability: float | None  # FSRS stability after the last review
    last_review: datetime | None
    # times shown as an uncredited 4-choice option before its first review, as remembered then,
    # one value per forgetting pace of the grid (PACE_GRID)
    exposures: np.ndarray | None = None
    # P(known) before its first review when it is not the learner's `prior` (a skill of its own,
    # such as reading a trace: `fit_learner`'s `skill_prior`)
    prior: float | None = None
    since_start: float = 0.0  # days from the learner's first answer to this item's first review

    def keep_until(self, moment: datetime, pace: float = 1.0) -> float:
        """FSRS retrievability from the last review to `moment`, time running `pace` times faster."""
        if self.stability is None or self.last_review is None:
            return 1.0
        return recall_after(self.stability, pace * (moment - self.last_review).total_seconds() / 86400)


def by_item(reviews: Iterable[Review]) -> dict[str, list[Review]]:
    grouped: dict[str, list[Review]] = defaultdict(list)
    for review in reviews:
        grouped[review.item_id].append(review)
    for entries in grouped.values():
        entries.sort(key=lambda r: r.reviewed_at)
    return dict(grouped)


def _answer_groups(reviews: Iterable[Review]) -> dict[tuple[str | None, datetime], list[Review]]:
    """The credits of each pick answer outside a mock exam, grouped by answer (one session, one
    moment), in the order given. An exam's credits share one moment and cannot be told apart."""
    groups: dict[tuple[str | None, datetime], list[Review]] = defaultdict(list)
    for review in reviews:
        if picks(review.kind) and review.mode != "exam":
            groups[(review.session_id, review.reviewed_at)].append(review)
    return groups


class Exposures:
    """Options shown without a review. A 4-choice answer stores reviews only for the options it
    credits (all four, or the key and the pick, or the key alone), but the feedback explains all
    four: the others were seen too. Which items they were is not stored, only how many, so each
    is spread over the items of the question's topic (the options all come from one topic)."""

    def __init__(
        self, reviews: Iterable[Review], topic_of: Mapping[str, str], options: int = CHOICE_OPTIONS
    ) -> None:
        sizes = Counter(topic_of.values())
        events: dict[str, list[tuple[datetime, float]]] = defaultdict(list)
        for (_, moment), group in _answer_groups(reviews).items():
            credited = [review.item_id for review in group if review.item_id in topic_of]
            if not credited:
                continue
            topic = topic_of[credited[0]]
            unseen = max(0, options - len(credited))
            if unseen:
                events[topic].append((moment, unseen / max(1, sizes[topic])))
        self._events = {
            topic: (
                np.array([moment.timestamp() for moment, _ in sorted(entries)]),
                np.array([share for _, share in sorted(entries)]),
            )
            for topic, entries in events.items()
        }

    def before(self, topic: str, moment: datetime, pace: float = 1.0) -> float:
        """Expected showings of an item of `topic` before `moment`, each weighed by how much of
        it is still remembered then (FSRS's curve from a first sure answer's stability, time
        running `pace` times faster): what is learnt in passing fades like the rest."""
        times, shares = self._events.get(topic, (None, None))
        if times is None or shares is None:
            return 0.0
        elapsed = (moment.timestamp() - times) / 86400
        shown = elapsed > 0
        if not shown.any():
            return 0.0
        keep = recall_curve(FIRST_STABILITY, pace * elapsed[shown])
        return float(np.dot(shares[shown], keep))

    def before_by_pace(self, topic: str, moment: datetime) -> np.ndarray:
        """`before` for every forgetting pace of the grid (PACE_GRID)."""
        return np.array([self.before(topic, moment, pace) for pace in PACE_GRID])


def wrong_picks(reviews: Sequence[Review]) -> frozenset[str]:
    """The uids of the options picked in wrong pick answers; `reviews` in the store's order.

    A wrong answer credits the missed key and the picked option, both Again, key first. The pick
    was chosen *because* the learner did not know it, while the options they did know are not
    credited at all. Read as answers, the picks said "not known" far more often than the
    learner's knowledge does, and the learner's `prior` came out at a half to a third of the truth
    (docs/READINESS.md, tests/test_prediction_picks.py). So a pick says only that its item was not known then: an item first
    met as a wrong pick starts unknown (`item_logs`), and the pick's credit weighs nothing else
    (`trace`)."""
    return frozenset(
        group[1].uid
        for group in _answer_groups(reviews).values()
        if len(group) == 2 and not group[0].correct and not group[1].correct
    )


def unsure_keys(reviews: Iterable[Review]) -> frozenset[str]:
    """The uids of keys picked right but marked unsure: an answer whose only credit is right and
    unsure (a sure right answer also credits every distractor Hard, which says nothing)."""
    return frozenset(
        group[0].uid
        for group in _answer_groups(reviews).values()
        if len(group) == 1 and group[0].correct and group[0].unsure
    )


class StudiedShare:
    """The share of a topic's items answered at least once before a moment. A pick question's
    distractors come from its topic: the more of it has been studied, the more of them the
    learner knows and strikes, and the likelier a right guess (`trace`)."""

    def __init__(self, histories: Mapping[str, Sequence[Review]], topic_of: Mapping[str, str]) -> None:
        self._sizes = Counter(topic_of.values())
        firsts: dict[str, list[float]] = defaultdict(list)
        for item_id, entries in histories.items():
            if entries and item_id in topic_of:
                firsts[topic_of[item_id]].append(entries[0].reviewed_at.timestamp())
        self._firsts = {topic: sorted(times) for topic, times in firsts.items()}

    def before(self, topic: str | None, moment: datetime) -> float:
        if topic is None or topic not in self._firsts:
            return 0.0
        return bisect_right(self._firsts[topic], moment.timestamp() - 1e-6) / max(1, self._sizes[topic])


def traced_per_item(items: int) -> int:
    """How many reviews of each item a fit over `items` items reads (see TRACE_BUDGET)."""
    return max(MIN_TRACED, min(MAX_TRACED, TRACE_BUDGET // max(1, items)))


def bounded(history: Sequence[Review], limit: int = MAX_TRACED) -> Sequence[Review]:
    """An item's first quarter of `limit` reviews and its newest ones, `limit` in all. The first
    ones say what the learner knew on first sight (the `prior`), the last ones what they know
    now; the tracer's state forgets the middle of a long history anyway, so leaving it out
    keeps the time and memory of a fit bounded by the bank's size, whatever the store holds."""
    if len(history) <= limit:
        return history
    first = first_traced(limit)
    return [*history[:first], *history[len(history) - (limit - first) :]]


def first_traced(limit: int) -> int:
    """Of `limit` reviews of an item read, how many are its first ones (the rest its newest)."""
    return limit * FIRST_TRACED // MAX_TRACED


def usable(reviews: Iterable[Review]) -> tuple[list[Review], int]:
    """The reviews whose rating FSRS can read, and how many were left out: a hand-damaged row
    (a rating of -1 or 99) is skipped and counted, so the report can say so, rather than
    ending the report with an internal error."""
    kept: list[Review] = []
    damaged = 0
    for review in reviews:
        if review.rating in RATINGS:
            kept.append(review)
        else:
            damaged += 1
    return kept, damaged


def item_logs(
    histories: Mapping[str, Sequence[Review]],
    items: Iterable[str],
    exposures: Exposures | None = None,
    topic_of: Mapping[str, str] | None = None,
    limit: int = MAX_TRACED,
    skill_prior: Mapping[str, float] | None = None,
    picked_wrong: frozenset[str] = frozenset(),
    keys_unsure: frozenset[str] = frozenset(),
    studied: StudiedShare | None = None,
    start: datetime | None = None,
) -> dict[str, ItemLog]:
    """Every reviewed item of `items`, replayed through FSRS once (at most `limit` reviews of
    each: see `bounded`). An item first met as a wrong pick (`picked_wrong`, by review uid) starts
    unknown; the reviews of `keys_unsure` are keys picked right but unsure."""
    logs: dict[str, ItemLog] = {}
    for item_id in items:
        history = bounded(histories.get(item_id) or (), limit)
        if not history:
            continue
        steps: list[Step] = []
        stability: float | None = None
        last: datetime | None = None
        for review, state in zip(
            history, replay_states(item_id, ((r.reviewed_at, Grade(r.rating)) for r in history)), strict=True
        ):
            elapsed = (review.reviewed_at - last).total_seconds() / 86400 if last is not None else 0.0
            steps.append(
                Step(
                    review.reviewed_at,
                    max(0.0, elapsed),
                    stability,
                    guess_rate(review.kind),
                    picks(review.kind),
                    review.correct,
                    review.unsure,
                    review.uid in keys_unsure,
                    review.uid in picked_wrong,
                    strikes(review.kind),
                    studied.before((topic_of or {}).get(item_id), review.reviewed_at) if studied else 0.0,
                )
            )
            stability, last = state.stability, state.last_review
        shown = None
        if exposures is not None and topic_of is not None and item_id in topic_of:
            shown = exposures.before_by_pace(topic_of[item_id], history[0].reviewed_at)
        prior = skill_prior.get(item_id) if skill_prior else None
        if history[0].uid in picked_wrong:
            prior = 0.0
        since = (history[0].reviewed_at - start).total_seconds() / 86400 if start is not None else 0.0
        logs[item_id] = ItemLog(item_id, tuple(steps), stability, last, shown, prior, max(0.0, since))
    return logs


# ---------------------------------------------------------------------------------------------
# knowledge tracing, over a grid of parameters at once or for one point
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Params:
    """The tracer's parameters: floats for one point, or arrays over a grid (the same code runs
    both; numpy broadcasts)."""

    learnable: Any  # the share of items feedback can teach this learner
    learn: Any  # how often one feedback teaches such an item
    prior: Any  # known before any review
    unsure: Any  # a guess marked unsure
    pace: Any = 1.0  # forgetting runs this many times faster than FSRS's default curve says

    @classmethod
    def grid(cls) -> Params:
        points = np.array(list(product(LEARNABLE_GRID, LEARN_GRID, PRIOR_GRID, UNSURE_GRID, PACE_GRID)))
        return cls(*(points[:, n] for n in range(5)))

    def posterior_mean(self, log_posterior: np.ndarray) -> Params:
        """The posterior mean over the grid (the pace's in log space): it moves a little with each
        answer, where the grid's best point jumps from one grid value to the next."""
        weights = np.exp(log_posterior - np.max(log_posterior))
        weights = weights / weights.sum()
        means = [float(np.dot(weights, getattr(self, name))) for name in PARAM_NAMES[:-1]]
        pace = float(np.exp(np.dot(weights, np.log(self.pace))))
        return Params(*means, pace=pace)

    def point(self, index: int) -> Params:
        return Params(*(float(getattr(self, name)[index]) for name in PARAM_NAMES))

    def log_prior(self) -> np.ndarray:
        """Each Beta prior as the probability of the grid value's cell, not its density at the
        value: the grids are denser where values are small (`PRIOR_GRID`: 0.02, 0.07, 0.15, then
        0.3, 0.5, ...), and weighting by density alone gave the small values more than their
        share (`prior`'s mean was 0.096, not 0.15; 0.3 and above held 0.10, not 0.23). The pace
        grid is even in log space, where its prior is normal: density is its cell's share there."""
        total = -0.5 * (np.log(self.pace) / PACE_PRIOR_SD) ** 2
        for name, (alpha, beta) in BETA_PRIORS.items():
            grid = BETA_GRIDS[name]
            masses = np.log(beta_cell_masses(grid, alpha, beta))
            total = total + masses[np.searchsorted(grid, getattr(self, name))]
        return total

    def to_dict(self) -> dict[str, float]:
        return {name: round(float(getattr(self, name)), 4) for name in PARAM_NAMES}


PARAM_NAMES = ("learnable", "learn", "prior", "unsure", "pace")


@cache
def beta_cell_masses(grid: tuple[float, ...], alpha: float, beta: float) -> np.ndarray:
    """Beta(α, β)'s probability of each grid value's cell (from the midpoint below it to the one
    above; the ends reach 0 and 1), by the midpoint rule on a fine mesh (no SciPy here)."""
    values = np.asarray(grid)
    edges = np.concatenate([[0.0], (values[1:] + values[:-1]) / 2, [1.0]])
    mesh = (np.arange(20_000) + 0.5) / 20_000
    density = mesh ** (alpha - 1) * (1 - mesh) ** (beta - 1)
    masses = np.array([density[(mesh >= low) & (mesh < high)].sum() for low, high in pairwise(edges)])
    masses = masses / masses.sum()
    masses.flags.writeable = False  # cached: shared by every call
    return masses


DEFAULT_PARAMS = Params(DEFAULT_LEARNABLE, DEFAULT_LEARN, DEFAULT_PRIOR, DEFAULT_UNSURE, DEFAULT_PACE)


def _exposures_for(params: Params, exposures: np.ndarray | None) -> Any:
    """The exposures at each grid point's pace (or the one point's)."""
    if exposures is None:
        return 0.0
    if isinstance(params.pace, np.ndarray):
        return exposures[np.searchsorted(PACE_GRID, params.pace)]
    # one point (a posterior mean): between the grid's paces, in log pace
    return float(np.interp(math.log(params.pace), np.log(PACE_GRID), exposures))


def brought(params: Params, since_start: float) -> Any:
    """P(an item not yet met is known from before), `since_start` days after the first answer:
    the learner's `prior`, faded on their own pace from BROUGHT_STABILITY."""
    return params.prior * recall_curve(BROUGHT_STABILITY, since_start * params.pace)


def initial_state(params: Params, exposures: Any) -> tuple[Any, Any, Any]:
    """(known, teachable, other) before an item's first review: known beforehand with `prior`,
    or learnt from being shown as an option, each showing teaching a teachable item at
    `SKIM_SHARE` × `learn`."""
    learnt = 1 - np.exp(-exposures * SKIM_SHARE * params.learn)
    teachable = (1 - params.prior) * params.learnable
    return (
        params.prior + teachable * learnt,
        teachable * (1 - learnt),
        (1 - params.prior) * (1 - params.learnable),
    )


@dataclass(frozen=True)
class TracedAnswer:
    at: datetime
    item_id: str
    correct: bool
    known: Any  # P(known) just before the answer (per grid point, or one float)
    guess: float = GUESS_OX  # the answer's blind-guess rate


@dataclass
class Trace:
    """What tracing the logs gives: per O/X answer, P(known) just before it; per item, P(known)
    after its last review; the log-likelihood of the reviews before each of the `bounds` given
    to `trace`, and of all of them (last)."""

    answers: list[TracedAnswer] = field(default_factory=list)
    known_after: dict[str, Any] = field(default_factory=dict)
    log_likelihood_before: list[Any] = field(default_factory=list)


def trace(
    logs: Iterable[ItemLog], params: Params, bounds: Sequence[datetime] = (), keep_answers: bool = True
) -> Trace:
    """Run the three-state tracer (known; unknown but teachable; unknown and not taught by
    feedback) over every item's log with `params`. Over the grid only the likelihoods are
    needed: `keep_answers=False` keeps no per-answer state (an array of the grid's size, ~7 KB,
    for every answer otherwise)."""
    log = np.log if isinstance(params.learn, np.ndarray) else math.log
    result = Trace()
    sums: list[Any] = [0.0] * (len(bounds) + 1)
    for item in logs:
        own = replace(params, prior=brought(params, item.since_start) if item.prior is None else item.prior)
        known, teachable, other = initial_state(own, _exposures_for(params, item.exposures))
        for step in item.steps:
            keep = 1.0 if step.stability is None else recall_curve(step.stability, step.elapsed * params.pace)
            forgotten = known * (1 - keep)  # forgotten items were learnt: teachable again
            known, teachable = known - forgotten, teachable + forgotten
            if not step.pick:
                # a direct answer of any kind, at its own guess rate (½ O/X, a typed number
                # almost never: GUESS_FLOOR keeps a lucky one from being impossible)
                guess = min(1 - GUESS_FLOOR, max(GUESS_FLOOR, step.guess))
                right = (1 - SLIP) if step.correct else SLIP
                if_known = right * (UNSURE_KNOWN if step.unsure else 1 - UNSURE_KNOWN)
                lucky = guess if step.correct else 1 - guess
                if_unknown = lucky * (params.unsure if step.unsure else 1 - params.unsure)
                if keep_answers:
                    result.answers.append(TracedAnswer(step.at, item.item_id, step.correct, known, guess))
            elif step.picked_wrong:
                # picked because not known: P(picked | not known) is the same whatever the
                # learner's parameters, so it is left at 1 (the key's own credit holds the
                # answer's evidence about how likely a guess was)
                if_known, if_unknown = SLIP, 1.0
            elif step.correct and step.unsure and not step.unsure_key:
                if_known = if_unknown = 1.0  # a distractor's Hard credit: found whether known or not
            else:
                # the key's credit. A distractor is known from before, or studied and taught (its
                # topic's share); only here is the guess rate worked out (grid-wide arrays)
                struck = params.prior + (1 - params.prior) * step.studied * params.learnable * params.learn
                lucky = struck_guess(step.guess, struck) if step.strikes else step.guess
                if not step.correct:
                    if_known, if_unknown = SLIP, 1 - lucky
                elif step.unsure_key:
                    if_known = (1 - SLIP) * UNSURE_KNOWN
                    if_unknown = lucky * params.unsure
                else:
                    if_known = (1 - SLIP) * (1 - UNSURE_KNOWN)
                    if_unknown = lucky * (1 - params.unsure)
            # The three states are renormalised at every answer: the update is exact only while
            # they sum to 1, and rounding drift grows at every surprising answer (a known item
            # missed multiplies it by ~10), so after a few thousand answers to one item the
            # evidence went negative and log() failed. With the sum held at 1 the evidence is at
            # least min(if_known, if_unknown) > 0: every term of the log-likelihood is bounded.
            total = known + teachable + other
            known, teachable, other = known / total, teachable / total, other / total
            evidence = known * if_known + (teachable + other) * if_unknown
            slot = bisect_right(bounds, step.at) if bounds else 0
            sums[slot] = sums[slot] + log(evidence)
            known = known * if_known / evidence
            teachable = teachable * if_unknown / evidence
            other = other * if_unknown / evidence
            # the feedback: a teachable item is learnt with `learn`
            known = known + teachable * params.learn + other * HARD_LEARN
            teachable = teachable * (1 - params.learn)
            other = other * (1 - HARD_LEARN)
        result.known_after[item.item_id] = known
    running: Any = 0.0
    for value in sums:
        running = running + value
        result.log_likelihood_before.append(running)
    return result


# ---------------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecallModel:
    params: Params = DEFAULT_PARAMS
    calibration: tuple[float, float] = (0.0, 1.0)  # (a, b)
    answers: int = 0  # the O/X answers it was fitted on

    @property
    def fitted(self) -> bool:
        """Fitted on at least one answer (with none, the priors' own MAP point)."""
        return self.answers > 0

    @property
    def thin(self) -> bool:
        """Too few answers for the prediction to say much beyond the priors."""
        return self.answers < THIN_EVIDENCE

    def calibrate(self, known: np.ndarray | float) -> Any:
        """P(known) as the tracer says → the calibrated probability that the item is known."""
        a, b = self.calibration
        return _sigmoid(a + b * _logit(known))

    def to_dict(self) -> dict[str, Any]:
        return {
            "fitted": self.fitted,
            "answers": self.answers,
            **self.params.to_dict(),
            "calibration": [round(x, 4) for x in self.calibration],
        }


def fit_calibration(
    known: np.ndarray, correct: np.ndarray, guess: np.ndarray | float = GUESS_OX, iterations: int = 25
) -> tuple[float, float]:
    """MAP (a, b) of P(right) = g + (1 − g)·σ(a + b·logit known) on direct answers, g each
    answer's blind-guess rate."""
    mean, sd = CALIBRATION_PRIOR
    design = np.column_stack([np.ones(len(known)), _logit(known)])
    weights = mean.copy()
    precision = 1.0 / sd**2
    for _ in range(iterations):
        z = _sigmoid(design @ weights)
        p = np.clip(guess + (1 - guess) * z, 1e-6, 1 - 1e-6)
        slope = (1 - guess) * z * (1 - z)
        gradient = design.T @ ((correct - p) / (p * (1 - p)) * slope) - precision * (weights - mean)
        information = (design * (slope**2 / (p * (1 - p)))[:, None]).T @ design + precision * np.eye(2)
        step = np.linalg.solve(information, gradient)
        weights = weights + step
        if float(np.max(np.abs(step))) < 1e-6:
            break
    return float(weights[0]), float(weights[1])


def _model_for(logs: Sequence[ItemLog], params: Params, until: datetime | None) -> tuple[RecallModel, Trace]:
    """The model with tracer `params` and a calibration fitted on the O/X answers before `until`
    (all: None), with its trace. With no answers: the calibration's prior (identity)."""
    traced = trace(logs, params)
    chosen = [a for a in traced.answers if until is None or a.at < until]
    if not chosen:
        return RecallModel(params, answers=0), traced
    known = np.array([a.known for a in chosen])
    correct = np.array([float(a.correct) for a in chosen])
    guess = np.array([a.guess for a in chosen])
    return RecallModel(params, fit_calibration(known, correct, guess), answers=len(chosen)), traced


# ---------------------------------------------------------------------------------------------
# calibration on the learner's own answers
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    predicted: float  # mean predicted probability in the bin
    observed: float  # share right


@dataclass(frozen=True)
class Calibration:
    answers: int
    brier: float | None
    log_loss: float | None
    bins: tuple[ReliabilityBin, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "answers": self.answers,
            "brier": None if self.brier is None else round(self.brier, 4),
            "log_loss": None if self.log_loss is None else round(self.log_loss, 4),
        }


def score_predictions(predicted: Sequence[float], outcome: Sequence[bool]) -> Calibration:
    """Brier score, log loss and reliability bins of probabilities against what happened."""
    if not len(predicted):
        return Calibration(0, None, None)
    p = np.clip(np.asarray(predicted, dtype=float), 1e-6, 1 - 1e-6)
    y = np.asarray(outcome, dtype=float)
    bins = []
    edges = np.linspace(0, 1, RELIABILITY_BINS + 1)
    index = np.minimum((p * RELIABILITY_BINS).astype(int), RELIABILITY_BINS - 1)
    for number in range(RELIABILITY_BINS):
        inside = index == number
        if inside.any():
            bins.append(
                ReliabilityBin(
                    float(edges[number]),
                    float(edges[number + 1]),
                    int(inside.sum()),
                    float(p[inside].mean()),
                    float(y[inside].mean()),
                )
            )
    return Calibration(
        answers=len(p),
        brier=float(np.mean((p - y) ** 2)),
        log_loss=float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
        bins=tuple(bins),
    )


# ---------------------------------------------------------------------------------------------
# everything at once
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    """The learner's model, each item's P(known) after its last review, and the calibration."""

    model: RecallModel
    logs: dict[str, ItemLog]
    known_after: dict[str, float]
    calibration: Calibration
    exposures: Exposures | None = None
    topic_of: Mapping[str, str] = field(default_factory=dict)
    damaged: int = 0  # reviews left out: a rating no FSRS grade has (a hand-edited store)
    answers: int = 0  # the answers read (of every kind)
    # (value, posterior weight) of the learner's `prior` over PRIOR_GRID: how sure the answers
    # make the model of what an unseen item is known with (few answers: not sure at all)
    prior_weights: tuple[tuple[float, float], ...] = ()
    start: datetime | None = None  # the first answer read: what the learner brought fades from here

    def prior_points(self, least: float = PRIOR_POINT_LEAST) -> list[tuple[float, float]]:
        """The `prior` values with at least `least` of the posterior, their weights summing to 1."""
        kept = [(value, weight) for value, weight in self.prior_weights if weight >= least]
        total = sum(weight for _, weight in kept)
        return [(value, weight / total) for value, weight in kept] if total > 0 else []

    def knows(self, item_id: str, moment: datetime, prior: float | None = None) -> float:
        """Calibrated P(the learner knows `item_id`) at `moment`, with no more study before it;
        `prior`: an unseen item at that value of the learner's `prior` instead of its mean."""
        log = self.logs.get(item_id)
        if log is None:
            topic = self.topic_of.get(item_id)
            params = self.model.params if prior is None else replace(self.model.params, prior=prior)
            if self.start is not None:
                since = max(0.0, (moment - self.start).total_seconds() / 86400)
                params = replace(params, prior=brought(params, since))
            shown = self.exposures.before(topic, moment, params.pace) if self.exposures and topic else 0.0
            return float(initial_state(params, shown)[0])
        keep = log.keep_until(moment, self.model.params.pace)
        return float(self.model.calibrate(self.known_after[item_id] * keep))


def fit_learner(
    histories: Mapping[str, Sequence[Review]],
    topic_of: Mapping[str, str],
    skill_prior: Mapping[str, float] | None = None,
    picked_wrong: frozenset[str] = frozenset(),
) -> Fitted:
    """Fit the learner's tracer parameters (MAP over the grid) and calibration on their answers to
    the items of `topic_of` (item id → topic); score the calibration prequentially (each block of
    answers by a fit on the blocks before it). `skill_prior`: questions known before their first
    answer with a P(known) of their own, not the learner's `prior` (a skill of its own)."""
    clean: dict[str, list[Review]] = {}
    damaged = 0
    for item_id, entries in histories.items():
        kept, left_out = usable(entries)
        damaged += left_out
        if kept:
            clean[item_id] = kept
    histories = clean
    exposures = Exposures((r for entries in histories.values() for r in entries), topic_of)
    # every answered thing, not only the bank's items: a glossary term or a drill answered says
    # what this learner knew on first sight and how they learn, at its kind's guess rate
    limit = traced_per_item(len(histories))
    keys_unsure = unsure_keys(r for entries in histories.values() for r in entries)
    first_answer = min((entries[0].reviewed_at for entries in histories.values() if entries), default=None)
    logs = list(
        item_logs(
            histories,
            histories,
            exposures,
            topic_of,
            limit,
            skill_prior,
            picked_wrong,
            keys_unsure,
            StudiedShare(histories, topic_of),
            first_answer,
        ).values()
    )
    answer_times = sorted(step.at for log in logs for step in log.steps if not step.pick)
    size = max(1, math.ceil(len(answer_times) / CALIBRATION_BLOCKS))
    bounds = [answer_times[n] for n in range(size, len(answer_times), size)]
    grid = Params.grid()
    over_grid = trace(logs, grid, bounds, keep_answers=False)
    log_prior = grid.log_prior()

    def fitted_before(slot: int | None) -> tuple[RecallModel, Trace]:
        """Chosen on the reviews before bounds[slot] (None: on all of them)."""
        until = None if slot is None else bounds[slot]
        likelihood = over_grid.log_likelihood_before[len(bounds) if slot is None else slot]
        return _model_for(logs, grid.posterior_mean(log_prior + likelihood), until)

    model, traced = fitted_before(None)
    log_posterior = log_prior + over_grid.log_likelihood_before[len(bounds)]
    weights = np.exp(log_posterior - np.max(log_posterior))
    prior_weights = tuple(
        (value, float(weights[grid.prior == value].sum() / weights.sum())) for value in PRIOR_GRID
    )
    predicted: list[float] = []
    outcome: list[bool] = []
    edges: list[datetime | None] = [None, *bounds, None]
    for block in range(len(bounds) + 1):
        start, end = edges[block], edges[block + 1]
        block_model, block_trace = (
            (RecallModel(), trace(logs, DEFAULT_PARAMS)) if block == 0 else fitted_before(block - 1)
        )
        for answer in block_trace.answers:
            if (start is None or answer.at >= start) and (end is None or answer.at < end):
                guess = answer.guess
                predicted.append(float(guess + (1 - guess) * block_model.calibrate(answer.known)))
                outcome.append(answer.correct)
    known_after = {item_id: float(value) for item_id, value in traced.known_after.items()}
    return Fitted(
        model,
        {log.item_id: log for log in logs},
        known_after,
        score_predictions(predicted, outcome),
        exposures,
        topic_of,
        damaged,
        sum(len(log.steps) for log in logs),
        prior_weights,
        first_answer,
    )
