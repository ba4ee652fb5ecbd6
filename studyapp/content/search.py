"""Search the concept cards: every section's title and lines (bullets, examples, notes, the other
seed wording), case-insensitive, all words of the query in one line. No Textual here; the cards
screen lists the hits and opens the section of the one chosen."""

from __future__ import annotations

from dataclasses import dataclass

from studyapp.content.model import Content, Section

SNIPPET_CELLS = 60  # about this much of the line around the first word


@dataclass(frozen=True)
class CardHit:
    topic_id: str
    section_id: str
    line: str  # the matching line as the card shows it ("" when only the title matched)
    snippet: str  # the part of it around the first word


def section_texts(section: Section) -> list[str]:
    texts = [section.intro or ""]
    for bullet in (*section.bullets, *section.alt_bullets):
        texts += [bullet.text, bullet.note or ""]
    texts += [example.text for example in (*section.examples, *section.alt_examples)]
    texts += list(section.notes)
    return [text for text in texts if text]


def words(query: str) -> list[str]:
    return [word.casefold() for word in query.split() if word]


def matches(text: str, terms: list[str]) -> bool:
    folded = text.casefold()
    return bool(terms) and all(term in folded for term in terms)


def snippet(text: str, term: str, cells: int = SNIPPET_CELLS) -> str:
    """`…the words around term…` in about `cells` characters (Hangul counts once: close enough)."""
    at = text.casefold().find(term)
    if at < 0 or len(text) <= cells:
        return text if len(text) <= cells else text[: cells - 1] + "…"
    start = max(0, at - cells // 3)
    end = min(len(text), start + cells)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def search_cards(content: Content, query: str, limit: int = 200) -> list[CardHit]:
    """Sections whose title or one line holds every word of `query`, in card order: one hit per
    matching line (a title match first, with no line)."""
    terms = words(query)
    hits: list[CardHit] = []
    if not terms:
        return hits
    for topic in content.ordered_topics():
        for section in topic.sections:
            title = f"{topic.title} {section.group or ''} {section.title}"
            if matches(title, terms):
                hits.append(CardHit(topic.id, section.id, "", section.title))
            for text in section_texts(section):
                if matches(text, terms):
                    hits.append(CardHit(topic.id, section.id, text, snippet(text, terms[0])))
            if len(hits) >= limit:
                return hits[:limit]
    return hits


__all__ = ["CardHit", "search_cards"]
