"""Plots drawn by textual-plot (issue 23, section 3): the stats screen's retention over time (share
right per day, then the forgetting curve) and a lab result's plot; plotext stays for `studyapp lab`.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from textual_plot import PlotWidget

from studyapp.progress.store import ProgressStore
from studyapp.report.stats import accuracy_per_day, retention_curve
from studyapp.tui.widgets.plot import LinePlot
from tests.tui.helpers import KST, SIZE, assert_fits, flat, screen_text


def answer_for_three_days(store: ProgressStore, clock: Any, content: Any) -> None:
    first, second = list(content.items)[:2]
    for _day in range(3):
        store.record_answer(first, answer="O", correct=True)
        store.record_answer(second, answer="X", correct=False)
        clock.advance(days=1)


def test_retention_numbers(store: ProgressStore, clock: Any, content: Any) -> None:
    assert retention_curve(store, clock()) == []  # nothing learnt yet: no curve
    answer_for_three_days(store, clock, content)
    curve = retention_curve(store, clock(), days=10)
    assert [day for day, _ in curve] == list(range(11))
    recall = [value for _, value in curve]
    assert all(0.0 < value <= 1.0 for value in recall)
    assert recall == sorted(recall, reverse=True)  # forgetting: it only falls without reviews
    per_day = accuracy_per_day(store, clock(), KST, days=5)
    assert len(per_day) == 5 and per_day[-1][1] is None  # nothing answered today
    assert [share for _, share in per_day[-4:-1]] == [0.5, 0.5, 0.5]
    assert per_day[-1][0] - per_day[0][0] == timedelta(days=4)


async def test_stats_draws_retention_with_textual_plot(
    make: Any, store: ProgressStore, clock: Any, content: Any
) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert not app.screen.query(LinePlot)  # no answers: no curve to draw
    answer_for_three_days(store, clock, content)
    app = make()
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        await pilot.pause(0.2)
        (plot,) = app.screen.query(LinePlot)
        widget = plot.query_one(PlotWidget)
        assert not widget.can_focus  # a picture: r and the arrows stay the screen's
        assert len(widget._datasets) == 2 and widget._v_lines  # measured, forecast, today
        text = flat(screen_text(app))
        assert flat("기억 유지율") in text and "망각곡선" in text and "100" in text
        assert_fits(app, 100)


async def test_a_lab_result_plot_is_a_textual_plot(make: Any, fake_labs: Path, store: ProgressStore) -> None:
    from tests.tui.test_labs_screen import open_labs, wait_for

    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: bool(screen.query(LinePlot)) or app.screen is not screen)
        while app.screen is not screen:  # the check question pops up after the run
            await pilot.press("escape")
            await pilot.pause()
        (plot,) = screen.query(LinePlot)
        await pilot.pause(0.2)
        assert plot.title_text == "speedup"
        assert len(plot.query_one(PlotWidget)._datasets) == 1
        assert_fits(app)
