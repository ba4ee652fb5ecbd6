"""The exercises screen as the new-user review met it (issue 23, N4, N5, N10, and the "would miss"
diff): what `h`, `v` and `d` open is on screen at 80×24, a started exercise says so, `o` without an
editor or desktop says what to do, and after a pass the learner's code is compared with the
solution."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from studyapp.exercises.compare import compare_with_solution
from studyapp.exercises.registry import discover
from studyapp.exercises.status import STARTED, all_statuses
from studyapp.progress.store import ProgressStore
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text
from tests.tui.test_exercises_screen import SOLVED, check, open_exercises, toy_labs

__all__ = ["toy_labs"]  # the fixture, shared with test_exercises_screen


async def test_a_hint_opened_below_a_failed_check_scrolls_into_view(
    make: Any, toy_labs: Path, store: ProgressStore
) -> None:
    app = make()
    # The toy exercise is short: a low window puts the hint below the fold as amdahl's did at 80×24.
    async with app.run_test(size=(80, 14)) as pilot:
        screen = await open_exercises(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        await check(app, pilot, screen)  # the failed check fills the pane
        await pilot.press("h")
        await pilot.pause()
        await pilot.pause()
        assert flat("힌트 1/2") in flat(screen_text(app))  # no Tab, no End needed
        await pilot.press("h")
        await pilot.pause()
        await pilot.pause()
        assert flat("힌트 2/2") in flat(screen_text(app))
        assert_fits(app)


async def test_started_shows_at_once_and_the_diff_after_a_pass(
    make: Any, toy_labs: Path, store: ProgressStore
) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_exercises(app, pilot)
        assert "d 비교" not in screen_text(app)  # nothing to compare before a pass
        await pilot.press("s")
        await pilot.pause()
        assert "시작함" in screen_text(app) and "시작 전" not in screen_text(app)
        workspace = store.path.parent / "exercises" / "toy-sum"
        (workspace / "adder.py").write_text(SOLVED.replace("a + b", "b + a"), encoding="utf-8")
        await check(app, pilot, screen)
        assert flat("d: 내 코드와 모범 답안 비교") in flat(screen_text(app)) or "d 비교" in screen_text(app)
        await pilot.press("d")
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        assert flat("내 코드 → 모범 답안") in flat(text) and flat("── adder.py ──") in flat(text)
        assert "-    return b + a" in text and "+    return a + b" in text
        assert_fits(app)


def test_status_and_comparison_without_the_tui(toy_labs: Path, store: ProgressStore, tmp_path: Path) -> None:
    exercises = discover()
    info = exercises["toy-sum"]
    workspace = store.path.parent / "exercises" / "toy-sum"
    workspace.mkdir(parents=True)
    assert all_statuses(exercises, store)["toy-sum"].status == STARTED  # the folder is there
    (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
    solution = (info.solution_dir / "adder.py").read_text(encoding="utf-8")
    (workspace / "adder.py").write_text(solution, encoding="utf-8")
    (change,) = compare_with_solution(info, workspace)
    assert change.same and change.name == "adder.py"
    (change,) = compare_with_solution(info, tmp_path)  # an empty folder
    assert change.missing and not change.same


async def test_open_without_an_editor_or_a_desktop_says_what_to_do(
    make: Any, toy_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("EDITOR", "VISUAL", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    opened: list[str] = []
    app = make()
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await open_exercises(app, pilot)
        await pilot.press("s", "o")
        await pilot.pause()
        workspace = store.path.parent / "exercises" / "toy-sum"
        assert opened == [] and app.clipboard == str(workspace)
        assert any("$EDITOR" in str(n.message) for n in app._notifications)
        assert not any("열었습니다" in str(n.message) for n in app._notifications)


async def test_after_a_pass_the_next_exercise_is_named_and_n_goes_there(
    make: Any, toy_labs: Path, store: ProgressStore
) -> None:
    """rustlings moves on after a pass: the screen names the next exercise on the study path (the
    checklist's order, as `exercise list` shows it) and `n` selects it."""
    second = toy_labs / "toy" / "exercises" / "toy-twice"
    shutil.copytree(toy_labs / "toy" / "exercises" / "toy-sum", second)
    meta = (second / "exercise.yaml").read_text(encoding="utf-8")
    meta = meta.replace("id: toy-sum", "id: toy-twice").replace("title: 두 수 더하기", "title: 두 번 더하기")
    (second / "exercise.yaml").write_text(meta.replace("order: 1", "order: 2"), encoding="utf-8")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_exercises(app, pilot)
        assert list(screen.exercises) == ["toy-sum", "toy-twice"] and screen.selected == "toy-sum"
        assert "n 다음 과제" not in screen_text(app)  # nothing to move on to before a pass
        await pilot.press("s")
        await pilot.pause()
        (store.path.parent / "exercises" / "toy-sum" / "adder.py").write_text(SOLVED, encoding="utf-8")
        await check(app, pilot, screen)
        assert flat("다음 과제: toy-twice — 두 번 더하기") in flat(screen_text(app))
        await pilot.press("n")
        await pilot.pause()
        assert screen.selected == "toy-twice"
        assert "두 번 더하기" in screen_text(app)
        assert_fits(app)
