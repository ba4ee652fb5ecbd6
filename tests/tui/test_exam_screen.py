"""The mock exam and explain-it screens driven like a learner (Pilot): the intro, a visible
countdown on the test clock, flag and jump, no feedback and no lookups before the end, the
confirmation, auto-submit at time-out, the result; explain-it from Home and from the checklist."""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz import explain
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.questions import KIND_OX
from studyapp.tui.screens.checklist import ChecklistScreen
from studyapp.tui.screens.exam import ConfirmSubmit, ExamIntroScreen, ExamScreen
from studyapp.tui.screens.exam_result import ExamResultScreen
from studyapp.tui.screens.explain import ExplainScreen
from studyapp.tui.screens.help import HelpScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text

TICK_WAIT = 0.6  # a few of ExamScreen.TICK_S


def ox_session(content: Content, store: ProgressStore, **settings: Any) -> ExamSession:
    options = {"count": 5, "kind": KIND_OX, "seed": 4, **settings}
    return ExamSession(content, store, ExamSettings(**options))


async def test_home_opens_the_intro_and_its_keys_change_the_settings(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        text = flat(screen_text(app))
        # 30 asked; the fixture bank builds as many clean 4-choice questions as it can (the intro
        # says so when that is fewer), and the time limit is a minute a question built.
        built = app.screen.session.total
        assert 0 < built <= 30 and app.screen.session.requested == 30
        assert (
            flat(f"{built}문항") in text
            and flat("합격선 60%") in text
            and flat(f"제한 시간 {built}:00") in text
        )
        assert flat("복습 일정(FSRS)을 바꾸지 않습니다") in text
        await pilot.press("p", "t", "n", "s")
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("합격선 70%") in text and app.screen.session.requested == 40
        assert flat("이 시험의 답은 복습 일정(FSRS)에 반영됩니다") in text
        assert app.screen.session.settings.schedule
        assert_fits(app)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ExamIntroScreen)


async def test_countdown_flags_jumps_and_no_feedback_until_the_result(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    session = ox_session(content, store, time_limit_s=300)
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        assert "⏱ 05:00" in screen_text(app) and "1/5" in screen_text(app)
        clock.advance(seconds=65)
        await pilot.pause(TICK_WAIT)
        assert "⏱ 03:55" in screen_text(app)  # the countdown moves with the clock
        first = session.questions[0]
        await pilot.press("x" if first.answer == "O" else "o")  # a wrong answer: nothing is said
        text = screen_text(app)
        assert "2/5" in text and "정답" not in text and first.explanation[:20] not in flat(text)
        await pilot.press("left")  # back to 1: the answer is marked, still no verdict
        assert "▶" in screen_text(app) and "정답" not in screen_text(app)
        await pilot.press("right", "f")  # flag question 2
        assert session.flags == {1} and "⚑" in screen_text(app)
        await pilot.press("c", "l", "f3")  # no card, no lab, no section change during the exam
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("g", "4", "enter")  # jump
        await pilot.pause()
        assert session.position == 3 and "4/5" in screen_text(app)
        await pilot.press("1")  # O for an O/X question, as in the quiz
        assert session.answers == {0: "X" if first.answer == "O" else "O", 3: "O"}
        assert store.review_count() == 0
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSubmit)
        assert flat("답하지 않은 문항 3개, 검토 표시 1개") in flat(screen_text(app))
        await pilot.press("escape")  # keep going
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("s", "enter")
        await pilot.pause()
        result_screen = app.screen
        assert isinstance(result_screen, ExamResultScreen)
        text = flat(screen_text(app))
        assert flat("결과:") in text and flat("불합격") in text and flat("합격선 60%") in text
        assert flat("사용 시간: 01:05 / 05:00") in text
        assert flat(first.stem[:30]) in text  # the review starts with miss 1
        assert_fits(app)
        (attempt,) = exams.attempts(store)
        assert attempt.finished and attempt.answered == 2 and store.review_count() == 0


async def test_the_exam_submits_itself_at_the_time_limit(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    session = ox_session(content, store, time_limit_s=5)
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("o")
        await pilot.press("s")  # the learner is hesitating in the confirmation…
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSubmit)
        clock.advance(seconds=6)  # …when the time runs out
        await pilot.pause(TICK_WAIT)
        assert isinstance(app.screen, ExamResultScreen)
        await pilot.pause()  # pushed by the clock's tick, not painted yet on a busy machine
        assert flat("시간 종료로 자동 제출") in flat(screen_text(app))
        (attempt,) = exams.attempts(store)
        assert attempt.finished and attempt.settings["auto_submitted"] is True and attempt.answered == 1


async def test_retrying_the_misses_starts_a_new_exam_of_them(
    make: Any, content: Content, store: ProgressStore
) -> None:
    session = ox_session(content, store)
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(session.questions[0].answer.lower())  # one right, four unanswered
        await pilot.press("s", "enter")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        intro = app.screen
        assert isinstance(intro, ExamIntroScreen) and intro.session.total == 4
        assert intro.session.settings.retry_of == session.attempt_id


async def test_explain_it_from_the_checklist(make: Any, store: ProgressStore) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.switch_mode("checklist")
        await pilot.pause()
        checklist = app.screen
        assert isinstance(checklist, ChecklistScreen)
        checklist.selected = "concurrency-models"
        checklist.show_detail()
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExplainScreen) and screen.prompt.checklist == "concurrency-models"
        model_start = screen.prompt.model_answer[:25]
        assert flat(model_start) not in flat(screen_text(app))  # hidden until you have written
        await pilot.press("ctrl+s")
        assert "답이 비어 있습니다" in screen_text(app)
        await pilot.press(*"asyncio: one loop", "enter", *"threads: GIL")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert flat(model_start) in flat(screen_text(app))
        await pilot.press("1", "3")
        await pilot.press("ctrl+s")
        await pilot.pause()
        (result,) = explain.history(store)
        assert result.covered == (0, 2) and result.answer_text == "asyncio: one loop\nthreads: GIL"
        assert flat("저장함: 핵심 포인트 2/") in flat(screen_text(app))
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is checklist
        # the evidence sits under the next step now (N3): scroll the detail to it
        checklist.query_one("#checklist-detail").scroll_end(animate=False)
        await pilot.pause()
        text = flat(screen_text(app))
        # the evidence line on the checklist, saying how many of the item's prompts were answered (N31)
        assert flat("설명하기: 문제 1/") in text and flat("핵심 포인트 평균") in text


async def test_home_d_opens_explain_it_and_help_lists_the_new_screens(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ExplainScreen)
        assert_fits(app)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = "\n".join(str(w.render()) for w in app.screen.query(".help-section"))
        for title in ("모의고사 안내", "모의고사 풀기", "모의고사 결과", "설명하기"):
            assert title in help_text


async def test_studyapp_explain_id_opens_on_that_prompt_and_esc_goes_home(make: Any) -> None:
    from studyapp.tui.screens.home import HomeScreen

    app = make(start="explain:explain-pipeline-case")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExplainScreen) and screen.prompt.id == "explain-pipeline-case"
        # that prompt on screen; the title names the checklist item, not the internal id (N20)
        assert flat(screen.prompt.prompt[:24]) in flat(screen_text(app))
        assert "explain-pipeline-case" not in screen_text(app) and flat("설명하기·체크리스트") in flat(
            screen_text(app)
        )
        await pilot.press("ctrl+n")  # the next prompt, before writing
        assert screen.prompt.id != "explain-pipeline-case"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_stats_lists_attempts_and_r_retries_the_last_misses(
    make: Any, content: Content, store: ProgressStore
) -> None:
    session = ox_session(content, store)
    session.answer(session.questions[0].answer)
    session.submit()  # 1/5: four misses
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.switch_mode("stats")
        await pilot.pause()
        body = app.screen.query_one("#stats-body")
        body.scroll_end(animate=False)
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("모의고사 기록") in text and session.attempt_id[:8] in text and flat("1/5 (20%)") in text
        await pilot.press("r")
        await pilot.pause()
        intro = app.screen
        assert isinstance(intro, ExamIntroScreen) and intro.session.total == 4
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "StatsScreen"
