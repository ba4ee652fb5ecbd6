"""Question kinds, one module each: O/X, 4지선다, calculation drills (and whatever is added).

A kind module defines a `QuestionKind` subclass and a module-level `KIND` instance; every module
in this package is found at import, so adding a kind is adding one file. The engine, the TUI and
`--plain` ask `kind_of(question)` instead of branching on `question.kind`.
"""

from __future__ import annotations

import random
from typing import Any

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.plugins import defined_in
from studyapp.quiz.kinds.base import ARCHIVED, QuestionKind
from studyapp.quiz.question import Question

_KINDS: dict[str, QuestionKind] = {}


def _discover() -> None:
    for kind in defined_in(__name__, __path__, "KIND", QuestionKind):
        register(kind)


def register(kind: QuestionKind) -> None:
    """Make a kind known (every module of this package is registered at import)."""
    _KINDS[kind.name] = kind
    if kind.strings:
        Translator().register(kind.strings)


def kind_of(question: Question | str) -> QuestionKind:
    """The kind that asks, grades and archives `question` (or the kind of that name)."""
    if not isinstance(question, str) and question.archived:
        return ARCHIVED  # its items left the bank: as the archive row holds it
    name = question if isinstance(question, str) else question.kind
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown question kind '{name}'") from None


def kinds() -> dict[str, QuestionKind]:
    return dict(_KINDS)


def retried_questions(content: Content, questions: list[Question], rng: random.Random) -> list[Question]:
    """A session's misses asked again, each as its kind asks a retried question."""
    shared: dict[str, Any] = {}
    return [kind_of(question).retried(question, content, rng, shared) for question in questions]


def recorded_answer(
    question: Question, review_kind: str, answer: str, content: Content, t: Translator
) -> str:
    """A stored answer in the learner's words, as the kind that recorded it says it (a review of an
    O/X item may come from a 4-choice pick); an unknown kind's answer as stored."""
    recorder = _KINDS.get(review_kind)
    return recorder.recorded_answer(question, answer, content, t) if recorder is not None else answer


_discover()
