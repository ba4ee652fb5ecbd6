"""The exercises screen with Pilot, on the toy exercise (tests/exercise_fixture via STUDYAPP_LABS):
list with status, start, check with live requirements, hints one at a time, the solution after a
pass, the workspace path; reachable from home, the command palette, the labs and checklist screens."""

from __future__ import annotations

import asyncio
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.widgets import DataTable

from studyapp.progress import exercise_store
from studyapp.progress.store import ProgressStore
from studyapp.tui.screens.exercises import ExercisesScreen
from studyapp.tui.widgets.run_panel import RunFinished, RunProgress
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text

FIXTURE_LABS = Path(__file__).resolve().parent.parent / "exercise_fixture" / "labs"
SOLVED = '"""Write add(a, b)."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'


@pytest.fixture
def toy_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    labs = tmp_path / "toylabs" / "labs"
    shutil.copytree(FIXTURE_LABS, labs)
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    return labs


async def wait_for(pilot: Any, condition: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await pilot.pause(0.05)


async def open_exercises(app: Any, pilot: Any) -> ExercisesScreen:
    await pilot.pause()
    await pilot.press("x")
    await pilot.pause()
    assert isinstance(app.screen, ExercisesScreen)
    return app.screen


async def check(app: Any, pilot: Any, screen: ExercisesScreen) -> None:
    await pilot.press("c")
    await wait_for(pilot, lambda: screen.running is None and screen.query(".exs-verdict"))
    await pilot.pause()


def detail_text(app: Any, screen: ExercisesScreen) -> str:
    """Everything in the detail pane, scrolled through (it is taller than the terminal)."""
    from rich.console import Console

    console = Console(width=100, record=True, file=io.StringIO())
    texts = []
    for widget in screen.query("#exs-detail Static"):
        content = widget.content
        if isinstance(content, str):
            texts.append(content)
        elif hasattr(content, "plain"):  # Textual Content / rich Text
            texts.append(content.plain)
        else:  # a rich renderable (the README and hints are rendered markdown)
            console.print(content)
            texts.append(console.export_text())
    return flat("\n".join(texts))


async def test_start_check_hints_and_solution(make: Any, toy_labs: Path, store: ProgressStore) -> None:
    seen: list[Message] = []
    app = make()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_exercises(app, pilot)
        text = screen_text(app)
        assert "toy-sum" in text and "시작 전" in text and "두 수 더하기" in text
        assert screen.query_one("#exs-table", DataTable).row_count == 1
        assert "s를 눌러" in text
        assert_fits(app)

        await pilot.press("s")
        await pilot.pause()
        workspace = store.path.parent / "exercises" / "toy-sum"
        assert (workspace / "adder.py").is_file()
        assert exercise_store.workspace(store, "toy-sum") == workspace
        assert flat(str(workspace)) in flat(screen_text(app))

        await check(app, pilot, screen)
        events = [m for m in seen if isinstance(m, RunProgress)]
        assert [m.event.requirement.name for m in events if m.event.requirement] == [
            "adds small numbers",
            "adds negative numbers",
        ]  # streamed while the checker ran
        assert any(isinstance(m, RunFinished) and m.outcome.verdict == "failed" for m in seen)
        body = detail_text(app, screen)
        assert flat("✗ adds small numbers") in body and flat('File "adder.py", line 6') in body
        assert "아직" in screen_text(app)
        assert [c.verdict for c in exercise_store.checks(store, "toy-sum")] == ["failed"]

        await pilot.press("v")  # locked before a pass
        await pilot.pause()
        assert not screen.query("#exs-solution Static")
        assert any("통과한 뒤" in str(n.message) for n in app._notifications)

        await pilot.press("h")
        await pilot.pause()
        body = detail_text(app, screen)
        assert flat("힌트 1/2") in body and flat("return a + b") not in body
        await pilot.press("h")
        await pilot.pause()
        assert flat("힌트 2/2") in detail_text(app, screen)
        assert exercise_store.hints_revealed(store, "toy-sum") == 2

        (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
        await check(app, pilot, screen)
        assert flat("✓ adds small numbers") in detail_text(app, screen)
        assert "통과" in screen_text(app)
        assert [c.verdict for c in exercise_store.checks(store, "toy-sum")] == ["failed", "passed"]

        await pilot.press("v")
        await pilot.pause()
        assert flat("모범 답안 ·") in detail_text(app, screen) and flat("── adder.py ──") in detail_text(
            app, screen
        )
        (source,) = screen.query(".exs-source")
        assert "return a + b" in source.content.code  # the solution file, highlighted
        assert "return a + b" in screen_text(app)
        assert exercise_store.solution_seen_at(store, "toy-sum") is not None

        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == str(workspace)
        assert_fits(app)


async def test_start_refuses_to_overwrite_edits(make: Any, toy_labs: Path, store: ProgressStore) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await open_exercises(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        adder = store.path.parent / "exercises" / "toy-sum" / "adder.py"
        adder.write_text("# mine\n", encoding="utf-8")
        await pilot.press("s")
        await pilot.pause()
        assert adder.read_text(encoding="utf-8") == "# mine\n"
        assert any("--force" in str(n.message) for n in app._notifications)


async def test_cancel_stops_a_hanging_check(
    make: Any, toy_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOY_CHECKER_MODE", "hang")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_exercises(app, pilot)
        await pilot.press("s")
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.running is not None)
        await pilot.pause(0.5)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.running is None, timeout=15)
        assert [c.verdict for c in exercise_store.checks(store, "toy-sum")] == ["interrupted"]
        assert isinstance(app.screen, ExercisesScreen)  # esc stopped the check, it did not leave


async def test_reachable_from_the_palette(make: Any, toy_labs: Path) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        for key in "Exercises":
            await pilot.press(key)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ExercisesScreen), timeout=10)
        await pilot.pause()  # switched is not painted yet on a busy machine
        assert "Add two numbers" in screen_text(app)


async def test_labs_screen_links_each_lab_to_its_exercises(make: Any, toy_labs: Path) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        assert "과제: toy-sum (e)" in screen_text(app)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExercisesScreen) and screen.lab == "toy"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ExercisesScreen)


async def test_checklist_shows_the_exercise_that_would_raise_an_item(make: Any, toy_labs: Path) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        table = app.screen.query_one("#checklist-table", DataTable)
        ids = [row.value for row in table.rows]
        table.move_cursor(row=ids.index("amdahl"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("과제 toy-sum: 시작 전") in text


async def test_no_exercises_is_one_calm_line(make: Any, fake_labs: Path) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await open_exercises(app, pilot)
        assert "과제가 없습니다" in screen_text(app)
        await pilot.press("c")  # nothing to check: no crash
        await pilot.pause()


async def test_open_hands_the_workspace_to_the_file_manager_without_an_editor(
    make: Any, toy_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")  # a desktop session (without one `o` says so: issue 23, N10)
    opened: list[str] = []
    app = make()
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await open_exercises(app, pilot)
        await pilot.press("o")  # not started yet: nothing to open
        await pilot.pause()
        assert opened == []
        await pilot.press("s")
        await pilot.press("o")
        await pilot.pause()
        workspace = store.path.parent / "exercises" / "toy-sum"
        assert opened == [workspace.as_uri()]


def test_exercises_screen_snapshot(snap_compare: Any, make: Any, toy_labs: Path) -> None:
    async def open_screen(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()

    assert snap_compare(make(), terminal_size=SIZE, run_before=open_screen)


async def test_a_pass_against_an_older_checker_is_marked(
    make: Any, toy_labs: Path, store: ProgressStore
) -> None:
    exercise_store.record_check(store, "toy-sum", "0000000000000000", "passed", {}, 0.1)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await open_exercises(app, pilot)
        text = screen_text(app)
        assert "통과 *" in text and "* 검사기 바뀜: 다시 검사하세요" in text
