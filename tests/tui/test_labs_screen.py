"""The labs screen against a tiny fake lab (tmp_path labs dir, STUDYAPP_LABS): list, run with live
progress, results, the check question, cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.widgets import DataTable

from studyapp.progress.store import ProgressStore
from studyapp.tui.screens.check_question import CheckQuestionScreen
from studyapp.tui.screens.labs import LabsScreen
from studyapp.tui.widgets.run_panel import RunFinished, RunProgress
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text


async def open_labs(app: Any, pilot: Any) -> LabsScreen:
    await pilot.pause()
    await pilot.press("l")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, LabsScreen)
    return screen


async def wait_for(pilot: Any, condition: Any, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await pilot.pause(0.05)


async def test_lists_labs_with_last_result(make: Any, fake_labs: Path, store: ProgressStore) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        text = screen_text(app)
        assert "fake" in text and "가짜 실습" in text and "성능 병목 분석" in text  # topic titles, not ids
        assert "실행 안 함" in text
        assert "테스트용 실습이다." in text
        assert screen.query_one("#labs-table", DataTable).row_count == 1
        assert_fits(app)


async def test_run_shows_progress_results_and_asks_the_check_question(
    make: Any, fake_labs: Path, store: ProgressStore
) -> None:
    seen: list[Message] = []
    app = make()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: isinstance(app.screen, CheckQuestionScreen))
        await pilot.pause()  # pushed is not painted: on a busy machine the first read saw nothing
        progress = [m for m in seen if isinstance(m, RunProgress)]
        assert [m.event.message for m in progress] == ["단계 1/3", "단계 2/3", "단계 3/3"]
        assert any(isinstance(m, RunFinished) and m.outcome.status == "ok" for m in seen)
        runs = store.lab_runs("fake")
        assert [r.status for r in runs] == ["ok"]

        assert "작업자를 두 배로 늘리면 이 가짜 작업의 시간은" in screen_text(app)
        await pilot.press("o")
        assert store.lab_answers()["fake"][0] is True
        assert "정답입니다" in screen_text(app) and "완전히 병렬" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen

        text = screen_text(app)
        assert "가짜 실습 완료 [b]굵게 아님[/b]" in text  # results are text, never markup
        assert "측정 결과" in text and "10.5" in text and "5.25" in text
        assert "성공" in text  # the list shows the last result
        await pilot.press("end")
        body = flat(screen_text(app))
        screen.query_one("#lab-detail").scroll_end(animate=False)
        await pilot.pause()
        body += flat(screen_text(app))
        assert flat("작업자를 두 배로 늘리면 시간이 절반이 된다.") in body


async def test_escape_cancels_a_running_lab(
    make: Any, fake_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LAB_STEPS", "1000")
    monkeypatch.setenv("FAKE_LAB_PAUSE", "0.05")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: "단계" in screen_text(app))
        assert screen.running == "fake"
        assert "측정" in screen_text(app)  # the phase, live
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: screen.running is None)
        assert [r.status for r in store.lab_runs("fake")] == ["cancelled"]
        assert isinstance(app.screen, LabsScreen)  # no check question after a cancelled run
        await wait_for(pilot, lambda: "취소" in screen_text(app))


async def test_a_crashing_lab_reports_one_line(make: Any, fake_labs: Path, store: ProgressStore) -> None:
    (fake_labs / "fake" / "__main__.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await open_labs(app, pilot)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await wait_for(
            pilot, lambda: bool(store.lab_runs("fake")) and store.lab_runs("fake")[-1].status != "running"
        )
        assert store.lab_runs("fake")[-1].status == "failed"
        await wait_for(pilot, lambda: "exit code 1" in screen_text(app))  # the one line, on screen
        assert isinstance(app.screen, LabsScreen)


async def test_results_stay_on_screen_for_a_lab_below_the_first(
    make: Any, fake_labs: Path, store: ProgressStore
) -> None:
    import shutil

    shutil.copytree(fake_labs / "fake", fake_labs / "another")  # sorts first in the list
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("down")
        await pilot.pause()
        assert screen.selected == "fake"
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: isinstance(app.screen, CheckQuestionScreen))
        await pilot.press("escape")
        await pilot.pause()
        assert screen.selected == "fake"
        assert "측정 결과" in screen_text(app)  # refreshing the list did not wipe the results


def ox_question(answer: str) -> Any:
    from studyapp.quiz.questions import Question

    return Question(
        id="t-bg-1",
        kind="ox",
        topic="bottleneck-analysis",
        prompt="파이프라인 처리량은 가장 빠른 단계가 정한다.",
        answer=answer,
        explanation="가장 느린 단계가 정한다.",
    )


async def test_a_lab_finishing_during_a_quiz_never_takes_its_keys(
    make: Any, fake_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """M1: start a lab, go to a quiz, let the lab finish, press x: the quiz gets the answer."""
    from studyapp.quiz.engine import SessionOptions
    from studyapp.tui.screens.quiz import FEEDBACK, QuizScreen

    monkeypatch.setenv("FAKE_LAB_STEPS", "10")
    monkeypatch.setenv("FAKE_LAB_PAUSE", "0.1")
    seen: list[Message] = []
    app = make(lang="en")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        labs = await open_labs(app, pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: labs.running == "fake")
        await pilot.press("f2")
        await pilot.pause()
        app.start_quiz(SessionOptions(), questions=[ox_question("X")])
        await pilot.pause()
        quiz = app.screen
        assert isinstance(quiz, QuizScreen)
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: labs.running is None)
        await pilot.pause()
        assert app.screen is quiz  # no modal over the quiz
        assert not any(isinstance(s, CheckQuestionScreen) for s in app.screen_stack)
        assert any("fake finished" in n.message and "Labs" in n.message for n in app._notifications)
        await pilot.press("x")
        await pilot.pause()
        assert quiz.state == FEEDBACK and store.reviews()[0].correct  # the quiz took the x
        assert store.lab_answers() == {}  # the lab's question was not answered by accident

        await pilot.press("q")  # end the session, then Labs: the question waits there
        await pilot.pause()
        app.close_session()
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, CheckQuestionScreen))
        await pilot.press("o")
        assert store.lab_answers()["fake"][0] is True
        await pilot.press("enter")
        await pilot.pause()

        monkeypatch.setenv("FAKE_LAB_STEPS", "1")
        await pilot.press("r")  # the same question version is not asked again
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: labs.running is None and len(store.lab_runs("fake")) == 2)
        await pilot.pause()
        assert app.screen is labs
        await pilot.press("a")  # but it can be asked on request
        await pilot.pause()
        assert isinstance(app.screen, CheckQuestionScreen)


async def test_last_results_come_back_after_moving_the_cursor(
    make: Any, fake_labs: Path, store: ProgressStore
) -> None:
    import shutil

    shutil.copytree(fake_labs / "fake", fake_labs / "another")
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("down", "r")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: isinstance(app.screen, CheckQuestionScreen))
        await pilot.press("escape", "up")
        await pilot.pause()
        assert screen.selected == "another" and "측정 결과" not in screen_text(app)
        await pilot.press("down")
        await pilot.pause()
        assert "Last results (ok" in screen_text(app) and "측정 결과" in screen_text(app)


WIDE_RESULT = {
    "summary": "Bias-variance decomposition",
    "tables": [
        {
            "title": "Bias-variance 분해",
            "columns": [
                "degree",
                "loss",
                "bias2",
                "variance",
                "identity_residual",
                "true_bias2",
                "noise",
                "noise_residual",
                "verdict",
            ],
            "rows": [
                [1, 0.2718, 0.2633, 0.008492, 0, 0.1844, 0.09, 0.0, "underfit"],
                [4, 0.1012, 0.0901, 0.0111, 0, 0.0101, 0.09, 0.0, "best"],
                [12, 0.8366, 0.1343, 0.7024, 0, 0.05446, 0.09, 0.0, "overfit"],
            ],
        }
    ],
    "findings": ["degree 4 has the lowest loss."],
    "plots": [],
    "artifacts": {},
}


def seed_wide_run(store: ProgressStore) -> None:
    uid = store.start_lab_run("fake", "/tmp/studyapp-artifacts/fake")
    store.finish_lab_run(uid, "ok", "done", WIDE_RESULT)


async def test_wide_result_tables_put_the_verdict_first_and_scroll_sideways(
    make: Any, fake_labs: Path, store: ProgressStore
) -> None:
    """M3: at 80 columns the verdict is visible, and the cut columns can be reached with ←/→."""
    seed_wide_run(store)
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        table = screen.query_one(".lab-table", DataTable)
        screen.query_one("#lab-detail").scroll_to_widget(table, animate=False, top=True)
        await pilot.pause()
        text = screen_text(app)
        assert "verdict" in text and "underfit" in text and "overfit" in text
        assert "noise_residual" not in text  # cut at 80 columns …
        assert "Tabtothetable" in flat(text)  # a visible way to the cut columns
        assert table.can_focus
        table.focus()
        await pilot.pause()
        for _ in range(40):
            await pilot.press("right")
        await pilot.pause(0.5)
        assert table.scroll_x > 0
        assert "noise_residual" in screen_text(app)  # … and reachable from the keyboard


async def test_a_run_left_running_by_a_quit_is_closed_later(
    make: Any, fake_labs: Path, store: ProgressStore, clock: Any
) -> None:
    """m2: a run still "running" long past its lab's time limit is recorded as cancelled."""
    uid = store.start_lab_run("fake", None)
    clock.advance(minutes=10)  # the fake lab's limit is 60 s
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await open_labs(app, pilot)
        assert [(r.uid, r.status) for r in store.lab_runs("fake")] == [(uid, "cancelled")]
        assert "cancelled" in screen_text(app) and "running" not in screen_text(app)


async def test_a_runner_that_raises_ends_the_run_as_failed(
    make: Any, fake_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run panel turns a job that raises into a RunFinished with the error: recorded, shown."""
    from studyapp.labrunner import runner

    def broken_run_lab(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("planted runner fault")

    monkeypatch.setattr(runner, "run_lab", broken_run_lab)
    seen: list[Message] = []
    app = make(lang="en")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: any(isinstance(m, RunFinished) for m in seen))
        await wait_for(pilot, lambda: screen.running is None)
        (finished,) = [m for m in seen if isinstance(m, RunFinished)]
        assert finished.outcome is None and "planted runner fault" in str(finished.error)
        assert [(r.status, r.summary) for r in store.lab_runs("fake")] == [("failed", "planted runner fault")]
        assert any("planted runner fault" in str(n.message) for n in app._notifications)
        assert not screen.query_one("#lab-run").display and isinstance(app.screen, LabsScreen)
