"""The mock exam screens, issue 32: the result says which pass rule decided; the intro offers an
unfinished attempt wherever it is opened (`c`, shown in the key bar); a resume says it is one; the
quit confirmation says how to resume; a resumed exam keeps its glossary questions."""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.exam_resume import resume_session
from studyapp.quiz.presenting import topic_path
from studyapp.quiz.questions import KIND_OX
from studyapp.tui.screens.exam import ExamIntroScreen, ExamScreen
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


def interrupted(content: Content, store: ProgressStore, **settings: Any) -> ExamSession:
    """An attempt with one answer that ended without a submit (the terminal closed)."""
    session = ExamSession(
        content, store, ExamSettings(**{"count": 5, "kind": KIND_OX, "seed": 4, **settings})
    )
    session.start()
    session.answer(session.questions[0].answer)
    session.release()  # the terminal closed: its hold on the attempt is gone
    return session


async def test_the_shell_intro_offers_the_unfinished_exam_and_its_key_bar_shows_c(
    make: Any, content: Content, store: ProgressStore
) -> None:
    """m4 + c4: `studyapp quiz --mode exam` opens the intro of a new exam; the unfinished one is
    offered as on Home, `c` is in the key bar at 80 columns and takes it up."""
    old = interrupted(content, store)
    fresh = ExamSession(content, store, ExamSettings(count=5, kind=KIND_OX, seed=9))
    app = make(start="exam", options=fresh)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        text = screen_text(app)
        assert flat(f"제출하지 않고 끝난 모의고사 {old.attempt_id[:8]}가 있습니다 (답 1/5") in flat(text)
        key_bar = text.splitlines()[-1]
        assert "c 이어 풀기" in key_bar
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen) and screen.session.attempt_id == old.attempt_id
        assert screen.session.answers == {0: old.questions[0].answer}


async def test_a_resume_intro_says_so_and_offers_no_settings(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    """m4: `--resume` opens an intro that names the attempt and what it has left, without `n`."""
    old = interrupted(content, store, time_limit_s=300)
    clock.advance(seconds=40)
    old.answer("O")  # saved at 0:40 used
    old.release()
    clock.advance(hours=2)
    resumed = resume_session(content, store, exams.attempts(store)[-1])
    app = make(start="exam", options=resumed)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        text = screen_text(app)
        assert flat(f"이어 풀기: 모의고사 {old.attempt_id[:8]} (답 1/5, 남은 시간 04:20)") in flat(text)
        key_bar = text.splitlines()[-1]
        assert "문항 수" not in key_bar and "이어 풀기" not in text.splitlines()[-2]
        assert "제출하지 않고 끝난" not in text  # no offer of itself
        await pilot.press("n", "t", "p")  # the settings of an attempt under way stay
        assert app.screen.session is resumed and resumed.total == 5
        clock.advance(seconds=30)  # reading the intro does not use the attempt's time
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen) and app.screen.session is resumed
        assert "⏱ 04:20" in screen_text(app)


async def test_ctrl_q_says_how_to_resume(make: Any, content: Content, store: ProgressStore) -> None:
    """m14: the quit confirmation says the attempt can be resumed within a day, from Home e → c."""
    session = ExamSession(content, store, ExamSettings(count=5, kind=KIND_OX, seed=4))
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("o", "ctrl+q")
        await pilot.pause()
        from textual.widgets import Static

        from studyapp.tui.screens.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)
        said = flat(" ".join(str(widget.render()) for widget in app.screen.query(Static)))
        assert (
            flat("지금까지의 답(1/5)은 저장되어 있습니다. 하루 안에 홈에서 e → c로 이어 풀 수 있습니다.")
            in said
        )
