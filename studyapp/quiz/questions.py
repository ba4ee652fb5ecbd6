"""What the quiz asks: O/X items from the content, generated calculation drills, 4-choice
questions built from the items (`studyapp.quiz.choice`), and glossary questions, "다음 설명에
해당하는 것은?" with four terms (`studyapp.quiz.glossary`).

All become a `Question`; how each kind is graded, stored and explained is its `QuestionKind`
(`studyapp.quiz.kinds`), so the engine, the TUI and the line mode handle them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from studyapp.content.model import Content
from studyapp.quiz.kinds import kinds

# The question type lives in its own leaf module so that the kinds (which build questions) and
# this module (whose bank asks every kind) import it without a circle; re-exported here for the
# many callers that know it by this module's name.
from studyapp.quiz.question import (
    GLOSSARY_PREFIX,
    GLOSSARY_STEM,
    KIND_CHOICE,
    KIND_DRILL,
    KIND_GLOSSARY,
    KIND_OX,
    OPTION_COUNT,
    Option,
    Question,
    StoredAnswer,
    drill_index,
    glossary_item_id,
    parse_pick,
    question_from_drill,
    question_from_item,
    question_from_term,
)

__all__ = [
    "EVERY_KIND",
    "GLOSSARY_PREFIX",
    "GLOSSARY_STEM",
    "KIND_CHOICE",
    "KIND_DRILL",
    "KIND_GLOSSARY",
    "KIND_OX",
    "OPTION_COUNT",
    "Option",
    "Question",
    "StoredAnswer",
    "all_questions",
    "drill_index",
    "glossary_item_id",
    "parse_pick",
    "question_from_drill",
    "question_from_item",
    "question_from_term",
    "record_credits",
]

if TYPE_CHECKING:
    from studyapp.progress.scheduler import ItemSchedule
    from studyapp.progress.store import ProgressStore

EVERY_KIND = "*"  # `all_questions(asked=...)`: the on-request kinds too (a `wrong` session, the notebook)


def all_questions(
    content: Content, include_drills: bool = True, include_glossary: bool = True, asked: str | None = None
) -> dict[str, Question]:
    """Every question the bank holds, by id: what each registered kind draws from the content
    (`QuestionKind.source`: O/X items, glossary terms, drills, and any kind added since). A kind
    that is `on_request` (trace reading) joins only when `asked` names it, or is EVERY_KIND."""
    left_out = {KIND_DRILL} if not include_drills else set()
    if not include_glossary:
        left_out.add(KIND_GLOSSARY)
    questions: dict[str, Question] = {}
    for kind in kinds().values():
        if kind.name not in left_out and (not kind.on_request or asked in (kind.name, EVERY_KIND)):
            questions.update((question.id, question) for question in kind.source(content))
    return questions


def record_credits(
    store: ProgressStore, credits: Iterable[StoredAnswer], kind: str, **review: Any
) -> tuple[list[ItemSchedule], str | None]:
    """Write one review per credit under `kind` (a quiz session's answer and the mock exam's),
    so the notebook, stats and readiness read them like any other review. Returns the new schedules and, when a write failed, its one-line reason
    (those reviews are kept and retried by the store). The caller checkpoints once."""
    schedules = []
    problem: str | None = None
    for credit in credits:
        saved = store.save_answer(
            store.new_review(
                credit.item_id,
                answer=credit.answer,
                correct=credit.correct,
                unsure=credit.unsure,
                kind=kind,
                text_hash=credit.text_hash,
                **review,
            ),
            checkpoint=False,
        )
        schedules.append(saved.schedule)
        problem = problem or saved.problem
    return schedules, problem
