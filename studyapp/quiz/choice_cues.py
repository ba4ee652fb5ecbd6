"""The cue-only solver (`studyapp.content.cues`) run over generated 4-choice questions.

The solver lives with the content (it reads only text); the generator lives here, a floor above.
This module joins them for `studyapp check`, `tests/test_cues.py` and `benchmarks/cue_solver.py`:
for every topic, a batch of questions from that topic's items alone (as `studyapp quiz --kind
choice --topic T` builds them) for each of several seeds, scored together.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from studyapp.content.cues import ChoiceCase, ChoiceCueScore, choice_cue_score
from studyapp.content.model import Content
from studyapp.content.similarity import SimilarityIndex
from studyapp.quiz.choice import ChoiceBuilder, choice_case, generate_choice_questions, topic_titles

DEFAULT_SEEDS = tuple(range(5))


def topic_cases(
    content: Content,
    topic: str,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    builder: ChoiceBuilder | None = None,
) -> list[ChoiceCase]:
    """Every question a batch per seed builds from `topic`'s own items (as many as it can)."""
    builder = builder or ChoiceBuilder(content.items.values(), titles=topic_titles(content))
    items = content.items_for_topic(topic)
    cases: list[ChoiceCase] = []
    for seed in seeds:
        questions = generate_choice_questions(items, len(items), random.Random(seed), builder=builder)
        cases += [choice_case(question) for question in questions]
    return cases


def choice_scores(
    content: Content, seeds: Iterable[int] = DEFAULT_SEEDS, index: SimilarityIndex | None = None
) -> dict[str, ChoiceCueScore]:
    """The 4-choice solver's figures per topic (topics with items only). `index`: the bank's
    similarity index when the caller has one (`studyapp check` does)."""
    seeds = tuple(seeds)
    builder = ChoiceBuilder(content.items.values(), index=index, titles=topic_titles(content))
    return {
        topic.id: choice_cue_score(topic_cases(content, topic.id, seeds, builder))
        for topic in content.ordered_topics()
        if content.items_for_topic(topic.id)
    }
