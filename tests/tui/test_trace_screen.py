"""Trace-reading questions on the quiz screen at 80×24 (issue 33): the question, its excerpt and
the four options fit on screen as computed from the trace, keys 1-4 answer, the feedback teaches
the key's computation; the trace drill takes a typed number."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.kinds.trace import trace_questions
from studyapp.tui.app import make_app
from studyapp.tui.screens.quiz import ASKING, FEEDBACK, QuizScreen
from tests.tui.helpers import KST, SIZE, assert_fits, flat, screen_text

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shipped() -> Content:
    return load_content(REPO / "content")


async def test_answering_a_trace_question_at_80x24(shipped: Content, store: ProgressStore) -> None:
    computed = {q.id: q for q in trace_questions(shipped)}
    # the compiled-vs-eager question has the tallest excerpt (two tables, 12 lines)
    options = SessionOptions(mode="cram", kind="trace", seed=1)
    app = make_app(content=shipped, store=store, lang="ko", start="quiz", options=options, tz=KST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.state == ASKING
        while (
            screen.question is not None and screen.question.id != "trace-compile-compiled-compiled-vanished"
        ):
            await pilot.press("0")  # "don't know": on to the next question
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
        question = screen.question
        assert question is not None
        asked = computed[question.id]
        shown = screen_text(app)
        assert "[트레이스: " in shown  # the brackets are text, not markup
        for line in asked.excerpt:
            assert line.rstrip() in shown, line  # every row of the excerpt on its own screen row
        for number, option in enumerate(asked.options, start=1):
            assert f"{number}) {option}" in shown  # all four options without scrolling
        assert_fits(app)

        assert asked.key is not None
        await pilot.press(str(asked.key + 1))
        await pilot.pause()
        assert screen.state == FEEDBACK and screen.feedback is not None and screen.feedback.correct
        assert flat(asked.explanation[:30]) in flat(screen_text(app))
        assert store.schedules()[asked.id].last_correct


async def test_a_trace_drill_takes_a_typed_number(shipped: Content, store: ProgressStore) -> None:
    computed = {q.id: q for q in trace_questions(shipped)}
    options = SessionOptions(mode="cram", kind="trace-drill", seed=2, count=1)
    app = make_app(content=shipped, store=store, lang="ko", start="quiz", options=options, tz=KST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.question is not None
        asked = computed[screen.question.id]
        assert asked.number is not None
        await pilot.press(*f"{asked.number:g}", "enter")
        await pilot.pause()
        assert screen.state == FEEDBACK and screen.feedback is not None and screen.feedback.correct
        assert_fits(app)


async def test_a_trace_question_in_the_mock_exam_at_80x24(shipped: Content, store: ProgressStore) -> None:
    from studyapp.quiz.exam import ExamSession, ExamSettings

    session = ExamSession(shipped, store, ExamSettings(seed=7, count=30))
    traced = [index for index, question in enumerate(session.questions) if question.kind == "trace"]
    assert traced
    app = make_app(content=shipped, store=store, lang="ko", start="exam", options=session, tz=KST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # past the intro
        await pilot.pause()
        for index in traced:
            await pilot.press("g", *str(index + 1), "enter")
            await pilot.pause()
            question = session.questions[index]
            shown = screen_text(app)
            prompt, *excerpt = question.stem.split("\n")
            assert flat(prompt) in flat(shown)
            for line in excerpt:
                assert line.rstrip() in shown  # the excerpt's rows unwrapped
            for number, option in enumerate(question.options, start=1):
                assert f"{number}) {option.text}" in shown  # every option on screen
            assert_fits(app)
            await pilot.press(question.answer)
            await pilot.pause()
        assert all(session.answers[index] == session.questions[index].answer for index in traced)


async def test_a_trace_session_from_the_command_palette(shipped: Content, store: ProgressStore) -> None:
    app = make_app(content=shipped, store=store, lang="en", tz=KST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Trace-reading questions only")
        await pilot.pause(0.3)
        await pilot.press("enter")
        for _ in range(300):  # the palette's search runs in a worker: wait for the screen, not a time
            if isinstance(app.screen, QuizScreen):
                break
            await pilot.pause(0.1)
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.question is not None
        assert screen.question.kind == "trace" and "[트레이스: " in screen_text(app)
