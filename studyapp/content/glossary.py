"""The glossary (content/glossary.yaml): terms with their Korean and English names, a one-sentence
definition, a topic and the terms a learner confuses them with.

It is the material of the "다음 설명에 해당하는 것은?" question kind (studyapp/quiz/kinds/glossary.py):
the definition is the stem, the term and three others are the options. The file is optional (no
file, no glossary). The loader parses it (refusing anchors and control characters like any file)
and hands it to `read_glossary`; the terms land in `Content.glossary`, so the content cache keeps
them, and `studyapp check` reports the problems as `FILE:LINE` with everything else.

Relations (`broader:`, `narrower:`, `not_with:`, other term ids) mark the terms that must never
stand side by side in a question: a genus fits its species' definition (인수 테스트 for 알파
테스트's), and some pairs overlap without being kinds of each other (동기 호출 / 블로킹 호출).
`related_terms` follows broader/narrower chains both ways (소프트웨어 테스트 ⊃ 인수 테스트 ⊃ 알파
테스트), so a question never offers any ancestor or descendant of its key.

What is checked: unknown or missing fields, duplicate ids, two terms with the same name (Korean or
English), a Korean name that already holds its English one (the option would print it twice), an
unknown topic, `confused_with` or a relation naming an unknown id or the term itself,
`confused_with` naming a related term (a second right answer), a broader/narrower cycle, fewer
than three other terms to draw distractors from (a 4-choice question needs three), and a
definition that names its own term (the question would give its answer away).
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
RELATION_FIELDS = ("broader", "narrower", "not_with")
OPTIONAL_FIELDS = ("confused_with", *RELATION_FIELDS)
DISTRACTORS_NEEDED = 3  # a 4-choice question: the term and three others


def _kind_edges(glossary: dict[str, Term]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(up, down): term id → its direct broader kinds, → its direct narrower kinds, whichever
    side wrote the relation. Unknown ids are left out (`studyapp check` reports them)."""
    up: dict[str, set[str]] = {term_id: set() for term_id in glossary}
    down: dict[str, set[str]] = {term_id: set() for term_id in glossary}
    for term in glossary.values():
        for wider in term.broader:
            if wider in glossary and wider != term.id:
                up[term.id].add(wider)
                down[wider].add(term.id)
        for kind in term.narrower:
            if kind in glossary and kind != term.id:
                down[term.id].add(kind)
                up[kind].add(term.id)
    return up, down


def _reach(start: str, edges: dict[str, set[str]]) -> set[str]:
    """Every id reachable from `start` along `edges` (not `start` itself unless on a cycle)."""
    found: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        term_id = todo.pop()
        if term_id not in found:
            found.add(term_id)
            todo.extend(edges.get(term_id, ()))
    return found


def related_terms(glossary: dict[str, Term]) -> dict[str, frozenset[str]]:
    """Term id → the ids that must never share a question with it: every broader and narrower
    kind, along chains (a grand-genus fits a definition as well as the genus), and its `not_with`
    pairs, either side having written them. Linear in the relations; every quiz computes it once."""
    up, down = _kind_edges(glossary)
    apart: dict[str, set[str]] = {term_id: set() for term_id in glossary}
    for term in glossary.values():
        for other in term.not_with:
            if other in glossary and other != term.id:
                apart[term.id].add(other)
                apart[other].add(term.id)
    return {
        term_id: frozenset((_reach(term_id, up) | _reach(term_id, down) | apart[term_id]) - {term_id})
        for term_id in glossary
    }


def distractor_candidates(
    term: Term, glossary: dict[str, Term], related: dict[str, frozenset[str]] | None = None
) -> tuple[list[Term], list[Term]]:
    """Where a question on `term` draws its distractors from, best first: the terms it is confused
    with (any topic), then the other terms of its topic. Never the term itself, never one twice,
    never a broader or narrower kind of it or a `not_with` pair (`related_terms`; pass it when
    asking for many terms, it is computed over the whole glossary)."""
    barred = (related if related is not None else related_terms(glossary)).get(term.id, frozenset())
    confused = [
        glossary[i]
        for i in dict.fromkeys(term.confused_with)
        if i in glossary and i != term.id and i not in barred
    ]
    taken = {term.id} | {other.id for other in confused} | barred
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
    related = related_terms(glossary)

    def others(term: Term) -> int:
        barred = related[term.id]
        elsewhere = {
            i
            for i in term.confused_with
            if i in glossary and glossary[i].topic != term.topic and i not in barred
        }
        barred_here = sum(1 for i in barred if glossary[i].topic == term.topic)
        return per_topic[term.topic] - 1 - barred_here + len(elsewhere)  # same-topic confused count once

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


def _english_repeated(name: str, name_en: str) -> str | None:
    """Why the option label `name (name_en)` would say a thing twice, or None: the Korean name
    holds the English one or a word of it in parentheses (`자기 시간(tottime) (tottime)`), or both
    have a parenthetical and the label nests them (`락(뮤텍스) (lock (mutex))`). A Korean name that
    holds the whole English one (`cProfile`, `profile_memory=True`) prints alone (`Term.label`)."""
    if _name_key(name_en) in _name_key(name):
        return None
    asides = re.findall(r"\(([^()]+)\)", name)
    for aside in asides:
        for word in re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", aside):
            # a prefix is enough: `단언(assert)` beside `assertion` says the same word twice
            if re.search(r"(?<![a-z0-9])" + re.escape(word), name_en, re.IGNORECASE):
                return f"the English word '{word}' twice"
    if asides and re.search(r"\([^()]+\)", name_en):
        return "parentheses inside parentheses"
    return None


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
    link_lines: dict[str, dict[str, int]] = {}  # term id → field → its line, for link problems
    names: dict[str, Term] = {}  # a name, spacing and case ignored → the first term with it
    for index, entry in enumerate(entries):
        read = _read_term(c, entry, entries.line_of(index), path, topics)
        if read is None:
            continue
        term, field_lines = read
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
        link_lines[term.id] = field_lines
    _check_links(c, terms, link_lines)
    return terms


def _read_term(
    c: _Collector, entry: Any, line: int, path: Path, topics: Collection[str] | None
) -> tuple[Term, dict[str, int]] | None:
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
    repeated = _english_repeated(name, name_en) if name and name_en else None
    if repeated is not None:
        c.error(
            data.line_of("term"),
            f"{what}: the option prints '{name} ({name_en})', {repeated}: write the Korean name "
            "without the parenthetical",
        )
    if definition is not None:
        for shown in dict.fromkeys(n for n in (name, name_en) if n):
            if names_itself(shown, definition):
                c.error(
                    data.line_of("definition"),
                    f"{what}: the definition names the term itself ('{shown}'): the question would "
                    "give its answer away",
                )
    confused = _read_id_list(c, data, "confused_with", what, term_id)
    relations = {key: _read_id_list(c, data, key, what, term_id) for key in RELATION_FIELDS}
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
        broader=relations["broader"],
        narrower=relations["narrower"],
        not_with=relations["not_with"],
        location=Location(path, data.line),
    )
    return term, {key: data.line_of(key) for key in ("confused_with", *RELATION_FIELDS)}


def _read_id_list(
    c: _Collector, data: LinedDict, key: str, what: str, term_id: str | None
) -> tuple[str, ...]:
    """A list of other term ids (`confused_with` or a relation): slugs, not the term, none twice."""
    from studyapp.content.yamlfile import LinedList  # as in read_glossary: not on the quiz path

    ids = c.slug_list(data, key, what)
    value = data.get(key)
    seen: list[str] = []
    for index, other in enumerate(ids):
        where = value.line_of(index) if isinstance(value, LinedList) else data.line_of(key)
        if other == term_id:
            why = (
                "it would be its own distractor"
                if key == "confused_with"
                else "a term is not related to itself"
            )
            c.error(where, f"{what}: {key} names the term itself ({why})")
        elif other in seen:
            c.error(where, f"{what}: {key} lists '{other}' twice")
        else:
            seen.append(other)
    return tuple(seen)


_RELATION_WORDS = {"broader": "a broader kind of it", "narrower": "a narrower kind of it"}


def _check_links(c: _Collector, terms: dict[str, Term], link_lines: dict[str, dict[str, int]]) -> None:
    related = related_terms(terms)
    up, down = _kind_edges(terms)
    for term in terms.values():
        what = f"glossary term '{term.id}'"
        lines = link_lines[term.id]
        for key in ("confused_with", *RELATION_FIELDS):
            for other in getattr(term, key):
                if other not in terms:
                    c.error(lines[key], f"{what}: {key} names an unknown term '{other}'")
        if term.id in _reach(term.id, up):
            c.error(
                lines["broader" if term.broader else "narrower"],
                f"{what}: its broader/narrower relations form a cycle (it is a kind of itself)",
            )
        ancestors, descendants = _reach(term.id, up), _reach(term.id, down)
        for other in term.confused_with:
            if other in related[term.id]:
                how = (
                    _RELATION_WORDS["broader"]
                    if other in ancestors
                    else _RELATION_WORDS["narrower"]
                    if other in descendants
                    else "a not_with pair"
                )
                c.error(
                    lines["confused_with"],
                    f"{what}: confused_with names '{other}', {how}: as a distractor it would be a "
                    "second right answer",
                )
        confused, same_topic = distractor_candidates(term, terms, related)
        found = len(confused) + len(same_topic)
        if found < DISTRACTORS_NEEDED:
            c.error(
                term.location.line,
                f"{what}: only {found} other term(s) to draw distractors from (its confused_with and "
                f"topic '{term.topic}'); a 4-choice question needs {DISTRACTORS_NEEDED}",
            )
