"""The second TUI review (issue 32, reviews/2026-12-second/tui.md): the problems outside the mock
exam and the notebook, each through the screen a learner uses."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Input, OptionList

from studyapp.content.model import Content
from studyapp.content.search import search_cards
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.tui.screens.cards import CardsScreen
from studyapp.tui.screens.settings import SettingsScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text


def two_searchable_words(content: Content) -> tuple[str, str]:
    """Two words that each have hits in the fixture cards."""
    found: list[str] = []
    for topic in content.ordered_topics():
        for section in topic.sections:
            for bullet in section.bullets:
                for word in bullet.text.split():
                    plain = len(word) >= 5 and word.isascii() and word.isalpha()
                    if plain and word not in found and search_cards(content, word):
                        found.append(word)
                    if len(found) == 2:
                        return found[0], found[1]
    raise AssertionError("the fixture cards need two searchable words")


async def search(pilot: Any, word: str) -> None:
    await pilot.press("slash")
    field = pilot.app.screen.query_one("#card-search", Input)
    field.value = ""
    await pilot.press(*word, "enter")
    await pilot.pause()


@pytest.mark.parametrize("from_quiz", [False, True])
async def test_a_second_card_search_replaces_the_hits(make: Any, content: Content, from_quiz: bool) -> None:
    """M2: `/`, a word, Enter, then `/` again with another word crashed with DuplicateIds."""
    first, second = two_searchable_words(content)
    if from_quiz:
        app = make(start="quiz", options=SessionOptions(seed=1, include_drills=False, kind="ox"))
    else:
        app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        await search(pilot, first)
        await search(pilot, second)
        assert app.screen is screen and app.is_running
        hits = screen.query(OptionList)
        assert len(hits) == 1
        assert hits.first().option_count == len(search_cards(content, second))
        assert f"/{second}" in screen_text(app)
        await search(pilot, first)  # and once more, back to the first word
        assert screen.query_one("#card-hits", OptionList).option_count == len(search_cards(content, first))
        assert_fits(app)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("2026.12.26", date(2026, 12, 26)),
        ("2026. 12. 26.", date(2026, 12, 26)),
        ("12/26", date(2026, 12, 26)),
        ("2026년 12월 26일", date(2026, 12, 26)),
        ("1/10", date(2027, 1, 10)),  # no year: the next such day
    ],
)
async def test_settings_takes_the_exam_date_as_koreans_write_it(
    make: Any, store: ProgressStore, clock: Any, typed: str, expected: date
) -> None:
    """m8: `2026.12.26` and `12/26` were refused; the key bar had no `⏎ 저장`; the screen that sets
    the date told the learner to run a shell command for it."""
    assert clock().date() < expected
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        text = screen_text(app)
        assert "⏎ 저장" in text.splitlines()[-1]
        assert "studyapp" not in flat(text) and flat("시험일이 없습니다") in flat(text)
        await pilot.press(*("space" if ch == " " else ch for ch in typed))
        await pilot.press("enter")
        await pilot.pause()
        assert store.exam_date() == expected
        assert screen.query_one("#settings-date", Input).value == expected.isoformat()
        assert flat("저장했습니다") in flat(screen_text(app))


async def test_settings_refuses_a_non_date_in_one_line(make: Any, store: ProgressStore) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press(*"12/32", "enter")
        await pilot.pause()
        assert store.exam_date() is None
        assert flat("날짜로 읽을 수 없습니다") in flat(screen_text(app))


def answer_wrong(store: ProgressStore, items: list[Any]) -> None:
    for item in items:
        store.record_answer(item.id, answer="X" if item.answer == "O" else "O", correct=False, unsure=False)


async def test_home_counts_what_is_due_now_apart_from_what_comes_back_later(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    """m5: after a session the review count barely shrank, as the session's own answers were in
    FSRS learning steps and counted with the rest; c3: the note on learning steps stayed for days."""
    items = sorted(content.items.values(), key=lambda i: i.id)
    answer_wrong(store, items[:3])
    clock.advance(minutes=30)  # those three are due again now
    answer_wrong(store, items[3:5])  # just answered: back later today
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("오늘 복습 3 (이따 +2)") in text
        assert flat("이따 +2: 방금 푼 문항") in text  # and why
        assert_fits(app)
    clock.advance(days=8)  # a week later: everything is due now, nothing comes back "later"
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("오늘 복습 5") in text and "이따" not in text
        assert "학습 단계" not in text


@pytest.mark.parametrize("exam_in_days", [None, 2])
async def test_first_run_names_the_session_size_s_really_starts(
    make: Any, store: ProgressStore, clock: Any, exam_in_days: int | None
) -> None:
    """c2: Home said `s` starts with 10 new items, then `s` opened 1/20 (with an exam date the
    new-item quota is larger)."""
    from datetime import timedelta

    if exam_in_days:
        store.set_exam_date(clock().date() + timedelta(days=exam_in_days))
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = flat(screen_text(app))
        await pilot.press("s")
        await pilot.pause()
        queue = app.screen.session.queue
        promised = 10 if exam_in_days is None else app.session_size()
        assert flat(f"새 문항 {promised}개로 시작합니다") in text
        # A mixed session drops an O/X item that a 4-choice question already showed as an option
        # (its truth came with that question's feedback): only such items may go missing.
        asked = {question.id for question in queue}
        shown = {option.item_id for question in queue for option in question.options} - asked
        assert promised - len(shown) <= len(queue) <= promised


async def test_exercise_requirements_follow_the_interface_language(
    make: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """m10: the checker's requirement lines were English in the Korean TUI: the TUI did not pass
    the language to the checker (STUDYAPP_LANG), as `studyapp exercise check` does."""
    from tests.tui.test_exercises_screen import FIXTURE_LABS, check, detail_text, open_exercises

    labs = tmp_path / "toylabs" / "labs"
    shutil.copytree(FIXTURE_LABS, labs)
    checker = labs / "toy" / "exercises" / "toy-sum" / "check.py"
    source = checker.read_text(encoding="utf-8")
    said_in_korean = '"작은 수를 더한다" if os.environ.get("STUDYAPP_LANG") == "ko" else "adds small numbers"'
    checker.write_text(source.replace('"adds small numbers"', said_in_korean, 1), encoding="utf-8")
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    for lang, name in (("ko", "작은 수를 더한다"), ("en", "adds small numbers")):
        app = make(lang=lang)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_exercises(app, pilot)
            await pilot.press("s")
            await pilot.pause()
            await check(app, pilot, screen)
            assert flat(f"✗ {name}") in detail_text(app, screen)


@pytest.mark.parametrize(("typed", "kind"), [("계산", "drill"), ("O/X", "ox"), ("4지선다", "choice")])
async def test_the_palette_starts_a_session_of_one_kind(make: Any, typed: str, kind: str) -> None:
    """m9: `계산` in the palette said `찾는 명령이 없습니다`; one kind was only `--kind` in the shell."""
    from studyapp.tui.screens.quiz import QuizScreen

    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*typed)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        assert screen.options.kind == kind
        queue = screen.session.queue
        kinds = [q.kind for q in queue]
        assert kind in kinds
        # as `studyapp quiz --kind choice`: an item no 4-choice question can be keyed on stays O/X
        assert set(kinds) <= {kind, "ox"}
        if kind != "choice":
            assert set(kinds) == {kind}


async def test_help_names_keys_as_typed_and_fits_them(make: Any) -> None:
    """c5: `slash 찾기`, `1 2 3 4 5 6 Spa…`, and Labs' `Esc 취소` beside `Esc q 뒤로`."""
    from textual.widgets import Static

    from studyapp.tui.screens.help import KEY_COLUMN, HelpScreen

    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        rows = [
            line
            for widget in screen.query(".help-rows").results(Static)
            for line in str(widget.content).splitlines()
        ]
        keys = [line[:KEY_COLUMN] for line in rows]
        assert not any("slash" in key or "…" in key for key in keys)
        assert any(line.startswith("/ ") and "찾기" in line for line in rows)
        assert any(key.startswith("1–") for key in keys)  # the explain-it screen's six key points
        assert any("취소 (실행 중일 때)" in line for line in rows)


async def test_checklist_summary_names_every_part_the_evidence_lists(make: Any) -> None:
    """c6: the summary line left out explain-it, which the evidence below it lists."""
    from textual.widgets import Static

    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        line = str(app.screen.query_one("#checklist-components", Static).content)
        for part in ("퀴즈", "과제", "실습", "설명하기", "자기 점검"):
            assert part in line
        assert_fits(app)


async def test_home_plan_shows_every_step_at_80_columns(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    """c1: the plan was cut with raw ids (`과제 comm-share-from-trace (x…`); the explain-it step
    was never visible at 80 columns."""
    from datetime import timedelta

    from tests.tui.test_prediction_screens import seed_answers

    seed_answers(content, store, clock, count=30)
    store.set_exam_date(clock().date() + timedelta(days=10))
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        plan = next(line for line in screen_text(app).splitlines() if line.strip().startswith("오늘:"))
        assert "…" not in plan
        for key in ("(s)", "(n)", "(x)", "(d)", "(e)"):
            assert key in plan
        assert_fits(app)


async def test_stats_legend_under_the_plot_and_exam_rows_on_one_line(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    """c7: the retention chart's legend box sat on the curves; `○` was not explained; at 80
    columns an exam row wrapped (` · 예측 30%` on a line of its own)."""
    from textual.widgets import Static

    from tests.tui.test_prediction_screens import seed_answers
    from tests.tui.test_review_walkthrough import sit_an_exam

    seed_answers(content, store, clock, count=30)
    session = sit_an_exam(content, store)
    app = make()
    async with app.run_test(size=(80, 60)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause(0.5)
        legend = str(app.screen.query_one(".plot-legend", Static).content)
        assert "정답률" in legend and "망각 곡선" in legend and "오늘" in legend
        calibration = str(app.screen.query_one("#stats-calibration", Static).content)
        assert "○ 답 10개 미만" in calibration
        exams_box = app.screen.query_one("#stats-exams", Static)
        row = next(line for line in str(exams_box.content).splitlines() if session.attempt_id[:8] in line)
        assert cell_len(row) <= exams_box.content_region.width  # one line, not wrapped
        assert_fits(app)


async def test_english_card_title_bar_names_the_pattern_section_in_english(
    make: Any, content: Content
) -> None:
    """c16: in English the pattern section's title bar read `시험 대비 "패턴 보기" 예시`."""
    found = next(
        (
            (topic.id, section.id)
            for topic in content.ordered_topics()
            for section in topic.sections
            if section.kind == "patterns"
        ),
        None,
    )
    if found is None:
        pytest.skip("the fixture cards have no pattern section")
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        await screen.show(*found)
        await pilot.pause()
        title = screen_text(app).splitlines()[0]
        assert "Exam patterns" in title and "패턴" not in title


@pytest.mark.parametrize("size", [(60, 20), (120, 40)])
async def test_home_keeps_its_top_in_view_and_no_empty_half(make: Any, size: tuple[int, int]) -> None:
    """c12: at 60×20 Home opened scrolled past its title and first line; at 120×40 about 15
    empty rows sat under the keys."""
    from textual.widgets import Static

    app = make()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert lines[0].strip().startswith("studyapp")
        status = next(i for i, line in enumerate(lines) if "오늘 복습" in line)  # on screen
        assert status <= 2 or size[1] > 24  # right under the title where rows are short
        shortcuts = app.screen.query_one("#home-shortcuts", Static)
        below = size[1] - 1 - shortcuts.region.bottom  # rows between the keys and the key bar
        assert below < 10
        assert_fits(app, size[0])


async def drill_session(make: Any) -> Any:
    return make(start="quiz", options=SessionOptions(kind="drill", seed=1, mode="new"))


async def test_a_drill_miss_shows_what_the_typed_expression_gives(make: Any) -> None:
    """c9: `✗ 틀림 정답은 3.40배 내 답: 1/(0.2+0.8/4)`: the value the expression gives was not shown."""
    from studyapp.quiz.numbers import parse_number

    app = await drill_session(make)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        question = app.screen.session.current
        typed = "1/(0.5+0.5/4)"  # 1.60, not the answer of any fixture drill asking this
        await pilot.press(*typed, "enter")
        await pilot.pause()
        value = parse_number(typed, question.unit)
        assert value is not None
        text = flat(screen_text(app))
        assert flat(f"내 답: {typed} = {value:.1f}") in text


async def test_unsure_in_a_drill_is_marked_before_the_answer(make: Any) -> None:
    """c10: `?` in the number box showed no mark until the answer was in (checked: it does now)."""
    app = await drill_session(make)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert flat("? 모름 표시") in flat(screen_text(app))
        assert app.screen.query_one("#drill-input", Input).value == ""  # `?` is not typed in the box
