"""The wrong-answer notebook and retries, issue 32: glossary misses are in the notebook with the
term picked (m1); an O/X item missed through a 4-choice pick says so (m2); a retried glossary miss
gets its terms drawn anew, the key moved (m3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions
from studyapp.quiz.questions import KIND_GLOSSARY
from studyapp.tui.app import StudyApp, make_app
from studyapp.tui.screens.notebook import NotebookScreen
from studyapp.tui.screens.quiz import ASKING, FEEDBACK, QuizScreen
from tests.helpers_content import write_content, write_glossary
from tests.tui.helpers import KST, SIZE, flat, screen_text


@pytest.fixture
def demo(tmp_path: Path) -> Content:
    return load_content(write_glossary(write_content(tmp_path / "content")))


def app_for(demo: Content, store: ProgressStore, start: str = "home", options: object = None) -> StudyApp:
    return make_app(content=demo, store=store, lang="ko", start=start, options=options, tz=KST)  # type: ignore[arg-type]


def notebook_text(app: StudyApp) -> str:
    return flat("\n".join(str(widget.render()) for widget in app.screen.query("Static")))


async def test_a_glossary_miss_is_in_the_notebook_with_the_term_picked(
    demo: Content, store: ProgressStore
) -> None:
    session = QuizSession(demo, store, SessionOptions(mode="new", kind="glossary", count=1, seed=3))
    question = session.current
    assert question is not None and question.glossary is not None
    wrong = (question.glossary.answer_index + 1) % 4
    picked = question.glossary.options[wrong]
    assert session.answer(str(wrong + 1)) is not None
    app = app_for(demo, store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, NotebookScreen)
        text = notebook_text(app)
        assert flat(question.glossary.key.definition) in text  # the definition missed
        assert flat(f"마지막 내 답: {picked.label} · 정답: {question.glossary.key.label}") in text
        assert flat("다른 용어의 설명에 이 용어를 고름") in text  # the term taken for it is a miss too
        assert flat("틀린 문항이 없습니다") not in text


async def test_an_item_missed_in_a_4_choice_question_says_where(demo: Content, store: ProgressStore) -> None:
    item = next(i for i in demo.items.values() if i.answer == "O")
    # what a 4-choice "옳지 않은 것은?" pick of this true statement stores for it
    store.save_answer(store.new_review(item.id, answer="X", correct=False, kind="choice", mode="new"))
    app = app_for(demo, store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        text = notebook_text(app)
        assert flat(item.statement[:30]) in text
        assert flat("마지막 내 답: 4지선다에서 '옳지 않다'로 봄 (X) · 정답: O") in text


async def test_a_retried_glossary_miss_draws_its_terms_anew(demo: Content, store: ProgressStore) -> None:
    options = SessionOptions(mode="new", kind="glossary", count=1, seed=5)
    app = app_for(demo, store, "quiz", options)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.state == ASKING
        first = screen.question
        assert first is not None and first.glossary is not None
        await pilot.press(str((first.glossary.answer_index + 1) % 4 + 1))  # a miss
        assert screen.state == FEEDBACK
        await pilot.press("enter")  # the summary
        await pilot.pause()
        await pilot.press("w")  # retry the misses
        await pilot.pause()
        retry = app.screen
        assert isinstance(retry, QuizScreen) and retry is not screen
        again = retry.question
        assert again is not None and again.kind == KIND_GLOSSARY and again.glossary is not None
        assert again.glossary.key == first.glossary.key
        assert again.glossary.answer_index != first.glossary.answer_index  # not where it sat (m3)
        text = flat(screen_text(app))
        assert flat(f"{again.glossary.answer_index + 1}) {again.glossary.key.label}") in text


async def test_the_last_mock_exams_glossary_misses_are_in_the_notebook(
    demo: Content, store: ProgressStore
) -> None:
    """m1 for the mock exam: its 용어 misses are listed with the term picked and the key, each
    explained by its definition (the row's kind rebuilds them)."""
    from studyapp.quiz.exam import ExamSession, ExamSettings
    from studyapp.quiz.questions import KIND_GLOSSARY as EXAM_GLOSSARY

    session = ExamSession(demo, store, ExamSettings(count=2, kind=EXAM_GLOSSARY, seed=2))
    first = session.questions[0]
    picked = int(first.answer) % 4 + 1  # a wrong pick
    session.answer(str(picked))
    session.submit()
    app = app_for(demo, store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, NotebookScreen) and app.screen.exam is not None
        text = notebook_text(app)
        assert flat(f"{session.attempt_id[:8]}") in text
        assert flat(first.stem.splitlines()[-1]) in text  # the definition asked
        key = first.options[int(first.answer) - 1]
        wrong = first.options[picked - 1]
        for option in (key, wrong):
            assert flat(option.text) in text and flat(option.explanation) in text
