"""Snapshots at 80×24 of home, a question, its feedback, a card and a summary.

Deterministic: a seeded session, a fixed clock and time zone, no cursor blink (conftest). These
tests are synchronous, with interactions in `run_before`, as pytest-textual-snapshot requires.
Update after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

from studyapp.quiz.engine import SessionOptions
from tests.tui.helpers import SIZE

SESSION = SessionOptions(seed=7, include_drills=False, count=5)


def test_home(snap_compare: Any, make: Any) -> None:
    assert snap_compare(make(), terminal_size=SIZE)


def test_question(snap_compare: Any, make: Any) -> None:
    assert snap_compare(make(start="quiz", options=SESSION), terminal_size=SIZE)


def test_feedback(snap_compare: Any, make: Any) -> None:
    async def answer_wrong(pilot: Any) -> None:
        await pilot.pause()
        question = pilot.app.screen.question
        await pilot.press("x" if question.answer == "O" else "o")

    assert snap_compare(make(start="quiz", options=SESSION), terminal_size=SIZE, run_before=answer_wrong)


def test_card(snap_compare: Any, make: Any) -> None:
    async def open_card(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = pilot.app.screen
        screen.show("torch-profiler", "definition")
        screen.query_one("#card-tree").move_cursor(screen._tree_nodes[("torch-profiler", "definition")])
        await pilot.pause()

    assert snap_compare(make(), terminal_size=SIZE, run_before=open_card)


def test_summary(snap_compare: Any, make: Any) -> None:
    async def answer_three(pilot: Any) -> None:
        await pilot.pause()
        screen = pilot.app.screen
        for index in range(3):
            answer = screen.question.answer
            right = index != 1
            key = answer if right else ("X" if answer == "O" else "O")
            await pilot.press(key.lower(), "enter")
        await pilot.press("q")
        await pilot.pause()

    assert snap_compare(make(start="quiz", options=SESSION), terminal_size=SIZE, run_before=answer_three)
