"""Explain-it as the new-user review met it (issue 23, N1, N2, N20): `studyapp explain` opens styled,
everything after Ctrl+S is reachable with the keyboard at 80×24, and a draft survives Esc,
Ctrl+B/N and a restart; leaving with ticks not saved asks first.

The prompts are picked from whatever content the fixtures load (the longest model answer), so
these tests do not depend on one prompt's words.
"""

from __future__ import annotations

from typing import Any

from studyapp.content.explain import ExplainPrompt, load_explain
from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.explain import history, load_draft, save_draft
from studyapp.tui.screens.confirm import ConfirmScreen
from studyapp.tui.screens.explain import ExplainScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text

DRAFT = "asyncio는 한 스레드에서 이벤트 루프로 I/O를 기다린다"


def longest_prompt(content: Content) -> ExplainPrompt:
    """The prompt whose model answer is longest: the one that overflowed 80×24 in the review."""
    return max(load_explain(content), key=lambda p: len(p.model_answer) + 40 * len(p.key_points))


def prompt_with_siblings(content: Content) -> ExplainPrompt:
    return load_explain(content)[0]


async def open_explain(app: Any, pilot: Any) -> ExplainScreen:
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ExplainScreen)
    return screen


async def type_text(pilot: Any, text: str) -> None:
    await pilot.press(*[("space" if ch == " " else ch) for ch in text])


async def test_studyapp_explain_is_styled_and_scrolls_to_the_saved_line_at_80x24(
    make: Any, content: Content, store: ProgressStore
) -> None:
    prompt = longest_prompt(content)
    app = make(start=f"explain:{prompt.id}")
    async with app.run_test(size=SIZE) as pilot:
        await open_explain(app, pilot)
        text = screen_text(app)
        # explain.tcss is loaded: the prompt sits in a rounded box, as from Home `d` (N1)
        assert "╭" in text and "╰" in text
        await type_text(pilot, "peak memory")
        await pilot.press("enter")
        await type_text(pilot, "wall vs CPU time")
        await pilot.press("ctrl+s")
        await pilot.pause()
        # after submitting: both answers, side by side, and the key bar says what ^s does now
        text = flat(screen_text(app))
        assert flat("내 답") in text and flat("모범 답안") in text and flat("wallvsCPUtime") in text
        assert flat("^s 저장") in text and flat("^s 답 제출") not in text
        # the key points are below the fold; End reaches them with no Tab first (N1)
        heading = flat(app.t("explain.points_heading"))[:12]
        assert heading not in flat(screen_text(app))
        await pilot.press("end")
        await pilot.pause()
        assert heading in flat(screen_text(app))
        last_point = flat(f"{len(prompt.key_points)}. {prompt.key_points[-1]}")[:16]
        assert last_point in flat(screen_text(app))
        await pilot.press("home")  # and back up to the model answer
        await pilot.pause()
        assert flat("모범 답안") in flat(screen_text(app))
        await pilot.press("1", "ctrl+s")
        await pilot.pause()
        await pilot.pause()
        # the saved line is on screen, not drawn over the model answer (N1)
        text = flat(screen_text(app))
        assert flat("저장함: 핵심 포인트 1/") in text and flat("n 다른 문제") in text
        assert_fits(app)
        (saved,) = history(store, prompt.id)
        assert saved.covered == (0,)
        assert load_draft(store, prompt.id) == ""  # saved answers leave no draft behind
        await pilot.press("pageup")  # the body keeps the focus: the answers can be read again
        await pilot.pause()
        assert app.screen.focused is not None and app.screen.focused.id == "explain-body"


async def test_the_exam_intro_opened_by_quiz_mode_exam_is_styled(
    make: Any, content: Content, store: ProgressStore
) -> None:
    from studyapp.quiz.exam import ExamSession, ExamSettings
    from studyapp.tui.screens.exam import ExamIntroScreen

    session = ExamSession(content, store, ExamSettings(count=5, seed=3))
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        first = next(line for line in screen_text(app).splitlines() if "모의고사:" in line)
        assert first.startswith("  ")  # exam.tcss pads the intro (unstyled, it starts at column 0)


async def test_a_draft_survives_esc_switching_and_a_restart(
    make: Any, content: Content, store: ProgressStore
) -> None:
    prompt = prompt_with_siblings(content)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("d")
        screen = await open_explain(app, pilot)
        first = screen.prompt
        await type_text(pilot, DRAFT)
        await pilot.press("escape")  # nothing to lose: no question asked, the draft is stored
        await pilot.pause()
        assert not isinstance(app.screen, (ExplainScreen, ConfirmScreen))
        assert load_draft(store, first.id) == DRAFT
        await pilot.press("d")
        screen = await open_explain(app, pilot)
        assert screen.prompt.id == first.id
        assert flat(DRAFT) in flat(screen_text(app))  # back in the box
        assert flat(app.t("explain.draft_restored"))[:10] in flat(screen_text(app))
        await type_text(pilot, " 더")
        await pilot.press("ctrl+n")  # another prompt: this one's draft is kept
        await pilot.pause()
        assert screen.prompt.id != first.id and flat(DRAFT) not in flat(screen_text(app))
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert screen.prompt.id == first.id
        assert flat(DRAFT + " 더") in flat(screen_text(app))
        await type_text(pilot, "!")
    # the app closed (as ctrl+q would): the last keys are kept, and a new app shows them
    assert load_draft(store, first.id) == DRAFT + " 더!"
    again = make(start=f"explain:{first.id}")
    async with again.run_test(size=SIZE) as pilot:
        await open_explain(again, pilot)
        assert flat(DRAFT + " 더!") in flat(screen_text(again))
    assert prompt is not None


async def test_the_draft_is_written_a_moment_after_typing_stops(
    make: Any, content: Content, store: ProgressStore
) -> None:
    prompt = prompt_with_siblings(content)
    app = make(start=f"explain:{prompt.id}")
    async with app.run_test(size=SIZE) as pilot:
        await open_explain(app, pilot)
        await type_text(pilot, "abc")
        await pilot.pause(1.6)  # a crash now would still keep it
        assert load_draft(store, prompt.id) == "abc"


async def test_leaving_with_ticks_not_saved_asks_and_can_stay(
    make: Any, content: Content, store: ProgressStore
) -> None:
    prompt = prompt_with_siblings(content)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("d")
        screen = await open_explain(app, pilot)
        prompt = screen.prompt
        await type_text(pilot, DRAFT)
        await pilot.press("ctrl+s", "1")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        text = flat(screen_text(app))
        assert (
            flat("저장하지 않고 나갈까요?") in text
            and flat("⏎ 나가기") in text
            and flat("esc 머무르기") in text
        )
        await pilot.press("escape")  # stay: the ticks are still there
        await pilot.pause()
        assert app.screen is screen and screen.session.covered == {0}
        await pilot.press("ctrl+q")  # quitting asks too
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape", "enter")  # leave: the answer is still a draft
        await pilot.pause()
        assert not isinstance(app.screen, (ExplainScreen, ConfirmScreen))
        assert load_draft(store, prompt.id) == DRAFT and history(store, prompt.id) == []


async def test_a_stored_draft_opens_in_the_box(make: Any, content: Content, store: ProgressStore) -> None:
    prompt = prompt_with_siblings(content)
    save_draft(store, prompt.id, "어제 쓰던 답")
    app = make(start=f"explain:{prompt.id}", lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await open_explain(app, pilot)
        assert flat("어제 쓰던 답") in flat(screen_text(app))
        assert flat("Your draft is back") in flat(screen_text(app))
