"""The second TUI review (issue 32, reviews/2026-12-second/tui.md): the problems outside the mock
exam and the notebook, each through the screen a learner uses."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input, OptionList

from studyapp.content.model import Content
from studyapp.content.search import search_cards
from studyapp.quiz.engine import SessionOptions
from studyapp.tui.screens.cards import CardsScreen
from tests.tui.helpers import SIZE, assert_fits, screen_text


def two_searchable_words(content: Content) -> tuple[str, str]:
    """Two words that each have hits in the fixture cards."""
    found: list[str] = []
    for topic in content.ordered_topics():
        for section in topic.sections:
            for bullet in section.bullets:
                for word in bullet.text.split():
                    plain = len(word) >= 5 and word.isascii() and word.isalpha()
                    if plain and word not in found and search_cards(content, word):
                        found.append(word)
                    if len(found) == 2:
                        return found[0], found[1]
    raise AssertionError("the fixture cards need two searchable words")


async def search(pilot: Any, word: str) -> None:
    await pilot.press("slash")
    field = pilot.app.screen.query_one("#card-search", Input)
    field.value = ""
    await pilot.press(*word, "enter")
    await pilot.pause()


@pytest.mark.parametrize("from_quiz", [False, True])
async def test_a_second_card_search_replaces_the_hits(make: Any, content: Content, from_quiz: bool) -> None:
    """M2: `/`, a word, Enter, then `/` again with another word crashed with DuplicateIds."""
    first, second = two_searchable_words(content)
    if from_quiz:
        app = make(start="quiz", options=SessionOptions(seed=1, include_drills=False, kind="ox"))
    else:
        app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        await search(pilot, first)
        await search(pilot, second)
        assert app.screen is screen and app.is_running
        hits = screen.query(OptionList)
        assert len(hits) == 1
        assert hits.first().option_count == len(search_cards(content, second))
        assert f"/{second}" in screen_text(app)
        await search(pilot, first)  # and once more, back to the first word
        assert screen.query_one("#card-hits", OptionList).option_count == len(search_cards(content, first))
        assert_fits(app)
