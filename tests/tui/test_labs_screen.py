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
from studyapp.tui.screens.labs import CheckQuestionScreen, LabFinished, LabProgress, LabsScreen
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
        progress = [m for m in seen if isinstance(m, LabProgress)]
        assert [m.event.message for m in progress] == ["단계 1/3", "단계 2/3", "단계 3/3"]
        assert any(isinstance(m, LabFinished) and m.outcome.status == "ok" for m in seen)
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
