"""The one question type every kind builds, asks and archives (`Question`), and the small records
that go with it. A leaf of the quiz package: it imports no kind, so `quiz.kinds` and
`quiz.questions` (the bank, which asks every kind) can both import it without a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from studyapp.content.model import Item, Term
from studyapp.quiz import drills
from studyapp.quiz.drills import Drill

if TYPE_CHECKING:
    from studyapp.quiz.choice import ChoiceQuestion
    from studyapp.quiz.glossary import GlossaryQuestion

KIND_OX = "ox"
KIND_DRILL = "drill"
KIND_CHOICE = "choice"  # 4지선다; graded per option item by studyapp.quiz.choice
KIND_GLOSSARY = "glossary"  # a definition, four terms (studyapp.quiz.glossary)
GLOSSARY_PREFIX = "gl-"  # a glossary term's item id: progress is keyed by `gl-<term id>`
GLOSSARY_STEM = "다음 설명에 해당하는 것은?"
OPTION_COUNT = 4  # options of a 4-choice question


class Option(NamedTuple):
    """One option of a question that has them, as shown, explained and archived."""

    item_id: str  # the item (or `gl-<term id>`) this option stands for
    text: str  # as printed after its number
    explanation: str  # why it is (not) the answer; "" for an archived option whose item is gone
    true_statement: bool  # the statement is true (4-choice), or the term is the one defined


@dataclass(frozen=True)
class Question:
    id: str
    kind: str  # the name of the `QuestionKind` that asks and grades it (studyapp.quiz.kinds)
    topic: str
    prompt: str
    answer: str  # as the kind reads it: "O"/"X", a number as text, the key's option number (1-4)
    explanation: str
    section: str | None = None
    misconception: str | None = None
    checklist: tuple[str, ...] = ()
    tolerance: float = 0.0
    unit: str = ""
    # The options in the order asked, for a kind that has them; the mock exam, its archive, the
    # notebook and the prediction read them without knowing the kind.
    options: tuple[Option, ...] = ()
    # An archived exam question whose items left the bank: shown and graded as the row holds it
    # (`kinds.kind_of` answers for it), never rebuilt by its kind.
    archived: bool = False
    choice: ChoiceQuestion | None = field(default=None, compare=False)  # a 4-choice question's draw
    # A glossary question's draw, once its options are drawn (`QuestionKind.prepare`).
    glossary: GlossaryQuestion | None = field(default=None, compare=False)

    @property
    def stem(self) -> str:
        """The question as printed above its options (the mock exam's word for the prompt)."""
        return self.prompt

    @property
    def item_ids(self) -> tuple[str, ...]:
        """The items an answer is evidence about: each option's, else the question's own."""
        return tuple(option.item_id for option in self.options) or ((self.id,) if self.id else ())

    @property
    def source(self) -> Any:
        """What the kind drew the question from (a ChoiceQuestion, a GlossaryQuestion), if anything."""
        return self.choice if self.choice is not None else self.glossary

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


class StoredAnswer(Protocol):
    """One review row a multiple-option answer credits (`choice.StoredCredit`, `glossary.TermCredit`)."""

    item_id: str
    answer: str
    correct: bool
    unsure: bool
    text_hash: str


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
