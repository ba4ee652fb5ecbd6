"""The O/X bank as an Anki text import (Anki, AnkiDroid, AnkiMobile: File › Import).

One Basic note per item: the front is the statement (with its topic, and "O or X?"), the back the
answer and the explanation (and the exam note where the seed exam expects otherwise). The file
starts with Anki's file headers, so no import option has to be set by hand:

    #separator:tab   #html:true   #notetype:Basic   #deck:NAME
    #columns:GUID<TAB>Front<TAB>Back<TAB>Tags   #guid column:1   #tags column:4

The GUID is the item's id, which never changes once published (content/items/*.yaml): importing
a newer export updates those notes in place and keeps the learner's Anki scheduling. Tags: one per
topic (`studyapp::topic::bottleneck-analysis`, its parent too) and one per checklist item
(`studyapp::checklist::09-amdahl`), so Anki can filter a deck by either.

Fields are HTML (`#html:true`): the text is escaped (`&`, `<`, `>`, quotes), line breaks become
`<br>` and tabs `&#9;`, so a field never holds the separator, a raw line break or a leading quote
(which Anki's reader would take for a quoted CSV field). No Textual, no store: only the content.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from studyapp.atomicfile import write_output
from studyapp.content.model import Content, Item

DEFAULT_DECK = "studyapp::성능 분석"
TAG_PREFIX = "studyapp"
COLUMNS = ("GUID", "Front", "Back", "Tags")
GUID_COLUMN = 1
TAGS_COLUMN = 4
ANSWER_WORDS = {"O": "O — 맞다", "X": "X — 틀리다"}


@dataclass(frozen=True)
class AnkiNote:
    guid: str
    front: str  # HTML
    back: str  # HTML
    tags: tuple[str, ...]


def field_html(text: str) -> str:
    """Plain text as one Anki field: escaped, line breaks as <br>, tabs as &#9;."""
    escaped = html.escape(text.replace("\r\n", "\n").replace("\r", "\n"), quote=True)
    return escaped.replace("\t", "&#9;").replace("\n", "<br>")


def tag(*parts: str) -> str:
    """An Anki tag: `::` nests, and a tag may hold no whitespace."""
    return "::".join(re.sub(r"\s+", "_", part.strip()) for part in (TAG_PREFIX, *parts))


def item_tags(content: Content, item: Item) -> tuple[str, ...]:
    tags: list[str] = []
    topic = content.topics.get(item.topic)
    if topic is not None and topic.parent:
        tags.append(tag("topic", topic.parent))
    tags.append(tag("topic", item.topic))
    for entry in content.checklist:
        if entry.id in item.checklist or item.id in entry.items:
            tags.append(tag("checklist", f"{entry.number:02d}-{entry.id}"))
    return tuple(dict.fromkeys(tags))


def item_note(content: Content, item: Item) -> AnkiNote:
    topic = content.topics.get(item.topic)
    where = topic.title if topic is not None else item.topic
    if topic is not None and topic.parent and topic.parent in content.topics:
        where = f"{content.topics[topic.parent].title} › {topic.title}"
    # no attribute quotes anywhere: a field is plain HTML tags and escaped text
    front = f"<small>{field_html(where)}</small><br>" + field_html(item.statement)
    front += "<br><br><small>O / X?</small>"
    back = f"<b>{field_html(ANSWER_WORDS.get(item.answer, item.answer))}</b><br><br>" + field_html(
        item.explanation
    )
    if item.exam_note:
        back += "<br><br><i>" + field_html(item.exam_note) + "</i>"
    if item.misconception and item.misconception in content.misconceptions:
        back += (
            "<br><br><small>"
            + field_html("오개념: " + content.misconceptions[item.misconception])
            + "</small>"
        )
    return AnkiNote(guid=item.id, front=front, back=back, tags=item_tags(content, item))


def notes(content: Content, topic: str | None = None) -> list[AnkiNote]:
    """Every O/X item as a note, in topic order then item order (a stable file to diff)."""
    order = {t.id: index for index, t in enumerate(content.ordered_topics())}
    chosen = [
        item
        for item in content.items.values()
        if topic is None
        or item.topic == topic
        or (content.topics.get(item.topic) and content.topics[item.topic].parent == topic)
    ]
    chosen.sort(key=lambda item: (order.get(item.topic, len(order)), item.id))
    return [item_note(content, item) for item in chosen]


def deck_control_character(deck: str) -> str | None:
    """The first control character in a deck name that is not white space (ESC, BEL, C1 CSI…),
    or None. White space is folded to single spaces by `render`; the others have no place in a
    header and would drive the terminal that echoes the name."""
    return next((c for c in deck if unicodedata.category(c) == "Cc" and not c.isspace()), None)


def render(notes_: Iterable[AnkiNote], deck: str = DEFAULT_DECK) -> str:
    """The whole file: headers, then one tab-separated line per note."""
    # a header is one line, and never carries a raw control character (the CLI refuses those first)
    deck_name = " ".join("".join(c for c in deck if deck_control_character(c) is None).split())
    lines = [
        "#separator:tab",
        "#html:true",
        "#notetype:Basic",
        f"#deck:{deck_name}",
        "#columns:" + "\t".join(COLUMNS),
        f"#guid column:{GUID_COLUMN}",
        f"#tags column:{TAGS_COLUMN}",
    ]
    for note in notes_:
        lines.append("\t".join((field_html(note.guid), note.front, note.back, " ".join(note.tags))))
    return "\n".join(lines) + "\n"


def export_anki(
    content: Content, path: Path, deck: str = DEFAULT_DECK, topic: str | None = None
) -> tuple[int, bool]:
    """Write the export to `path` (whole or not at all; `-` is stdout, a read pipe is streamed,
    a device or folder refused: `atomicfile.write_output`). Returns the number of notes and
    whether it went to a stream."""
    chosen = notes(content, topic)
    streamed = write_output(path, render(chosen, deck), prefix=".studyapp-anki-")
    return len(chosen), streamed


__all__ = [
    "DEFAULT_DECK",
    "AnkiNote",
    "deck_control_character",
    "export_anki",
    "field_html",
    "notes",
    "render",
]
