"""Snapshots at 80×24 of a 4-choice question and its feedback (a fixed question, not the bank).

New snapshot files only (tests/tui/__snapshots__/test_choice_snapshots/); after an intended
change: `pytest tests/tui/test_choice_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.quiz.engine import SessionOptions
from tests.tui.helpers import SIZE
from tests.tui.test_choice_screen import choice_question


def start_with(question: Any, keys: tuple[str, ...] = ()) -> Any:
    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.start_quiz(SessionOptions(mode="due"), questions=[question])
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()

    return run_before


def test_choice_question(snap_compare: Any, make: Any, content: Content) -> None:
    question = choice_question(content)
    assert snap_compare(make(), terminal_size=SIZE, run_before=start_with(question))


def test_choice_feedback_after_a_wrong_pick(snap_compare: Any, make: Any, content: Content) -> None:
    question = choice_question(content)
    assert snap_compare(make(), terminal_size=SIZE, run_before=start_with(question, ("2",)))
