"""The one pass rule of the mock exam, for its verdict and for the prediction alike.

An exam is passed when the total reaches the pass mark **and** every topic reaches the per-topic
cutoff (과락), when one is set. Both are shares; a share is reached by as many questions right as
`questions_needed` says (the smallest count whose share is at least it, with a little slack for
floating point: 18 of 30 reaches 60 %). `verdict` says which rule decided, so the result screen
and the prediction can name it ("pass mark" or "과락 in topic X"). A pure module at the quiz
floor: the exam (quiz) and the prediction (report) both import it. No Textual, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

RULE_PASS_MARK = "pass_mark"
RULE_CUTOFF = "cutoff"


def questions_needed(questions: int, share: float) -> int:
    """Questions right that reach `share` of `questions` (18 of 30 for 60 %; 0 of 0)."""
    return max(0, math.ceil(share * questions - 1e-9))


class Verdict(NamedTuple):
    passed: bool
    rule: str  # RULE_PASS_MARK or RULE_CUTOFF: the rule that decided
    topic: str | None = None  # with RULE_CUTOFF: the topic below its cutoff


def verdict(
    topic_scores: Mapping[str, tuple[int, int]], pass_mark: float, cutoff: float | None = None
) -> Verdict:
    """Pass or fail an exam from its (right, questions) per topic.

    A topic under the cutoff fails the exam whatever the total (과락): the verdict names it (the
    topic with the lowest share; by name on a tie). Otherwise the total decides against the pass
    mark. An exam with no questions is not passed.

    >>> verdict({"A": (9, 10), "B": (2, 10)}, 0.6, 0.4)
    Verdict(passed=False, rule='cutoff', topic='B')
    >>> verdict({"A": (9, 10), "B": (4, 10)}, 0.6, 0.4)
    Verdict(passed=True, rule='pass_mark', topic=None)
    """
    if cutoff is not None:
        short = [
            (right / questions, topic)
            for topic, (right, questions) in topic_scores.items()
            if questions and right < questions_needed(questions, cutoff)
        ]
        if short:
            return Verdict(False, RULE_CUTOFF, min(short)[1])
    right = sum(r for r, _ in topic_scores.values())
    questions = sum(q for _, q in topic_scores.values())
    return Verdict(questions > 0 and right >= questions_needed(questions, pass_mark), RULE_PASS_MARK)
