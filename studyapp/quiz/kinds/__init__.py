"""Question kinds, one module each: O/X, 4지선다, calculation drills (and whatever is added).

A kind module defines a `QuestionKind` subclass and a module-level `KIND` instance; every module
in this package is found at import, so adding a kind is adding one file. The engine, the TUI and
`--plain` ask `kind_of(question)` instead of branching on `question.kind`.
"""

from __future__ import annotations

from studyapp.i18n import Translator
from studyapp.plugins import defined_in
from studyapp.quiz.kinds.base import QuestionKind
from studyapp.quiz.questions import Question

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
    name = question if isinstance(question, str) else question.kind
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown question kind '{name}'") from None


def kinds() -> dict[str, QuestionKind]:
    return dict(_KINDS)


_discover()
