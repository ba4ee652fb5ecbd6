"""Load and check the content directory.

`check_content` reads every file, collects *all* problems (never stopping at the first) and
returns them with a model when the content is usable. `load_content` is what commands use: it
returns the model or raises `ContentError`, which the CLI prints one problem per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from studyapp.content.glossary import GLOSSARY_FILE, read_glossary
from studyapp.content.model import (
    ANSWERS,
    REQUIRED_SECTIONS,
    SECTION_KINDS,
    Bullet,
    ChecklistEntry,
    Content,
    Example,
    Item,
    Location,
    Section,
    Term,
    Topic,
)
from studyapp.content.problems import ContentError, Problem
from studyapp.content.yamlfile import FileProblem, LinedDict, LinedList, read_yaml
from studyapp.safetext import first_control_char

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MIN_ITEMS_PER_TOPIC = 20
O_SHARE_RANGE = (0.40, 0.60)
ID_PREFIX = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*-$")  # a slug and a dash: `pa-`, `gpu-mem-`
SOURCE_REF = re.compile(r"^(?P<section>[a-z0-9-]+)#(?P<alt>alt)?(?P<number>[1-9][0-9]*)$")


class _Collector:
    """Accumulates problems while reading; `where` is the file currently read."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.where = Path("?")

    def error(self, line: int, message: str, path: Path | None = None) -> None:
        self.problems.append(Problem(path or self.where, line, message))

    def warn(self, line: int, message: str, path: Path | None = None) -> None:
        self.problems.append(Problem(path or self.where, line, message, warning=True))

    # -- typed field access -------------------------------------------------------------
    def mapping(self, value: Any, line: int, what: str) -> LinedDict | None:
        if isinstance(value, LinedDict):
            for key, key_line in value.duplicate_keys:
                self.error(key_line, f"duplicate key '{key}' in {what}")
            return value
        self.error(line, f"{what} must be a mapping, got {_type_name(value)}")
        return None

    def fields(self, data: LinedDict, what: str, required: Iterable[str], optional: Iterable[str]) -> None:
        required = tuple(required)
        allowed = set(required) | set(optional)
        for key in required:
            if key not in data:
                self.error(data.line, f"{what}: missing required field '{key}'")
        for key in data:
            if key not in allowed:
                self.error(data.line_of(key), f"{what}: unknown field '{key}'")

    def text(self, data: LinedDict, key: str, what: str, required: bool = True) -> str | None:
        if key not in data or data[key] is None:
            return None
        value = data[key]
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, str):
            self.error(data.line_of(key), f"{what}: '{key}' is empty")
        else:
            self.error(data.line_of(key), f"{what}: '{key}' must be text, got {_type_name(value)}")
        return None

    def slug(self, data: LinedDict, key: str, what: str) -> str | None:
        value = self.text(data, key, what)
        if value is not None and not SLUG.match(value):
            self.error(
                data.line_of(key),
                f"{what}: '{key}' must be a lowercase slug like 'my-id', got {_shown(value)}",
            )
            return None
        return value

    def slug_list(self, data: LinedDict, key: str, what: str) -> tuple[str, ...]:
        if key not in data or data[key] is None:
            return ()
        value = data[key]
        if not isinstance(value, LinedList):
            self.error(data.line_of(key), f"{what}: '{key}' must be a list, got {_type_name(value)}")
            return ()
        result = []
        for index, entry in enumerate(value):
            if isinstance(entry, str) and SLUG.match(entry):
                result.append(entry)
            else:
                self.error(
                    value.line_of(index), f"{what}: '{key}' entries must be slugs, got {_shown(entry)}"
                )
        return tuple(result)


def _check_control_chars(c: _Collector, data: Any) -> None:
    """Report every key or text in a file that holds a terminal control character (ESC, BEL, NUL…).

    Content is printed as-is by the quiz; an escape sequence in an explanation would retitle the
    window or recolour the session. A document read again unchanged (read_yaml's reuse) keeps what
    the walk found, so the walk runs once per text.
    """
    findings = getattr(data, "control_findings", None)
    if findings is None:
        findings = _control_findings(data)
        if isinstance(data, (LinedDict, LinedList)):
            data.control_findings = findings
    for line, found in findings:
        c.error(
            line,
            f"text holds the control character U+{ord(found):04X}: remove it (only newline and tab are allowed)",
        )


def _control_findings(data: Any) -> list[tuple[int, str]]:
    """(line, character) of every key or text holding a control character. Walked with a stack: a
    deeply nested file cannot overflow it."""
    findings: list[tuple[int, str]] = []
    stack: list[tuple[Any, int]] = [(data, getattr(data, "line", 1))]
    while stack:
        value, line = stack.pop()
        if isinstance(value, str):
            found = first_control_char(value)
            if found is not None:
                findings.append((line, found))
        elif isinstance(value, LinedDict):
            for key, child in value.items():
                stack.append((key, value.line_of(key)))
                stack.append((child, value.line_of(key)))
        elif isinstance(value, LinedList):
            stack.extend((child, value.line_of(index)) for index, child in enumerate(value))
    return findings


def _shown(value: Any, limit: int = 60) -> str:
    """A short quote of a bad value for a message: containers by kind, text cut at `limit`.

    Never the full repr: a value can be megabytes (or, before aliases were refused, a
    billion-laughs tree) and the message must stay one short line.
    """
    if isinstance(value, (dict, list, tuple, set)):
        return _type_name(value)
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    text = repr(value)
    return text[:limit] + ("…" if len(text) > limit else "")


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing"
    return {LinedDict: "a mapping", LinedList: "a list", str: "text", bool: "true/false"}.get(
        type(value), type(value).__name__
    )


# ---------------------------------------------------------------------------------------------
# Reading each kind of file
# ---------------------------------------------------------------------------------------------


def _read_bullets(c: _Collector, data: LinedDict, key: str, what: str) -> tuple[Bullet, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, LinedList):
        c.error(data.line_of(key), f"{what}: '{key}' must be a list")
        return ()
    bullets = []
    for index, entry in enumerate(value):
        line = value.line_of(index)
        if isinstance(entry, str) and entry.strip():
            bullets.append(Bullet(entry.strip(), None, line))
        elif isinstance(entry, LinedDict):
            c.fields(entry, f"{what} bullet", ["text"], ["note"])
            text = c.text(entry, "text", f"{what} bullet")
            if text:
                bullets.append(Bullet(text, c.text(entry, "note", f"{what} bullet", False), line))
        else:
            c.error(line, f"{what}: a bullet must be text or {{text, note}}, got {_type_name(entry)}")
    return tuple(bullets)


def _read_examples(c: _Collector, data: LinedDict, key: str, what: str) -> tuple[Example, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, LinedList):
        c.error(data.line_of(key), f"{what}: '{key}' must be a list")
        return ()
    examples = []
    for index, entry in enumerate(value):
        example = c.mapping(entry, value.line_of(index), f"{what} example")
        if example is None:
            continue
        c.fields(example, f"{what} example", ["answer", "text"], [])
        answer, text = example.get("answer"), c.text(example, "text", f"{what} example")
        if answer not in ANSWERS:
            c.error(example.line_of("answer"), f"{what} example: answer must be O or X, got {_shown(answer)}")
        elif text:
            examples.append(Example(answer, text, example.line))
    return tuple(examples)


def _read_section(c: _Collector, data: LinedDict, topic_id: str) -> Section | None:
    what = f"topic '{topic_id}' section"
    c.fields(
        data,
        what,
        ["id", "kind", "title"],
        ["bullets", "alt_bullets", "examples", "alt_examples", "group", "intro", "notes"],
    )
    section_id = c.slug(data, "id", what)
    kind = data.get("kind")
    title = c.text(data, "title", what)
    if kind not in SECTION_KINDS:
        c.error(
            data.line_of("kind"),
            f"{what}: kind must be one of {', '.join(SECTION_KINDS)}, got {_shown(kind)}",
        )
        return None
    if section_id is None or title is None:
        return None
    what = f"section '{topic_id}/{section_id}'"
    notes = data.get("notes") or []
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        c.error(data.line_of("notes"), f"{what}: 'notes' must be a list of text")
        notes = []
    section = Section(
        id=section_id,
        kind=kind,
        title=title,
        bullets=_read_bullets(c, data, "bullets", what),
        alt_bullets=_read_bullets(c, data, "alt_bullets", what),
        examples=_read_examples(c, data, "examples", what),
        alt_examples=_read_examples(c, data, "alt_examples", what),
        group=c.text(data, "group", what, False),
        intro=c.text(data, "intro", what, False),
        notes=tuple(n.strip() for n in notes),
        line=data.line,
    )
    if kind == "patterns" and not section.examples:
        c.error(data.line, f"{what}: a patterns section needs 'examples'")
    if kind != "patterns" and not section.bullets:
        c.error(data.line, f"{what}: needs at least one bullet")
    if kind == "deep_dive" and not section_id.startswith("deep-dive-"):
        c.error(data.line_of("id"), f"{what}: deep-dive section ids start with 'deep-dive-'")
    return section


def _read_topic(c: _Collector, data: Any, path: Path) -> Topic | None:
    topic_data = c.mapping(data, 1, "topic file")
    if topic_data is None:
        return None
    c.fields(
        topic_data, "topic", ["id", "title", "sections"], ["title_en", "order", "parent", "labs", "id_prefix"]
    )
    topic_id = c.slug(topic_data, "id", "topic")
    title = c.text(topic_data, "title", "topic")
    if topic_id is None or title is None:
        return None
    if path.stem != topic_id:
        c.error(topic_data.line_of("id"), f"topic id '{topic_id}' must match the file name '{path.name}'")
    order = topic_data.get("order", 99)
    if not isinstance(order, int) or isinstance(order, bool):
        c.error(topic_data.line_of("order"), f"topic '{topic_id}': order must be a whole number")
        order = 99
    sections_data = topic_data.get("sections")
    sections: list[Section] = []
    if not isinstance(sections_data, LinedList) or not sections_data:
        c.error(topic_data.line_of("sections"), f"topic '{topic_id}': 'sections' must be a non-empty list")
    else:
        for index, entry in enumerate(sections_data):
            section_data = c.mapping(entry, sections_data.line_of(index), f"topic '{topic_id}' section")
            section = _read_section(c, section_data, topic_id) if section_data is not None else None
            if section is None:
                continue
            if any(s.id == section.id for s in sections):
                c.error(section.line, f"topic '{topic_id}': duplicate section id '{section.id}'")
                continue
            sections.append(section)
        for section_id, kind in REQUIRED_SECTIONS.items():
            found = next((s for s in sections if s.id == section_id), None)
            if found is None:
                c.error(sections_data.line, f"topic '{topic_id}': missing the '{section_id}' section")
            elif found.kind != kind:
                c.error(found.line, f"section '{topic_id}/{section_id}' must have kind '{kind}'")
    parent = topic_data.get("parent")
    if parent is not None and not isinstance(parent, str):
        c.error(topic_data.line_of("parent"), f"topic '{topic_id}': parent must be a topic id")
        parent = None
    id_prefix = c.text(topic_data, "id_prefix", f"topic '{topic_id}'", False)
    if id_prefix is not None and not ID_PREFIX.match(id_prefix):
        c.error(
            topic_data.line_of("id_prefix"),
            f"topic '{topic_id}': id_prefix must be a slug and a dash like 'pa-', got {_shown(id_prefix)}",
        )
        id_prefix = None
    return Topic(
        id=topic_id,
        title=title,
        title_en=c.text(topic_data, "title_en", "topic", False) or topic_id,
        order=order,
        parent=parent,
        labs=c.slug_list(topic_data, "labs", f"topic '{topic_id}'"),
        sections=tuple(sections),
        location=Location(path, topic_data.line),
        id_prefix=id_prefix,
    )


def _read_misconceptions(c: _Collector, value: Any, line: int, into: dict[str, tuple[str, Location]]) -> None:
    data = c.mapping(value, line, "misconceptions")
    if data is None:
        return
    for tag, label in data.items():
        tag_line = data.line_of(tag)
        if not SLUG.match(tag):
            c.error(tag_line, f"misconception tag must be a slug, got '{tag}'")
        elif not isinstance(label, str) or not label.strip():
            c.error(tag_line, f"misconception '{tag}' needs a Korean label")
        elif tag in into:
            c.error(tag_line, f"duplicate misconception tag '{tag}' (first defined at {into[tag][1]})")
        else:
            into[tag] = (label.strip(), Location(c.where, tag_line))


def _read_item(c: _Collector, data: LinedDict, topic_id: str) -> Item | None:
    c.fields(
        data,
        "item",
        ["id", "statement", "answer", "explanation", "section"],
        ["sources", "pattern", "misconception", "checklist", "exam_note", "siblings"],
    )
    item_id = c.slug(data, "id", "item")
    what = f"item '{item_id}'"
    statement = c.text(data, "statement", what)
    explanation = c.text(data, "explanation", what)
    section = c.slug(data, "section", what)
    answer = data.get("answer")
    if answer not in ANSWERS:
        c.error(data.line_of("answer"), f"{what}: answer must be O or X, got {_shown(answer)}")
    pattern = data.get("pattern", False)
    if not isinstance(pattern, bool):
        c.error(data.line_of("pattern"), f"{what}: pattern must be true or false")
        pattern = False
    sources = data.get("sources") or []
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        c.error(data.line_of("sources"), f"{what}: sources must be a list like ['features#2']")
        sources = []
    misconception = c.text(data, "misconception", what, False)
    if answer == "X" and misconception is None:
        c.error(data.line, f"{what}: an X item needs a 'misconception' tag")
    if answer == "O" and misconception is not None:
        c.error(data.line_of("misconception"), f"{what}: an O item has no misconception")
    if None in (item_id, statement, explanation, section) or answer not in ANSWERS:
        return None
    return Item(
        id=item_id,  # type: ignore[arg-type]
        topic=topic_id,
        statement=statement,  # type: ignore[arg-type]
        answer=answer,
        explanation=explanation,  # type: ignore[arg-type]
        section=section,  # type: ignore[arg-type]
        sources=tuple(s.strip() for s in sources),
        pattern=pattern,
        misconception=misconception,
        checklist=c.slug_list(data, "checklist", what),
        exam_note=c.text(data, "exam_note", what, False),
        siblings=c.slug_list(data, "siblings", what),
        location=Location(c.where, data.line),
    )


def _read_items_file(
    c: _Collector, data: Any, path: Path, misconceptions: dict[str, tuple[str, Location]]
) -> tuple[str | None, list[Item]]:
    file_data = c.mapping(data, 1, "items file")
    if file_data is None:
        return None, []
    c.fields(file_data, "items file", ["topic", "items"], ["misconceptions"])
    topic_id = c.slug(file_data, "topic", "items file")
    if "misconceptions" in file_data:
        _read_misconceptions(
            c, file_data["misconceptions"], file_data.line_of("misconceptions"), misconceptions
        )
    entries = file_data.get("items")
    if not isinstance(entries, LinedList):
        c.error(file_data.line_of("items"), "items file: 'items' must be a list")
        return topic_id, []
    items = []
    for index, entry in enumerate(entries):
        item_data = c.mapping(entry, entries.line_of(index), "item")
        item = _read_item(c, item_data, topic_id or "?") if item_data is not None else None
        if item is not None:
            items.append(item)
    return topic_id, items


def _read_checklist(c: _Collector, data: Any) -> tuple[str, list[ChecklistEntry]]:
    file_data = c.mapping(data, 1, "checklist file")
    if file_data is None:
        return "", []
    c.fields(file_data, "checklist", ["title", "items"], [])
    title = c.text(file_data, "title", "checklist") or ""
    entries = file_data.get("items")
    if not isinstance(entries, LinedList) or not entries:
        c.error(file_data.line_of("items"), "checklist: 'items' must be a non-empty list")
        return title, []
    result = []
    for index, entry in enumerate(entries):
        entry_data = c.mapping(entry, entries.line_of(index), "checklist item")
        if entry_data is None:
            continue
        c.fields(entry_data, "checklist item", ["id", "number", "text"], ["topics", "labs", "items"])
        entry_id = c.slug(entry_data, "id", "checklist item")
        text = c.text(entry_data, "text", "checklist item")
        number = entry_data.get("number")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            c.error(entry_data.line_of("number"), "checklist item: number must be a positive whole number")
            continue
        if entry_id is None or text is None:
            continue
        what = f"checklist item '{entry_id}'"
        result.append(
            ChecklistEntry(
                id=entry_id,
                number=number,
                text=text,
                topics=c.slug_list(entry_data, "topics", what),
                labs=c.slug_list(entry_data, "labs", what),
                items=c.slug_list(entry_data, "items", what),
                location=Location(c.where, entry_data.line),
            )
        )
    return title, result


# ---------------------------------------------------------------------------------------------
# Cross-file checks
# ---------------------------------------------------------------------------------------------


def _check_links(
    c: _Collector,
    topics: dict[str, Topic],
    items: dict[str, Item],
    checklist: list[ChecklistEntry],
    misconceptions: dict[str, tuple[str, Location]],
    known_labs: set[str] | None,
    complete: bool = True,
) -> None:
    def check_lab(lab: str, location: Location) -> None:
        if known_labs is not None and lab not in known_labs:
            c.warn(location.line, f"lab '{lab}' does not exist yet", location.path)

    checklist_ids = {entry.id for entry in checklist}
    for topic in topics.values():
        if topic.parent is not None and topic.parent not in topics:
            c.error(
                topic.location.line,
                f"topic '{topic.id}': unknown parent topic '{topic.parent}'",
                topic.location.path,
            )
        for lab in topic.labs:
            check_lab(lab, topic.location)

    referenced: set[tuple[str, str]] = set()
    for item in items.values():
        where = item.location
        topic = topics.get(item.topic)
        if topic is None:
            continue  # reported once per file
        if topic.id_prefix is not None and not item.id.startswith(topic.id_prefix):
            c.error(
                where.line,
                f"item '{item.id}': ids in topic '{topic.id}' start with '{topic.id_prefix}' (its id_prefix)",
                where.path,
            )
        section = topic.section(item.section)
        if section is None:
            c.error(
                where.line,
                f"item '{item.id}': unknown section '{item.section}' in topic '{topic.id}'",
                where.path,
            )
        for ref in item.sources:
            match = SOURCE_REF.match(ref)
            target = topic.section(match["section"]) if match else None
            if match is None or target is None or ref not in target.source_refs():
                c.error(
                    where.line,
                    f"item '{item.id}': source '{ref}' is not a seed line of topic '{topic.id}'",
                    where.path,
                )
            else:
                referenced.add((topic.id, ref))
        if item.misconception is not None and item.misconception not in misconceptions:
            c.error(where.line, f"item '{item.id}': unknown misconception '{item.misconception}'", where.path)
        for entry_id in item.checklist:
            if entry_id not in checklist_ids:
                c.error(where.line, f"item '{item.id}': unknown checklist item '{entry_id}'", where.path)
        for sibling in item.siblings:
            if sibling == item.id or sibling not in items:
                c.error(where.line, f"item '{item.id}': sibling '{sibling}' is not another item", where.path)

    # Coverage and balance only mean something when every file could be read.
    for topic in topics.values() if complete else ():
        topic_items = [i for i in items.values() if i.topic == topic.id]
        path = topic.location.path
        for section in topic.sections:
            for ref, line in section.source_refs().items():
                if (topic.id, ref) not in referenced:
                    c.error(
                        line, f"seed line {ref} of topic '{topic.id}' is not the source of any item", path
                    )
            for example in section.examples + section.alt_examples:
                if not any(
                    i.pattern and i.statement == example.text and i.answer == example.answer
                    for i in topic_items
                ):
                    c.error(
                        example.line,
                        f"pattern example is not an item with pattern: true: {example.text}",
                        path,
                    )
        if len(topic_items) < MIN_ITEMS_PER_TOPIC:
            c.error(
                1,
                f"topic '{topic.id}' has {len(topic_items)} items; at least {MIN_ITEMS_PER_TOPIC} needed",
                path,
            )
        elif topic_items:
            share = sum(i.answer == "O" for i in topic_items) / len(topic_items)
            low, high = O_SHARE_RANGE
            if not low <= share <= high:
                c.error(
                    1,
                    f"topic '{topic.id}' is unbalanced: {share:.0%} O answers (needs {low:.0%}–{high:.0%})",
                    path,
                )

    numbers: dict[int, str] = {}
    for entry in checklist:
        where = entry.location
        if entry.number in numbers:
            c.error(where.line, f"checklist number {entry.number} is used twice", where.path)
        numbers[entry.number] = entry.id
        for topic_id in entry.topics:
            if topic_id not in topics:
                c.error(where.line, f"checklist item '{entry.id}': unknown topic '{topic_id}'", where.path)
        for item_id in entry.items:
            if item_id not in items:
                c.error(where.line, f"checklist item '{entry.id}': unknown quiz item '{item_id}'", where.path)
        for lab in entry.labs:
            check_lab(lab, where)


def _merge_checklist_links(checklist: list[ChecklistEntry], items: dict[str, Item]) -> list[ChecklistEntry]:
    merged = []
    for entry in checklist:
        tagged = [i.id for i in items.values() if entry.id in i.checklist]
        linked = tuple(dict.fromkeys([*entry.items, *tagged]))
        merged.append(
            ChecklistEntry(
                entry.id, entry.number, entry.text, entry.topics, entry.labs, linked, entry.location
            )
        )
    return sorted(merged, key=lambda e: e.number)


def check_content(root: Path, known_labs: set[str] | None = None) -> tuple[Content | None, list[Problem]]:
    """Read and check everything under `root`. Returns the model (None if unusable) and all problems."""
    c = _Collector()
    if not root.is_dir():
        c.error(1, "content directory not found", root)
        return None, c.problems

    topics: dict[str, Topic] = {}
    items: dict[str, Item] = {}
    misconceptions: dict[str, tuple[str, Location]] = {}
    checklist: list[ChecklistEntry] = []
    checklist_title = ""
    id_owner: dict[str, Location] = {}

    def claim(kind: str, object_id: str, location: Location) -> bool:
        key = f"{kind}:{object_id}"
        if key in id_owner:
            c.error(
                location.line,
                f"duplicate {kind} id '{object_id}' (first defined at {id_owner[key]})",
                location.path,
            )
            return False
        id_owner[key] = location
        return True

    unreadable: list[Path] = []

    def parse(path: Path) -> Any:
        c.where = path
        try:
            data = read_yaml(path, reuse=True)  # read only: the model is built from it
        except FileProblem as exc:
            c.error(exc.line, exc.message)
            unreadable.append(path)
            return None
        _check_control_chars(c, data)
        return data

    misconceptions_file = root / "misconceptions.yaml"
    if misconceptions_file.exists() or misconceptions_file.is_symlink():  # a broken link is a problem
        data = parse(misconceptions_file)
        if data is not None:
            file_data = c.mapping(data, 1, "misconceptions file")
            if file_data is not None:
                c.fields(file_data, "misconceptions file", ["misconceptions"], [])
                if "misconceptions" in file_data:
                    _read_misconceptions(
                        c, file_data["misconceptions"], file_data.line_of("misconceptions"), misconceptions
                    )

    topic_files = sorted((root / "topics").glob("*.y*ml"))
    if not topic_files:
        c.error(1, "no topic files in topics/", root / "topics")
    for path in topic_files:
        data = parse(path)
        topic = _read_topic(c, data, path) if data is not None else None
        if topic is not None and claim("topic", topic.id, topic.location):
            topics[topic.id] = topic

    for path in sorted((root / "items").glob("*.y*ml")):
        data = parse(path)
        if data is None:
            continue
        topic_id, file_items = _read_items_file(c, data, path, misconceptions)
        if topic_id is not None and topic_id not in topics:
            c.error(
                data.line_of("topic") if isinstance(data, LinedDict) else 1, f"unknown topic '{topic_id}'"
            )
            continue
        for item in file_items:
            if claim("item", item.id, item.location):
                items[item.id] = item

    checklist_file = root / "checklist.yaml"
    if not checklist_file.exists() and not checklist_file.is_symlink():
        c.error(1, "checklist.yaml is missing", checklist_file)
    else:
        data = parse(checklist_file)
        if data is not None:
            checklist_title, checklist = _read_checklist(c, data)
            for entry in checklist:
                claim("checklist", entry.id, entry.location)

    _check_links(c, topics, items, checklist, misconceptions, known_labs, complete=not unreadable)
    checklist = _merge_checklist_links(checklist, items)
    for entry in checklist if not unreadable else ():
        if not entry.items:
            c.error(
                entry.location.line,
                f"checklist item '{entry.id}' has no linked quiz items",
                entry.location.path,
            )

    # Optional, and read last: the coverage checks above do not depend on it.
    glossary: dict[str, Term] = {}
    glossary_file = root / GLOSSARY_FILE  # the terms of "다음 설명에 해당하는 것은?" questions
    if glossary_file.exists() or glossary_file.is_symlink():  # a broken link is a problem
        data = parse(glossary_file)
        if data is not None:
            glossary = read_glossary(c, data, glossary_file, set(topics))

    content = Content(
        root=root,
        topics=topics,
        items=items,
        checklist=checklist,
        checklist_title=checklist_title,
        misconceptions={tag: label for tag, (label, _) in misconceptions.items()},
        glossary=glossary,
    )
    problems = sorted(c.problems, key=lambda p: (str(p.path), p.line, p.message))
    usable = not any(not p.warning for p in problems)
    return (content if usable else None), problems


def load_content(root: Path, known_labs: set[str] | None = None) -> Content:
    """The content model, or ContentError listing every problem (warnings are ignored)."""
    content, problems = check_content(root, known_labs)
    errors = [p for p in problems if not p.warning]
    if content is None or errors:
        # A file that cannot be read at all is the root cause of what follows: name it first.
        unreadable = ("YAML", "not UTF-8", "empty file", "cannot read", "file too large")
        errors.sort(key=lambda p: not p.message.startswith(unreadable))
        raise ContentError(errors, base=Path.cwd())
    return content
