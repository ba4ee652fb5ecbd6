"""The typed content model: topics (concept cards), O/X items, the exam checklist and the
glossary (terms with their definitions, for "다음 설명에 해당하는 것은?" questions).

Everything here is plain data built by `studyapp.content.loader`; nothing imports a UI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SECTION_KINDS = ("definition", "features", "when_to_use", "exam_traps", "patterns", "deep_dive")
# The five seed sections every card has, by fixed id.
REQUIRED_SECTIONS = {
    "definition": "definition",
    "features": "features",
    "when-to-use": "when_to_use",
    "exam-traps": "exam_traps",
    "patterns": "patterns",
}
ANSWERS = ("O", "X")


@dataclass(frozen=True)
class Location:
    """Where a piece of content was defined, for `FILE:LINE` messages."""

    path: Path
    line: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Bullet:
    text: str
    note: str | None = None  # the current fact, when the seed line is outdated
    line: int = 1


@dataclass(frozen=True)
class Example:
    """A seed 패턴 보기 example: an O or X statement."""

    answer: str
    text: str
    line: int = 1


@dataclass(frozen=True)
class Section:
    id: str
    kind: str
    title: str
    bullets: tuple[Bullet, ...] = ()
    alt_bullets: tuple[Bullet, ...] = ()  # the other seed note's wording
    examples: tuple[Example, ...] = ()
    alt_examples: tuple[Example, ...] = ()
    group: str | None = None  # the seed heading of a deep-dive (추가 학습 내용 / 학습 정리)
    intro: str | None = None
    notes: tuple[str, ...] = ()
    line: int = 1

    def source_refs(self) -> dict[str, int]:
        """Every seed line of this section as a source ref (`features#2`, `patterns#alt1`) → line."""
        refs: dict[str, int] = {}
        main, alt = (
            (self.examples, self.alt_examples)
            if self.kind == "patterns"
            else (
                self.bullets,
                self.alt_bullets,
            )
        )
        for number, entry in enumerate(main, start=1):
            refs[f"{self.id}#{number}"] = entry.line
        for number, entry in enumerate(alt, start=1):
            refs[f"{self.id}#alt{number}"] = entry.line
        return refs


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    title_en: str
    order: int
    parent: str | None
    labs: tuple[str, ...]
    sections: tuple[Section, ...]
    location: Location
    id_prefix: str | None = None  # every item id of the topic starts with it (`pa-`), when given

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)


@dataclass(frozen=True)
class Item:
    """One O/X statement with its answer and explanation."""

    id: str
    topic: str
    statement: str
    answer: str  # "O" or "X"
    explanation: str
    section: str
    sources: tuple[str, ...] = ()
    pattern: bool = False
    misconception: str | None = None
    checklist: tuple[str, ...] = ()
    # What the seed-built exam expects when it differs from today's fact, shown with the explanation.
    exam_note: str | None = None
    # Items that intentionally mirror this one (an O/X pair on one fact): never shown together in a
    # 4-choice question, and exempt from the near-duplicate check against each other.
    siblings: tuple[str, ...] = ()
    location: Location = field(default_factory=lambda: Location(Path("?")))


@dataclass(frozen=True)
class ChecklistEntry:
    id: str
    number: int
    text: str
    topics: tuple[str, ...]
    labs: tuple[str, ...]
    items: tuple[str, ...]  # explicit links and items that tag this entry, merged
    location: Location


@dataclass(frozen=True)
class Term:
    """A glossary entry (content/glossary.yaml): a term, its English name, a one-sentence
    definition, its topic and the terms a learner confuses it with (the first distractors)."""

    id: str
    term: str  # Korean, as the exam writes it
    term_en: str
    topic: str
    definition: str
    confused_with: tuple[str, ...] = ()  # other term ids
    # Kinds of one another: never side by side in a question, where the genus would be a second
    # right answer (인수 테스트 for 알파 테스트's definition). Other term ids; either side may say it.
    broader: tuple[str, ...] = ()  # the kinds this term is one of (alpha-test → acceptance-test)
    narrower: tuple[str, ...] = ()  # the kinds of this term (k-fold-cv → loocv)
    not_with: tuple[str, ...] = ()  # terms whose definitions overlap this one's on no genus line
    location: Location = field(default_factory=lambda: Location(Path("?")))

    @property
    def label(self) -> str:
        """`테스트 스텁 (test stub)`; the name alone when it already holds the English one
        (`cProfile`; never `자기 시간(tottime) (tottime)`, which `studyapp check` refuses anyway)."""
        if "".join(self.term_en.split()).casefold() in "".join(self.term.split()).casefold():
            return self.term
        return f"{self.term} ({self.term_en})"


@dataclass
class Content:
    root: Path
    topics: dict[str, Topic]
    items: dict[str, Item]
    checklist: list[ChecklistEntry]
    checklist_title: str
    misconceptions: dict[str, str]
    glossary: dict[str, Term] = field(default_factory=dict)  # id → term; empty without glossary.yaml

    def ordered_topics(self) -> list[Topic]:
        return sorted(self.topics.values(), key=lambda t: (t.order, t.id))

    def items_for_topic(self, topic_id: str) -> list[Item]:
        return [item for item in self.items.values() if item.topic == topic_id]

    def checklist_entry(self, entry_id: str) -> ChecklistEntry | None:
        return next((c for c in self.checklist if c.id == entry_id), None)

    def items_for_checklist(self, entry_id: str) -> list[Item]:
        entry = self.checklist_entry(entry_id)
        return [self.items[i] for i in entry.items if i in self.items] if entry else []

    def labs_for_item(self, item: Item) -> tuple[str, ...]:
        """Labs that teach an item: its checklist entries' labs first, then its topic's."""
        labs: list[str] = []
        for entry_id in item.checklist:
            entry = self.checklist_entry(entry_id)
            labs += entry.labs if entry else ()
        topic = self.topics.get(item.topic)
        labs += topic.labs if topic else ()
        return tuple(dict.fromkeys(labs))
