"""More of the new-user review (issue 23): mock-exam misses in the wrong-answer notebook, search in
the concept cards, and the smaller items around them (N16, N23, N29, N32)."""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import KIND_CHOICE, ExamSession, ExamSettings
from studyapp.tui.screens.cards import CardsScreen
from studyapp.tui.screens.exam import ExamIntroScreen
from studyapp.tui.screens.notebook import NotebookScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text


def sit_an_exam(content: Content, store: ProgressStore) -> ExamSession:
    """A 4-choice exam: the first right, the second wrong, the rest left open; submitted."""
    session = ExamSession(content, store, ExamSettings(count=4, kind=KIND_CHOICE, seed=5))
    session.start()
    first, second = session.questions[:2]
    session.answer(first.answer)
    session.next()
    session.answer(str(int(second.answer) % 4 + 1))
    session.submit()
    return session


async def open_notebook(app: Any, pilot: Any) -> NotebookScreen:
    await pilot.pause()
    await pilot.press("w")
    await pilot.pause()
    assert isinstance(app.screen, NotebookScreen)
    return app.screen


async def test_the_notebook_lists_the_last_mock_exams_misses(
    make: Any, content: Content, store: ProgressStore
) -> None:
    session = sit_an_exam(content, store)
    missed = session.questions[1]
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_notebook(app, pilot)
        text = flat(screen_text(app))
        assert flat(f"모의고사 {session.attempt_id[:8]}") in text and flat("틀린 문항 — 3개") in text
        assert flat(missed.stem)[:12] in text and "✓" in screen_text(app)
        assert "w: 전부 다시" not in screen_text(app)  # no FSRS misses: `w` has nothing to do (N29)
        assert_fits(app, 100)
        await pilot.press("c")  # the card of the focused miss
        await pilot.pause()
        assert isinstance(app.screen, CardsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("e")  # sit them again, as a new mock exam
        await pilot.pause()
        intro = app.screen
        assert isinstance(intro, ExamIntroScreen) and intro.session.settings.retry_of == session.attempt_id
        text = flat(screen_text(app))
        assert flat("틀린 문항 다시 풀기") in text and flat("n 문항 수") not in text  # N32


async def test_an_empty_notebook_lists_no_keys(make: Any) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await open_notebook(app, pilot)
        text = screen_text(app)
        assert "No missed items" in text and "retry" not in text.lower()
