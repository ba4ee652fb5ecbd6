"""The glossary (content/glossary.yaml): terms with their Korean and English names, a one-sentence
definition, a topic and the terms a learner confuses them with.

It is the material of the "다음 설명에 해당하는 것은?" question kind (studyapp/quiz/kinds/glossary.py):
the definition is the stem, the term and three others are the options. The file is optional (no
file, no glossary). The loader parses it (refusing anchors and control characters like any file)
and hands it to `read_glossary`; the terms land in `Content.glossary`, so the content cache keeps
them, and `studyapp check` reports the problems as `FILE:LINE` with everything else.

What is checked: unknown or missing fields, duplicate ids, two terms with the same name (Korean or
English), an unknown topic, `confused_with` naming an unknown id or the term itself, fewer than
three other terms to draw distractors from (a 4-choice question needs three), and a definition
that names its own term (the question would give its answer away).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studyapp.content.model import Location, Term

if TYPE_CHECKING:  # the loader calls this module with its collector; no import circle at run time
    from studyapp.content.loader import _Collector
    from studyapp.content.yamlfile import LinedDict

GLOSSARY_FILE = "glossary.yaml"
REQUIRED_FIELDS = ("id", "term", "term_en", "topic", "definition")
OPTIONAL_FIELDS = ("confused_with",)
DISTRACTORS_NEEDED = 3  # a 4-choice question: the term and three others


def distractor_candidates(term: Term, glossary: dict[str, Term]) -> tuple[list[Term], list[Term]]:
    """Where a question on `term` draws its distractors from, best first: the terms it is confused
    with (any topic), then the other terms of its topic. Never the term itself, never one twice."""
    confused = [glossary[i] for i in dict.fromkeys(term.confused_with) if i in glossary and i != term.id]
    taken = {term.id} | {other.id for other in confused}
    same_topic = [
        other
        for other in sorted(glossary.values(), key=lambda t: t.id)
        if other.topic == term.topic and other.id not in taken
    ]
    return confused, same_topic


def askable_terms(glossary: dict[str, Term]) -> list[Term]:
    """The terms with enough others to stand beside them in a question (as many as
    `distractor_candidates` finds), counted in one pass: every quiz asks this of the whole
    glossary before its first question, and listing each term's candidates is quadratic."""
    per_topic = Counter(term.topic for term in glossary.values())

    def others(term: Term) -> int:
        elsewhere = {i for i in term.confused_with if i in glossary and glossary[i].topic != term.topic}
        return per_topic[term.topic] - 1 + len(elsewhere)  # same-topic confused terms count once

    return [term for term in glossary.values() if others(term) >= DISTRACTORS_NEEDED]


@functools.lru_cache(maxsize=4096)  # `check` tests every term against every definition: ~1 ms a compile
def _name_pattern(name: str) -> re.Pattern[str]:
    """`name` anywhere in a text, spacing and case ignored; an English name only as whole words
    (`mock` is not found in `mocking`), a Korean one also before a particle (`테스트 스텁은`)."""
    words = [re.escape(word) for word in name.split()]
    pattern = r"[\s\-]*".join(words)
    if name[:1].isascii() and name[:1].isalnum():
        pattern = r"(?<![a-z0-9])" + pattern
    if name[-1:].isascii() and name[-1:].isalnum():
        pattern += r"(?![a-z0-9])"
    return re.compile(pattern, re.IGNORECASE)


def names_itself(term_name: str, definition: str) -> bool:
    return bool(_name_pattern(term_name).search(definition))


def _name_key(name: str) -> str:
    return "".join(name.split()).casefold()


def read_glossary(
    c: _Collector, data: Any, path: Path, topics: Collection[str] | None = None
) -> dict[str, Term]:
    """The terms of a parsed glossary file (the loader parses it and checks its text), every
    problem reported to `c`. `topics`: the known topic ids (None: not known, not checked)."""
    # PyYAML's file types only here: the quiz path imports this module for `askable_terms` and must
    # not load the YAML parser (tests/test_import_hygiene.py)
    from studyapp.content.yamlfile import LinedList

    c.where = path
    file_data = c.mapping(data, 1, "glossary file")
    if file_data is None:
        return {}
    c.fields(file_data, "glossary file", ["terms"], [])
    entries = file_data.get("terms")
    if not isinstance(entries, LinedList) or not entries:
        if "terms" in file_data:
            c.error(file_data.line_of("terms"), "glossary file: 'terms' must be a non-empty list")
        return {}
    terms: dict[str, Term] = {}
    link_lines: dict[str, int] = {}  # term id → the line of its confused_with, for link problems
    names: dict[str, Term] = {}  # a name, spacing and case ignored → the first term with it
    for index, entry in enumerate(entries):
        read = _read_term(c, entry, entries.line_of(index), path, topics)
        if read is None:
            continue
        term, link_line = read
        if term.id in terms:
            first = terms[term.id].location
            c.error(term.location.line, f"duplicate glossary term id '{term.id}' (first defined at {first})")
            continue
        for name in dict.fromkeys((term.term, term.term_en)):
            owner = names.setdefault(_name_key(name), term)
            if owner is not term:
                c.error(
                    term.location.line,
                    f"glossary term '{term.id}': the name '{name}' is already the term "
                    f"'{owner.id}' (first defined at {owner.location})",
                )
        terms[term.id] = term
        link_lines[term.id] = link_line
    _check_links(c, terms, link_lines)
    return terms


def _read_term(
    c: _Collector, entry: Any, line: int, path: Path, topics: Collection[str] | None
) -> tuple[Term, int] | None:
    data = c.mapping(entry, line, "glossary term")
    if data is None:
        return None
    before = len(c.problems)
    c.fields(data, "glossary term", REQUIRED_FIELDS, OPTIONAL_FIELDS)
    term_id = c.slug(data, "id", "glossary term")
    what = f"glossary term '{term_id or '?'}'"
    name = c.text(data, "term", what)
    name_en = c.text(data, "term_en", what)
    topic = c.slug(data, "topic", what)
    definition = c.text(data, "definition", what)
    if topic is not None and topics is not None and topic not in topics:
        c.error(
            data.line_of("topic"), f"{what}: unknown topic '{topic}' (topics: {', '.join(sorted(topics))})"
        )
    if definition is not None:
        for shown in dict.fromkeys(n for n in (name, name_en) if n):
            if names_itself(shown, definition):
                c.error(
                    data.line_of("definition"),
                    f"{what}: the definition names the term itself ('{shown}'): the question would "
                    "give its answer away",
                )
    confused = _read_confused_with(c, data, what, term_id)
    if len(c.problems) > before or None in (term_id, name, name_en, topic, definition):
        return None
    assert term_id and name and name_en and topic and definition
    term = Term(
        id=term_id,
        term=name,
        term_en=name_en,
        topic=topic,
        definition=definition,
        confused_with=confused,
        location=Location(path, data.line),
    )
    return term, data.line_of("confused_with")


def _read_confused_with(c: _Collector, data: LinedDict, what: str, term_id: str | None) -> tuple[str, ...]:
    from studyapp.content.yamlfile import LinedList  # as in read_glossary: not on the quiz path

    ids = c.slug_list(data, "confused_with", what)
    value = data.get("confused_with")
    seen: list[str] = []
    for index, other in enumerate(ids):
        where = value.line_of(index) if isinstance(value, LinedList) else data.line_of("confused_with")
        if other == term_id:
            c.error(where, f"{what}: confused_with names the term itself (it would be its own distractor)")
        elif other in seen:
            c.error(where, f"{what}: confused_with lists '{other}' twice")
        else:
            seen.append(other)
    return tuple(seen)


def _check_links(c: _Collector, terms: dict[str, Term], link_lines: dict[str, int]) -> None:
    for term in terms.values():
        what = f"glossary term '{term.id}'"
        for other in term.confused_with:
            if other not in terms:
                c.error(link_lines[term.id], f"{what}: confused_with names an unknown term '{other}'")
        confused, same_topic = distractor_candidates(term, terms)
        found = len(confused) + len(same_topic)
        if found < DISTRACTORS_NEEDED:
            c.error(
                term.location.line,
                f"{what}: only {found} other term(s) to draw distractors from (its confused_with and "
                f"topic '{term.topic}'); a 4-choice question needs {DISTRACTORS_NEEDED}",
            )
