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


def test_lab_results_at_80_columns(snap_compare: Any, make: Any, fake_labs: Any, store: Any) -> None:
    """A 9-column result table at 80×24: the verdict column first, the scroll hint below it."""
    from tests.tui.test_labs_screen import seed_wide_run

    seed_wide_run(store)

    async def open_results(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        screen = pilot.app.screen
        table = screen.query_one(".lab-table")
        screen.query_one("#lab-detail").scroll_to_widget(table, animate=False, top=True)
        await pilot.pause()

    assert snap_compare(make(lang="en"), terminal_size=SIZE, run_before=open_results)


def test_notebook(snap_compare: Any, make: Any, store: Any, content: Any) -> None:
    """The wrong-answer notebook at 80×24: misses under misconception headings."""
    from studyapp.quiz.questions import all_questions

    tagged = sorted((item for item in content.items.values() if item.misconception), key=lambda item: item.id)
    questions = all_questions(content, include_drills=False)
    picked = [tagged[0], *[i for i in tagged if i.misconception == tagged[0].misconception][1:2]]
    picked.append(next(i for i in tagged if i.misconception != tagged[0].misconception))
    for item in picked:
        wrong = "X" if item.answer == "O" else "O"
        store.record_answer(
            item.id,
            answer=wrong,
            correct=False,
            unsure=False,
            kind="ox",
            mode="due",
            session_id="snapshot",
            response_ms=1000,
            text_hash=questions[item.id].text_hash,
        )

    async def open_notebook(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()

    assert snap_compare(make(), terminal_size=SIZE, run_before=open_notebook)
