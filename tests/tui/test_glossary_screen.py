"""Glossary questions ("다음 설명에 해당하는 것은?") in the TUI on the demo content: the quiz screen
(keys 1-4 and 0, feedback on all four terms, reviews under gl- ids) and the mock exam's result."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.questions import GLOSSARY_STEM, KIND_GLOSSARY
from studyapp.tui.app import StudyApp, make_app
from studyapp.tui.screens.exam import ExamIntroScreen
from studyapp.tui.screens.exam_result import ExamResultScreen
from studyapp.tui.screens.quiz import ASKING, FEEDBACK, QuizScreen
from tests.helpers_content import write_content, write_glossary
from tests.tui.helpers import KST, SIZE, assert_fits, flat, screen_text


@pytest.fixture
def demo(tmp_path: Path) -> Content:
    return load_content(write_glossary(write_content(tmp_path / "content")))


def app_for(demo: Content, store: ProgressStore, start: str, options: object) -> StudyApp:
    return make_app(content=demo, store=store, lang="ko", start=start, options=options, tz=KST)  # type: ignore[arg-type]


async def test_answering_glossary_questions_on_the_quiz_screen(demo: Content, store: ProgressStore) -> None:
    options = SessionOptions(mode="new", kind="glossary", count=2, seed=1)
    app = app_for(demo, store, "quiz", options)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.state == ASKING
        question = screen.question
        assert question is not None and question.glossary is not None
        drawn = question.glossary
        text = flat(screen_text(app))
        assert flat(GLOSSARY_STEM) in text and flat(drawn.key.definition) in text
        for number, term in enumerate(drawn.options, start=1):
            assert flat(f"{number}) {term.label}") in text
        assert flat("용어") in text and flat("1-4 고르기") in text  # the title's kind, the pick keys
        await pilot.press("o")  # not an option number: nothing happens
        assert screen.state == ASKING and store.review_count() == 0
        assert_fits(app)

        await pilot.press(str(drawn.answer_index + 1))
        assert screen.state == FEEDBACK
        rendered = str(screen.query_one("#feedback").render())
        assert "✓ 맞음" in rendered and f"정답은 {drawn.answer_index + 1}번" in rendered
        for term in drawn.options:  # every term, its English name and its definition
            assert term.label in rendered and term.definition in rendered
        assert [(r.item_id, r.kind, r.correct) for r in store.reviews()] == [(question.id, "glossary", True)]

        await pilot.press("enter")
        second = screen.question
        assert screen.state == ASKING and second is not None and second.glossary is not None
        wrong = (second.glossary.answer_index + 1) % 4  # 0-based index of a wrong option
        await pilot.press(str(wrong + 1))
        rendered = str(screen.query_one("#feedback").render())
        assert "✗ 틀림" in rendered and f"내 선택: {wrong + 1}번" in rendered and "← 내 선택" in rendered
        picked = second.glossary.options[wrong]
        assert {(r.item_id, r.correct) for r in store.reviews()[1:]} == {
            (second.id, False),
            (f"gl-{picked.id}", False),
        }
        await pilot.press("u")  # undo takes both reviews back
        assert screen.state == ASKING and store.review_count() == 1
        await pilot.press("0")  # don't know
        rendered = str(screen.query_one("#feedback").render())
        assert Translator("ko")("choice.no_pick") in rendered  # the catalogue's "don't know"
        assert [(r.item_id, r.unsure) for r in store.reviews()[1:]] == [(second.id, True)]


async def test_a_mixed_session_draws_its_terms_after_the_first_paint(
    demo: Content, store: ProgressStore
) -> None:
    # seed 1 selects a term first: the session paints another question and draws the terms later
    options = SessionOptions(mode="cram", kind="mixed", seed=1)
    app = app_for(demo, store, "quiz", options)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.state == ASKING
        assert screen.question is not None and screen.question.kind != KIND_GLOSSARY
        terms = [q for q in screen.session._queue if q.kind == KIND_GLOSSARY]
        assert terms and all(q.glossary is not None for q in terms)  # drawn after the refresh


async def test_a_glossary_miss_in_the_mock_exam_result(demo: Content, store: ProgressStore) -> None:
    session = ExamSession(demo, store, ExamSettings(count=3, kind=KIND_GLOSSARY, seed=2, time_limit_s=600))
    first = session.questions[0]
    app = app_for(demo, store, "exam", session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        await pilot.press("enter")
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat(GLOSSARY_STEM) in text and flat(first.options[0].text) in text
        await pilot.press(str(int(first.answer) % 4 + 1))  # a wrong pick, two unanswered
        await pilot.press("s", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamResultScreen)
        shown = "\n".join(str(widget.render()) for widget in app.screen.query(".exam-miss Static"))
        for option in first.options:  # each term with its definition, no 옳음/옳지 않음
            assert option.text in shown and option.explanation in shown
        assert "옳지 않음" not in shown
