"""Snapshots at 80×24 of the mock exam's intro and result, and of explain-it after submitting.

Deterministic: a 4-choice exam from a seed, a fixed clock and attempt id, no cursor blink (conftest).
New snapshots only; update with `pytest tests/tui/test_exam_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.questions import KIND_CHOICE
from tests.tui.helpers import SIZE


def exam(content: Any, store: Any) -> ExamSession:
    session = ExamSession(content, store, ExamSettings(count=6, kind=KIND_CHOICE, seed=11, time_limit_s=600))
    session.attempt_id = "5e1ec7ed" + "0" * 24  # shown on the result screen
    return session


def test_exam_intro(snap_compare: Any, make: Any, content: Any, store: Any) -> None:
    assert snap_compare(make(start="exam", options=exam(content, store)), terminal_size=SIZE)


def test_exam_result(snap_compare: Any, make: Any, content: Any, store: Any, clock: Any) -> None:
    session = exam(content, store)

    async def sit(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        for index, question in enumerate(session.questions[:4]):
            right = index != 1  # three right, one wrong, two unanswered: 50 %, a fail
            answer = question.answer if right else str(int(question.answer) % 4 + 1)
            await pilot.press(answer)
        clock.advance(seconds=200)
        await pilot.press("s", "enter")
        await pilot.pause()

    assert snap_compare(make(start="exam", options=session), terminal_size=SIZE, run_before=sit)


def test_explain_review(snap_compare: Any, make: Any) -> None:
    async def write(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press(*"peak memory, wall vs CPU time", "ctrl+s")
        await pilot.pause()
        await pilot.press("1", "3")
        await pilot.pause()

    assert snap_compare(make(), terminal_size=SIZE, run_before=write)
