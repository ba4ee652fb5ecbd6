"""Whether an exam score passes, and which rule decided: the pass mark over the whole exam, or a
per-topic cutoff (과락: one topic below its share fails the exam whatever the total).

Pure: the mock exam's result, its line mode and the TUI result screen all ask `verdict`, so they
never disagree on a pass. A share is reached at `share − 1e-9` (60 % of 5 is 3 right, not 3.0000001).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

RULE_PASS_MARK = "pass_mark"
RULE_TOPIC_CUTOFF = "topic_cutoff"
_SLACK = 1e-9  # a share computed as right/total must not miss the mark by a rounding error


class Verdict(NamedTuple):
    passed: bool
    rule: str  # RULE_PASS_MARK or RULE_TOPIC_CUTOFF: the rule that decided
    share: float  # the whole exam's share right
    pass_mark: float
    topic: str | None = None  # with RULE_TOPIC_CUTOFF: the weakest topic under the cutoff
    topic_share: float | None = None
    cutoff: float | None = None


def questions_needed(questions: int, share: float) -> int:
    """Questions right that reach `share` of `questions` (18 of 30 for 60 %; 0 of 0): the count
    the prediction sums its outcome distribution from, by the same slack as `reaches`."""
    return max(0, math.ceil(share * questions - _SLACK))


def reaches(right: int, total: int, share: float) -> bool:
    return total > 0 and right / total >= share - _SLACK


def verdict(
    right: int,
    total: int,
    per_topic: Mapping[str, tuple[int, int]],
    pass_mark: float,
    topic_cutoff: float | None = None,
) -> Verdict:
    """Fail on 과락 first (the exam's own order: a topic below the cutoff fails even a high total),
    naming the weakest such topic (ties: the first in `per_topic`'s order); else the pass mark."""
    share = right / total if total else 0.0
    if topic_cutoff is not None:
        under = [
            (got / count, topic)
            for topic, (got, count) in per_topic.items()
            if count > 0 and not reaches(got, count, topic_cutoff)
        ]
        if under:
            topic_share, topic = min(under, key=lambda pair: pair[0])
            return Verdict(False, RULE_TOPIC_CUTOFF, share, pass_mark, topic, topic_share, topic_cutoff)
    return Verdict(reaches(right, total, pass_mark), RULE_PASS_MARK, share, pass_mark, cutoff=topic_cutoff)
