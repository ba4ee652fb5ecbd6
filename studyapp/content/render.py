"""Turn content into readable terminal output (rich renderables) and JSON.

Content text is never interpreted as markup: every string goes through `rich.text.Text`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from studyapp.content.model import Content, Section, Topic
from studyapp.i18n import Translator


def topic_to_dict(topic: Topic, content: Content) -> dict[str, Any]:
    data = asdict(topic)
    data["location"] = str(topic.location)
    data["items"] = len(content.items_for_topic(topic.id))
    return data


def section_lines(section: Section, t: Translator) -> list[tuple[str, str]]:
    """A section as (style, text) lines; the TUI and the CLI both render from this."""
    lines: list[tuple[str, str]] = []
    if section.intro:
        lines.append(("intro", section.intro))
    for bullet in section.bullets:
        lines.append(("bullet", f"• {bullet.text}"))
        if bullet.note:
            lines.append(("note", f"  ↳ {t('cards.note')}: {bullet.note}"))
    for example in section.examples:
        lines.append(("example", f"{example.answer}: {example.text}"))
    if section.alt_bullets or section.alt_examples:
        lines.append(("heading", f"{t('cards.alt')}:"))
        for bullet in section.alt_bullets:
            lines.append(("bullet", f"• {bullet.text}"))
            if bullet.note:
                lines.append(("note", f"  ↳ {t('cards.note')}: {bullet.note}"))
        for example in section.alt_examples:
            lines.append(("example", f"{example.answer}: {example.text}"))
    for note in section.notes:
        lines.append(("extra", f"※ {note}"))
    return lines


def section_title(section: Section) -> str:
    return f"{section.group} · {section.title}" if section.group else section.title


_STYLES = {
    "intro": "italic",
    "bullet": "",
    "note": "yellow",
    "example": "bold",
    "heading": "dim",
    "extra": "cyan",
}


def render_topic(topic: Topic, content: Content, t: Translator) -> Any:
    """A rich Panel for one card."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    parts: list[Any] = []
    for section in topic.sections:
        parts.append(Text(section_title(section), style="bold magenta"))
        for style, line in section_lines(section, t):
            if style == "example":
                answer, _, rest = line.partition(": ")
                text = Text()
                text.append(f"{answer}: ", style="bold green" if answer == "O" else "bold red")
                text.append(rest)
                parts.append(text)
            else:
                parts.append(Text(line, style=_STYLES.get(style, "")))
        parts.append(Text(""))
    labs = ", ".join(topic.labs) or "-"
    subtitle = f"{len(content.items_for_topic(topic.id))} {t('topics.items')} · {t('topics.labs')}: {labs}"
    title = Text(f"{topic.title}  ({topic.title_en})", style="bold")
    return Panel(Group(*parts), title=title, subtitle=subtitle, expand=True)
