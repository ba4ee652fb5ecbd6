"""The exam prediction in the TUI (Pilot): Home's forecast and plan, the settings section (F8),
the stats screen's reliability diagram, resuming a mock exam after the app was closed, and the
countdown's warning in its last minutes; and an 80×24 snapshot of Home with the plan."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from rich.cells import cell_len as cell_width

from studyapp.content.model import Content
from studyapp.progress import exams, goals
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.questions import KIND_OX
from studyapp.tui.screens.exam import ExamIntroScreen, ExamScreen
from studyapp.tui.screens.exam_result import ExamResultScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.settings import SettingsScreen
from studyapp.tui.screens.stats import StatsScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text

TICK_WAIT = 0.6


def seed_answers(content: Content, store: ProgressStore, clock: Any, count: int = 60) -> None:
    """`count` O/X answers over three days: the first items known, the rest guessed."""
    items = sorted(content.items.values(), key=lambda i: i.id)[:count]
    for day in range(3):
        for index, item in enumerate(items):
            clock.advance(seconds=30)
            known = index % 3 != 0
            correct = known or (index + day) % 2 == 0
            answer = item.answer if correct else ("X" if item.answer == "O" else "O")
            store.record_answer(item.id, answer=answer, correct=correct, unsure=not known)
        clock.advance(days=1)


async def test_home_shows_the_exam_day_prediction_and_todays_plan(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    seed_answers(content, store, clock, count=30)
    store.set_exam_date(clock().date() + timedelta(days=10))
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        text = flat(screen_text(app))
        assert flat("Exam day: predicted") in text and flat("pass chance") in text
        assert flat("Today:") in text and flat("new a day (n)") in text
        assert_fits(app)


async def test_home_without_an_exam_date_points_to_the_settings(make: Any) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("An exam today: predicted") in text and flat("exam date: F8") in text


async def test_the_settings_section_saves_the_exam_date_pass_mark_and_cutoff(
    make: Any, store: ProgressStore, clock: Any
) -> None:
    app = make(lang="en")
    exam = clock().date() + timedelta(days=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        assert "Settings" in screen_text(app)
        for box, value in (
            ("#settings-date", exam.isoformat()),
            ("#settings-mark", "70"),
            ("#settings-cutoff", "40"),
        ):
            screen.query_one(box).value = value
        await pilot.press("enter")
        await pilot.pause()
        assert store.exam_date() == exam
        assert goals.pass_mark(store) == 0.7 and goals.topic_cutoff(store) == 0.4
        text = flat(screen_text(app))
        assert flat("Saved.") in text and flat("Pass mark 70%") in text and flat("at least 40%") in text
        assert flat("D-30") in text
        # a date in the past is refused and nothing changes
        screen.query_one("#settings-date").value = "2000-01-01"
        await pilot.press("enter")
        await pilot.pause()
        assert flat("is in the past") in flat(screen_text(app)) and store.exam_date() == exam
        # empty boxes clear the settings
        for box in ("#settings-date", "#settings-mark", "#settings-cutoff"):
            screen.query_one(box).value = ""
        await pilot.press("enter")
        await pilot.pause()
        assert store.exam_date() is None and goals.pass_mark(store) is None
        assert goals.topic_cutoff(store) is None
        assert_fits(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_the_stats_screen_plots_the_reliability_diagram(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    seed_answers(content, store, clock)
    app = make(lang="en")
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        await pilot.press("f6")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        text = screen_text(app)
        assert "reliability diagram" in text and "Brier" in text
        assert "100% │" in text and "  0% │" in text and "●" in text  # a plot, not a table
        assert "·" in text  # the diagonal a calibrated forecast follows


async def test_a_mock_exam_closed_midway_is_resumed_with_its_answers_and_time(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("enter")  # start: the prediction is archived with the attempt
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        session = screen.session
        assert session.prediction is not None
        clock.advance(seconds=120)
        for _ in range(2):
            await pilot.press("1")
        await pilot.pause()
        attempt_id = session.attempt_id
        answers = dict(session.answers)
        app.exit()  # ctrl+q or a closed terminal: no submit
    session.release()  # the process ended: the OS drops its hold on the attempt (M6's lock)
    attempt = exams.attempts(store)[-1]
    assert not attempt.finished and attempt.answered == 2
    clock.advance(hours=2)  # the time away is not counted
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExamIntroScreen)
        text = flat(screen_text(app))
        assert flat(f"Attempt {attempt_id[:8]} ended without a submit (2/{session.total} answered") in text
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        resumed = screen.session
        assert resumed.attempt_id == attempt_id and resumed.answers == answers
        assert resumed.position == 2 and resumed.prediction == session.prediction
        # the two minutes used are gone (a minute a question: how many 4-choice questions the
        # fixture bank yields depends on the draw)
        limit = session.time_limit_s
        assert resumed.time_limit_s == limit
        assert limit - 125 < resumed.remaining_s() <= limit - 120
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, ExamResultScreen)
    every = exams.attempts(store)
    assert len(every) == 1 and every[0].finished and every[0].uid == attempt_id
    assert every[0].to_dict()["predicted"] is not None


async def test_the_countdown_warns_in_its_last_minutes(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    session = ExamSession(content, store, ExamSettings(count=5, kind=KIND_OX, seed=4, time_limit_s=600))
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        clock.advance(seconds=200)
        await pilot.pause(TICK_WAIT)
        assert not any("안 푼 문항" in str(n.message) for n in app._notifications)
        clock.advance(seconds=290)  # 01:50 left: within the last fifth of a 10-minute exam
        await pilot.pause(TICK_WAIT)
        warnings = [n for n in app._notifications if "안 푼 문항 5개" in str(n.message)]
        assert len(warnings) == 1 and "01:5" in str(warnings[0].message)
        assert app.screen.query_one("#exam-title").has_class("ending")
        clock.advance(seconds=20)
        await pilot.pause(TICK_WAIT)
        assert len([n for n in app._notifications if "안 푼 문항" in str(n.message)]) == 1  # once


async def test_the_plan_line_uses_the_width_a_wider_terminal_gives(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    """At 80 columns the plan is cut to Home's text column; at 120 it is cut at 116, not at 76."""
    from studyapp.tui.widgets.forecast import WIDTH, forecast_texts

    seed_answers(content, store, clock, count=30)
    store.set_exam_date(clock().date() + timedelta(days=10))
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        plans = forecast_texts(app)[1:]  # longest wording first (issue 32 c1)
        assert len(plans[0]) > WIDTH  # Korean cells are wider still: it cannot fit 76 cells
        shown = str(app.screen.query_one("#home-forecast").render()).splitlines()[1]
        assert shown.rstrip("…") and cell_width(shown) > WIDTH
        assert shown in plans and cell_width(shown) <= 116  # the longest wording that fits
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        narrow = str(app.screen.query_one("#home-forecast").render()).splitlines()[1]
        assert cell_width(narrow) <= WIDTH < cell_width(shown)
        assert_fits(app)


def test_home_with_the_plan_at_80_columns(
    snap_compare: Any, make: Any, content: Content, store, clock
) -> None:
    seed_answers(content, store, clock, count=30)
    store.set_exam_date(date(2026, 3, 20))
    goals.set_pass_mark(store, 0.6)

    async def settle(pilot: Any) -> None:
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(make(), terminal_size=SIZE, run_before=settle)
