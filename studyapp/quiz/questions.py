"""What the quiz asks: O/X items from the content, generated calculation drills, 4-choice
questions built from the items (`studyapp.quiz.choice`), and glossary questions, "다음 설명에
해당하는 것은?" with four terms (`studyapp.quiz.glossary`).

All become a `Question`; how each kind is graded, stored and explained is its `QuestionKind`
(`studyapp.quiz.kinds`), so the engine, the TUI and the line mode handle them the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from studyapp.content.model import Content, Item, Term
from studyapp.quiz import drills
from studyapp.quiz.drills import Drill

if TYPE_CHECKING:
    from studyapp.progress.scheduler import ItemSchedule
    from studyapp.progress.store import ProgressStore
    from studyapp.quiz.choice import ChoiceQuestion
    from studyapp.quiz.glossary import GlossaryQuestion

KIND_OX = "ox"
KIND_DRILL = "drill"
KIND_CHOICE = "choice"  # 4지선다; graded per option item by studyapp.quiz.choice
KIND_GLOSSARY = "glossary"  # a definition, four terms (studyapp.quiz.glossary)
GLOSSARY_PREFIX = "gl-"  # a glossary term's item id: progress is keyed by `gl-<term id>`
GLOSSARY_STEM = "다음 설명에 해당하는 것은?"
OPTION_COUNT = 4  # options of a 4-choice question
EVERY_KIND = "*"  # `all_questions(asked=...)`: the on-request kinds too (a `wrong` session, the notebook)


@dataclass(frozen=True)
class Question:
    id: str
    kind: str  # "ox", "drill", "choice" or "glossary"
    topic: str
    prompt: str
    answer: str  # "O"/"X", the number as text for drills, the key's option number (1-4)
    explanation: str
    section: str | None = None
    misconception: str | None = None
    checklist: tuple[str, ...] = ()
    tolerance: float = 0.0
    unit: str = ""
    choice: ChoiceQuestion | None = field(default=None, compare=False)  # set for KIND_CHOICE
    # KIND_GLOSSARY once its options are drawn (`QuestionKind.prepare`, via QuizSession.prepare).
    glossary: GlossaryQuestion | None = field(default=None, compare=False)

    @property
    def text_hash(self) -> str:
        """Changes when the statement or answer changes, so an edited item is shown again once."""
        import hashlib  # on first use: its OpenSSL start (~4 ms) is kept off the way to the first question

        return hashlib.sha1(f"{self.prompt}\n{self.answer}".encode()).hexdigest()[:12]


def parse_pick(response: str, option_count: int = OPTION_COUNT) -> int | None:
    """`"3"` → 2 (0-based); `""` or `"?"` → None (no pick). ValueError for anything else."""
    text = response.strip().replace("?", "").strip()
    if not text:
        return None
    if text.isascii() and text.isdigit() and 1 <= int(text) <= option_count:
        return int(text) - 1
    raise ValueError(f"not an option number 1..{option_count}: {response!r}")


@lru_cache(maxsize=1)
def drill_index() -> dict[str, Drill]:
    """Every generated drill by id (built once: the drills are a pure function of the code)."""
    return {drill.id: drill for drill in drills.all_drills()}


def question_from_item(item: Item) -> Question:
    return Question(
        id=item.id,
        kind=KIND_OX,
        topic=item.topic,
        prompt=item.statement,
        answer=item.answer,
        explanation=item.explanation,
        section=item.section,
        misconception=item.misconception,
        checklist=item.checklist,
    )


def glossary_item_id(term_id: str) -> str:
    return f"{GLOSSARY_PREFIX}{term_id}"


def question_from_term(term: Term) -> Question:
    """A glossary term as the bank holds it: the definition under the stem, the term as the answer
    (the key's option number once its options are drawn, when a session asks it: studyapp.quiz.glossary)."""
    return Question(
        id=glossary_item_id(term.id),
        kind=KIND_GLOSSARY,
        topic=term.topic,
        prompt=f"{GLOSSARY_STEM}\n{term.definition}",
        answer=term.label,
        explanation=f"{term.label}: {term.definition}",
    )


def question_from_drill(drill: Drill) -> Question:
    return Question(
        id=drill.id,
        kind=KIND_DRILL,
        topic=drill.topic,
        prompt=drill.prompt,
        answer=repr(drill.answer),
        explanation=drill.explanation,
        checklist=tuple(drill.checklist),
        tolerance=drill.tolerance,
        unit=drill.unit,
    )


def all_questions(
    content: Content, include_drills: bool = True, include_glossary: bool = True, asked: str | None = None
) -> dict[str, Question]:
    """Every question the bank holds, by id: what each registered kind draws from the content
    (`QuestionKind.source`: O/X items, glossary terms, drills, and any kind added since). A kind
    that is `on_request` (trace reading) joins only when `asked` names it, or is EVERY_KIND."""
    # The kinds import this module, so the registry is looked up at call time by name (an import
    # statement here would make a circle of modules, tests/test_architecture.py)
    kinds = importlib.import_module("studyapp.quiz.kinds").kinds

    left_out = {KIND_DRILL} if not include_drills else set()
    if not include_glossary:
        left_out.add(KIND_GLOSSARY)
    questions: dict[str, Question] = {}
    for kind in kinds().values():
        if kind.name not in left_out and (not kind.on_request or asked in (kind.name, EVERY_KIND)):
            questions.update((question.id, question) for question in kind.source(content))
    return questions


class StoredAnswer(Protocol):
    """One review row a multiple-option answer credits (`choice.StoredCredit`, `glossary.TermCredit`)."""

    item_id: str
    answer: str
    correct: bool
    unsure: bool
    text_hash: str


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
