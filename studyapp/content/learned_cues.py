"""The cue lint that learns (issue 32): a classifier that predicts O/X from the statement's form.

The fixed rules of `studyapp.content.cues` look for the cues item-writing guides name (length,
absolute words, hedges). A bank can grow a cue nobody listed: a rewrite template such as "a
concessive clause, then the false claim" (…더라도 / …해도 / …지만) that opens mostly X statements.
This module finds such cues without being told what they are:

- **Features** (`statement_features`): the statement's words and word pairs, each word's ending
  (its last two and three characters: particles and verb endings such as `더라도`, `않는다`), the
  statement's final ending, a few named form families (a concessive clause, a negated ending,
  an absolute word, a hedge) and its length (a quarter of the bank's lengths, and the length
  itself for the model). Only the text is read, never the key or the explanation.
- **Folds**: `FOLDS`-fold cross-validation, stratified by key (each fold keeps the bank's O/X mix),
  repeated `REPEATS` times with seeded shuffles, so a run is deterministic.
- **The model**: L2-regularised logistic regression over all features, fitted on the training
  folds (numpy, imported only when the check runs: the quiz path never loads this module).
  Its score: accuracy on the held-out statements, pooled over every fold and repeat.
- **A feature alone**: on the training folds it points to the key most of its statements have;
  its score is the share of held-out statements *carrying it* whose key it names.

**Chance** is the share of the more common key among the statements checked (the whole bank):
what answering that key every time scores. Stratified folds keep that share in every fold, so it
is also each held-out fold's majority rate. A cue is reported when its held-out score is more
than `MARGIN` (10 points) above chance. A feature is only judged when `MIN_SUPPORT` statements
carry it, and flagged only when its held-out count is also unlikely to be luck (a binomial tail at
the chance rate below `MAX_P_VALUE`, split Bonferroni-wise among the named forms, and separately
among the mined words and endings): a bank of ~500 statements has thousands of words, and some
carried by a dozen statements lean one way by chance alone.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studyapp.content.cues import has_absolute_word, has_hedge, text_length
from studyapp.content.model import Item
from studyapp.content.problems import Problem

if TYPE_CHECKING:  # numpy is imported where the model is fitted, never at import time
    import numpy

FOLDS = 5
REPEATS = 4  # seeded reshuffles of the folds: one 5-fold split of ~500 statements is noisy
SEED = 32
MARGIN = 0.10  # a cue: held-out accuracy above chance by more than this
MIN_SUPPORT = 12  # statements that must carry a feature before it is judged alone
MIN_MODEL_SUPPORT = 3  # rarer features are left out of the model (they cannot generalise)
MAX_P_VALUE = 0.05  # per family of tests (named forms; mined n-grams), split among its members
L2 = 1.0  # ridge penalty per statement on the model's weights (larger: more cautious)
STEPS = 300  # gradient steps per fit (Nesterov; converges well within this on the bank)
NAMED_PREFIXES = ("form: ", "length: ")
MIN_STATEMENTS = 50  # fewer (a test fixture, a topic alone): five folds of noise, so not judged

# A concessive clause, "even if …" (…더라도, …해도, …여도, …아도/어도, …라도, …ㄴ데도), before the
# claim: its verb ends a word that is not the statement's last. `적어도` ("at least") is no clause.
CONCESSIVE = re.compile(r"(더라도|해도|여도|아도|어도|라도|는데도|은데도|인데도),?$")
NOT_CONCESSIVE = frozenset({"적어도", "적어도,"})
# A contrastive clause, "A, but B" (…지만): the other half of the reviewers' concessive cue.
CONTRASTIVE = re.compile(r"지만,?$")
# A negated or "cannot" ending anywhere in the statement.
NEGATED = re.compile(r"(않는다|않다|않으며|않고|않아|없다|없으며|없고|없어|못한다|아니다)")
CONCESSIVE_FAMILY = "form: concessive clause (…더라도/…해도/…여도/…라도)"
_PUNCTUATION = ".,;:!?\"'()[]{}“”‘’·`"


def _words(statement: str) -> list[str]:
    words = (word.strip(_PUNCTUATION) for word in statement.split())
    return [word for word in words if word]


def statement_features(statement: str) -> set[str]:
    """The named surface features of one statement (length bands are added per bank)."""
    words = _words(statement)
    features = {f"word '{word}'" for word in words}
    features |= {f"words '{first} {second}'" for first, second in itertools.pairwise(words)}
    for word in words:
        for size in (2, 3):
            if len(word) > size:  # a word no longer than the ending is the word feature already
                features.add(f"word ending '…{word[-size:]}'")
    if words:
        last = words[-1]
        for size in (2, 3, 4):
            features.add(f"statement ends '…{last[-size:]}'")
    clause_words = [word.strip("\"'“”") for word in statement.split()[:-1]]
    if any(CONCESSIVE.search(word) and word not in NOT_CONCESSIVE for word in clause_words):
        features.add(CONCESSIVE_FAMILY)
    if any(CONTRASTIVE.search(word) for word in clause_words):
        features.add("form: contrastive clause (…지만)")
    if NEGATED.search(statement):
        features.add("form: negated ending (…않는다/…없다)")
    if has_absolute_word(statement):
        features.add("form: absolute word (항상/반드시/…)")
    if has_hedge(statement):
        features.add("form: hedge (…수 있다/대개/…)")
    return features


def _length_bands(lengths: Sequence[int]) -> list[str]:
    """Each statement's quarter of the bank's lengths (cut points from lengths only, no keys)."""
    ordered = sorted(lengths)
    cuts = [ordered[len(ordered) * quarter // 4] for quarter in (1, 2, 3)]
    names = ("shortest quarter", "second quarter", "third quarter", "longest quarter")
    return [f"length: {names[sum(length >= cut for cut in cuts)]}" for length in lengths]


@dataclass(frozen=True)
class FeatureCue:
    """How well one feature alone answers the statements that carry it."""

    feature: str
    item_ids: tuple[str, ...]  # every statement carrying it, bank order
    o_count: int
    x_count: int
    answer: str  # the key most of its statements have
    held_out: float  # share of held-out carriers whose key the training folds' direction names
    p_value: float  # chance of a held-out count this high if the feature said nothing (one-sided)

    @property
    def statements(self) -> int:
        return self.o_count + self.x_count

    @property
    def named(self) -> bool:
        """A form named in advance (a clause family, a length band), not a mined word or ending."""
        return self.feature.startswith(NAMED_PREFIXES)


@dataclass(frozen=True)
class LearnedCueReport:
    statements: int
    o_count: int
    x_count: int
    folds: int
    repeats: int
    model: float  # the classifier's held-out accuracy, pooled over folds and repeats
    judged: list[FeatureCue]  # features carried by at least MIN_SUPPORT statements, best first
    flagged: list[FeatureCue]  # ...those above chance + MARGIN and beyond luck

    @property
    def chance(self) -> float:
        """The share of the more common key: what answering it every time scores."""
        return max(self.o_count, self.x_count) / self.statements

    @property
    def model_flagged(self) -> bool:
        return self.model > self.chance + MARGIN


def _stratified_folds(answers: Sequence[str], seed: int) -> list[list[int]]:
    """`FOLDS` folds of statement indexes, each with the bank's share of O and X."""
    folds: list[list[int]] = [[] for _ in range(FOLDS)]
    rng = random.Random(seed)
    offset = 0
    for key in ("O", "X"):
        indexes = [index for index, answer in enumerate(answers) if answer == key]
        rng.shuffle(indexes)
        for position, index in enumerate(indexes):
            folds[(offset + position) % FOLDS].append(index)
        offset += len(indexes)  # X continues where O stopped: fold sizes differ by one at most
    return folds


def _binomial_tail(successes: int, trials: int, rate: float) -> float:
    """P(at least `successes` of `trials`) for a coin that lands right at `rate`."""
    if trials == 0 or successes <= 0:
        return 1.0
    return min(
        1.0,
        sum(
            math.comb(trials, k) * rate**k * (1 - rate) ** (trials - k) for k in range(successes, trials + 1)
        ),
    )


def _fit_logistic(design: numpy.ndarray, targets: numpy.ndarray, norm_squared: float) -> numpy.ndarray:
    """Weights (the design's last column is the bias) minimising mean log-loss + L2/2·|w|²/n by
    Nesterov gradient descent. `norm_squared` bounds the design's largest squared singular
    value; the step is 1/L for L the loss's smoothness bound, so it never overshoots."""
    import numpy as np

    rows = design.shape[0]
    penalty = np.full(design.shape[1], L2 / rows)
    penalty[-1] = 0.0  # the bias is not shrunk: it carries the key mix
    step = 1.0 / (norm_squared / (4 * rows) + L2 / rows)
    weights = np.zeros(design.shape[1])
    previous = weights
    for iteration in range(1, STEPS + 1):
        look = weights + (iteration - 1) / (iteration + 2) * (weights - previous)
        predicted = 1.0 / (1.0 + np.exp(-np.clip(design @ look, -30, 30)))
        gradient = design.T @ (predicted - targets) / rows + penalty * look
        previous, weights = weights, look - step * gradient
    return weights


def learned_cue_report(items: Iterable[Item], seed: int = SEED) -> LearnedCueReport | None:
    """Cross-validate the classifier and every feature on `items`; None for too few to fold."""
    items = sorted(items, key=lambda item: item.id)
    if len(items) < MIN_STATEMENTS:
        return None
    import numpy as np

    answers = [item.answer for item in items]
    lengths = [text_length(item.statement) for item in items]
    bands = _length_bands(lengths)
    features = [statement_features(item.statement) | {band} for item, band in zip(items, bands, strict=True)]
    carriers: dict[str, list[int]] = defaultdict(list)
    for index, found in enumerate(features):
        for feature in found:
            carriers[feature].append(index)

    # The model's columns: features seen often enough, and the standardised length.
    columns = sorted(name for name, where in carriers.items() if len(where) >= MIN_MODEL_SUPPORT)
    matrix = np.zeros((len(items), len(columns) + 2))  # ..., the length, the bias
    for column, name in enumerate(columns):
        matrix[carriers[name], column] = 1.0
    length_array = np.asarray(lengths, dtype=float)
    matrix[:, -2] = (length_array - length_array.mean()) / (length_array.std() or 1.0)
    matrix[:, -1] = 1.0
    # The largest squared singular value of the whole design bounds every training subset's
    # (dropping rows never raises it): one small eigenproblem instead of one SVD per fold.
    norm_squared = float(np.linalg.eigvalsh(matrix @ matrix.T)[-1])
    targets = np.asarray([answer == "O" for answer in answers], dtype=float)

    judged_names = sorted(name for name, where in carriers.items() if len(where) >= MIN_SUPPORT)
    right: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    model_right = model_seen = 0
    for repeat in range(REPEATS):
        for held in _stratified_folds(answers, seed * 1_000_003 + repeat):
            held_set = set(held)
            train = [index for index in range(len(items)) if index not in held_set]
            weights = _fit_logistic(matrix[train], targets[train], norm_squared)
            scores = matrix[held] @ weights
            model_right += int(np.sum((scores > 0) == (targets[held] > 0.5)))
            model_seen += len(held)
            train_o = sum(answers[index] == "O" for index in train)
            fallback = "O" if train_o * 2 >= len(train) else "X"
            for name in judged_names:
                where = carriers[name]
                on_train = [answers[index] for index in where if index not in held_set]
                o_share = on_train.count("O")
                # Its direction: the key most of its training statements have (a tie: the bank's).
                if o_share * 2 > len(on_train):
                    direction = "O"
                elif o_share * 2 < len(on_train):
                    direction = "X"
                else:
                    direction = fallback
                for index in where:
                    if index in held_set:
                        seen[name] += 1
                        right[name] += answers[index] == direction

    o_count = answers.count("O")
    chance = max(o_count, len(items) - o_count) / len(items)
    judged: list[FeatureCue] = []
    for name in judged_names:
        where = carriers[name]
        o_here = sum(answers[index] == "O" for index in where)
        # Each statement is held out once per repeat: the tail is over the statements, not the repeats.
        per_repeat_right = round(right[name] / REPEATS)
        judged.append(
            FeatureCue(
                name,
                tuple(items[index].id for index in where),
                o_here,
                len(where) - o_here,
                "O" if o_here * 2 >= len(where) else "X",
                right[name] / seen[name] if seen[name] else 0.0,
                _binomial_tail(per_repeat_right, len(where), chance),
            )
        )
    judged.sort(key=lambda cue: (-cue.held_out, cue.p_value, cue.feature))
    # Two families of tests, each corrected for its own size (Bonferroni): the few forms named in
    # advance (clause families, length bands), and the many words and endings mined from the bank.
    named = sum(cue.named for cue in judged)
    mined = len(judged) - named
    flagged = [
        cue
        for cue in judged
        if cue.held_out > chance + MARGIN
        and cue.p_value < MAX_P_VALUE / max(1, named if cue.named else mined)
    ]
    return LearnedCueReport(
        len(items),
        o_count,
        len(items) - o_count,
        FOLDS,
        REPEATS,
        model_right / model_seen if model_seen else 0.0,
        judged,
        flagged,
    )


def _where(item: Item, base: Path | None) -> str:
    path = item.location.path
    if base is not None and path.is_relative_to(base):
        path = path.relative_to(base)
    return f"{path}:{item.location.line}"


def learned_cue_problems(
    report: LearnedCueReport, items: Iterable[Item], base: Path | None = None
) -> list[Problem]:
    """An error for the model and for each feature that beats chance + MARGIN: `studyapp check`
    fails on them, so a new rewrite template that gives keys away cannot ship unnoticed."""
    by_id = {item.id: item for item in items}
    found: list[Problem] = []
    chance = report.chance
    if report.model_flagged:
        first = by_id[min(by_id)]
        found.append(
            Problem(
                first.location.path,
                1,
                f"learned cue: a classifier reading only the statements' words, endings and length "
                f"answers {report.model:.0%} of them held out ({report.folds}-fold, {report.repeats} "
                f"repeats); chance {chance:.0%}, limit {chance + MARGIN:.0%}. The features that lean "
                f"most: {', '.join(cue.feature for cue in report.judged[:3])}",
            )
        )
    for cue in report.flagged:
        keyed = [by_id[item_id] for item_id in cue.item_ids if by_id[item_id].answer == cue.answer]
        first = keyed[0]
        named = ", ".join(f"{item.id} ({_where(item, base)})" for item in keyed[:4])
        more = f" and {len(keyed) - 4} more" if len(keyed) > 4 else ""
        found.append(
            Problem(
                first.location.path,
                first.location.line,
                f"learned cue: {cue.feature} marks {cue.x_count if cue.answer == 'X' else cue.o_count} "
                f"{cue.answer} statements against {cue.o_count if cue.answer == 'X' else cue.x_count} "
                f"{'O' if cue.answer == 'X' else 'X'}; '{cue.feature} → {cue.answer}' answers "
                f"{cue.held_out:.0%} of them held out (chance {chance:.0%}, limit {chance + MARGIN:.0%}). "
                f"Balance it: rewrite some as plain claims or write {'O' if cue.answer == 'X' else 'X'} "
                f"statements of that form. {cue.answer}: {named}{more}",
            )
        )
    return found


def format_report(report: LearnedCueReport, top: int = 5) -> list[str]:
    """Plain-text lines for `studyapp check`: the model's score and the leaning features."""
    lines = [
        f"learned cues: a classifier on words, endings and length answers {report.model:.0%} of "
        f"{report.statements} statements held out ({report.folds}-fold × {report.repeats}); chance "
        f"{report.chance:.0%} (the more common key), limit {report.chance + MARGIN:.0%}"
    ]
    for cue in report.judged[:top]:
        lines.append(
            f"  {cue.held_out:4.0%}  {cue.feature} → {cue.answer} ({cue.o_count} O / {cue.x_count} X, "
            f"p {cue.p_value:.2g})"
        )
    return lines
