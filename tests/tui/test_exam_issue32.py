"""The mock exam screens, issue 32: the result says which pass rule decided; the intro offers an
unfinished attempt wherever it is opened (`c`, shown in the key bar); a resume says it is one; the
quit confirmation says how to resume; a resumed exam keeps its glossary questions."""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import KIND_OX, ExamSession, ExamSettings
from studyapp.quiz.presenting import topic_path
from studyapp.tui.screens.exam import ExamScreen
from studyapp.tui.screens.exam_result import ExamResultScreen
from tests.tui.helpers import SIZE, flat, screen_text


def wrong(answer: str) -> str:
    return "x" if answer == "O" else "o"


async def test_the_result_screen_names_the_topic_that_failed_the_cutoff(
    make: Any, content: Content, store: ProgressStore
) -> None:
    session = ExamSession(content, store, ExamSettings(count=6, kind=KIND_OX, seed=4, topic_cutoff=0.5))
    weak = session.questions[0].topic
    topics = [q.topic for q in session.questions]
    assert 1 <= topics.count(weak) <= 2 and len(set(topics)) > 1
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen)
        for question in session.questions:
            await pilot.press(wrong(question.answer) if question.topic == weak else question.answer.lower())
        await pilot.press("s", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamResultScreen)
        text = flat(screen_text(app))
        assert flat("불합격") in text
        assert flat(f"과락: 토픽 {topic_path(content, weak)} 0% < 50%") in text
